/*
 * P3 (Robertson) in CVODES (SUNDIALS 6.4, Debian's libsundials-dev): BDF with a dense direct
 * linear solver, the analytic Jacobian and analytic sensitivity right-hand sides, forward
 * sensitivities to the three rate constants by the staggered corrector.
 *
 *   y1' = -k1 y1 + k3 y2 y3
 *   y2' =  k1 y1 - k3 y2 y3 - k2 y2^2
 *   y3' =  k2 y2^2,             k = (k1, k2, k3), y(0) = (1, 0, 0)
 *
 * Same equations and parameter order as runners/diffsol/p3_robertson.rs. One call is one
 * complete solve: context, vectors, solver memory and linear solver are created and freed
 * inside it, as the other runners build their problem per solve.
 */
#include <stdio.h>

#include <cvodes/cvodes.h>
#include <nvector/nvector_serial.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#define NEQ 3
#define NS 3

static int rhs(sunrealtype t, N_Vector yv, N_Vector fv, void *data) {
    const double *k = (const double *)data;
    const double *y = N_VGetArrayPointer(yv);
    double *f = N_VGetArrayPointer(fv);
    (void)t;
    f[0] = -k[0] * y[0] + k[2] * y[1] * y[2];
    f[1] = k[0] * y[0] - k[2] * y[1] * y[2] - k[1] * y[1] * y[1];
    f[2] = k[1] * y[1] * y[1];
    return 0;
}

static int jacobian(sunrealtype t, N_Vector yv, N_Vector fv, SUNMatrix jac, void *data,
                    N_Vector tmp1, N_Vector tmp2, N_Vector tmp3) {
    const double *k = (const double *)data;
    const double *y = N_VGetArrayPointer(yv);
    (void)t, (void)fv, (void)tmp1, (void)tmp2, (void)tmp3;
    SM_ELEMENT_D(jac, 0, 0) = -k[0];
    SM_ELEMENT_D(jac, 0, 1) = k[2] * y[2];
    SM_ELEMENT_D(jac, 0, 2) = k[2] * y[1];
    SM_ELEMENT_D(jac, 1, 0) = k[0];
    SM_ELEMENT_D(jac, 1, 1) = -k[2] * y[2] - 2.0 * k[1] * y[1];
    SM_ELEMENT_D(jac, 1, 2) = -k[2] * y[1];
    SM_ELEMENT_D(jac, 2, 0) = 0.0;
    SM_ELEMENT_D(jac, 2, 1) = 2.0 * k[1] * y[1];
    SM_ELEMENT_D(jac, 2, 2) = 0.0;
    return 0;
}

/* s_j' = f_y s_j + f_{k_j}, all three parameters at once. */
static int sensitivity_rhs(int ns, sunrealtype t, N_Vector yv, N_Vector fv, N_Vector *sv,
                           N_Vector *sdot, void *data, N_Vector tmp1, N_Vector tmp2) {
    const double *k = (const double *)data;
    const double *y = N_VGetArrayPointer(yv);
    (void)t, (void)fv, (void)tmp1, (void)tmp2;
    for (int j = 0; j < ns; j++) {
        const double *s = N_VGetArrayPointer(sv[j]);
        double *d = N_VGetArrayPointer(sdot[j]);
        d[0] = -k[0] * s[0] + k[2] * y[2] * s[1] + k[2] * y[1] * s[2];
        d[1] = k[0] * s[0] - (k[2] * y[2] + 2.0 * k[1] * y[1]) * s[1] - k[2] * y[1] * s[2];
        d[2] = 2.0 * k[1] * y[1] * s[1];
        switch (j) {
        case 0: /* df/dk1 */
            d[0] -= y[0];
            d[1] += y[0];
            break;
        case 1: /* df/dk2 */
            d[1] -= y[1] * y[1];
            d[2] += y[1] * y[1];
            break;
        default: /* df/dk3 */
            d[0] += y[1] * y[2];
            d[1] -= y[1] * y[2];
            break;
        }
    }
    return 0;
}

/* Counters of one solve, in this order (see the Rust side, runners/cvodes.rs). */
enum { STEPS, RHS, JACOBIANS, SETUPS, NEWTON, SENS_RHS, NSTATS };

#define CHECK(call)                                                                              \
    do {                                                                                         \
        flag = (call);                                                                           \
        if (flag < 0) {                                                                          \
            snprintf(err, err_len, "%s returned %d", #call, flag);                             \
            goto done;                                                                           \
        }                                                                                        \
    } while (0)

/*
 * Solves P3 to t_end with tolerances (rtol, atol), the sensitivities in the error test
 * (sens_in_error_test != 0; their tolerances estimated by CVODES from rtol, atol and
 * pbar = |k|) or not. Writes y(t_end) to y_out, dy/dk_j to sens_out[3 j .. 3 j + 3], the
 * counters to stats[NSTATS]. Returns 0, or a CVODES error flag with a message in err.
 */
int hysens_peers_cvodes_robertson(double t_end, double rtol, double atol, const double *k_in,
                                  int sens_in_error_test, double *y_out, double *sens_out,
                                  long *stats, char *err, size_t err_len) {
    double k[NS] = {k_in[0], k_in[1], k_in[2]};
    double pbar[NS];
    for (int j = 0; j < NS; j++) pbar[j] = k[j] < 0 ? -k[j] : k[j];
    int flag = 0;
    SUNContext ctx = NULL;
    N_Vector y = NULL;
    N_Vector *s = NULL;
    SUNMatrix a = NULL;
    SUNLinearSolver ls = NULL;
    void *mem = NULL;
    sunrealtype t = 0.0;
    err[0] = '\0';

    CHECK(SUNContext_Create(NULL, &ctx));
    y = N_VNew_Serial(NEQ, ctx);
    s = N_VCloneVectorArray(NS, y);
    a = SUNDenseMatrix(NEQ, NEQ, ctx);
    ls = SUNLinSol_Dense(y, a, ctx);
    mem = CVodeCreate(CV_BDF, ctx);
    if (!y || !s || !a || !ls || !mem) {
        flag = -1;
        snprintf(err, err_len, "CVODES allocation failed");
        goto done;
    }
    double *y0 = N_VGetArrayPointer(y);
    y0[0] = 1.0, y0[1] = 0.0, y0[2] = 0.0;
    for (int j = 0; j < NS; j++) N_VConst(0.0, s[j]);
    CHECK(CVodeInit(mem, rhs, 0.0, y));
    CHECK(CVodeSStolerances(mem, rtol, atol));
    CHECK(CVodeSetUserData(mem, k));
    CHECK(CVodeSetLinearSolver(mem, ls, a));
    CHECK(CVodeSetJacFn(mem, jacobian));
    CHECK(CVodeSetMaxNumSteps(mem, 1000000));
    CHECK(CVodeSetStopTime(mem, t_end));
    CHECK(CVodeSensInit(mem, NS, CV_STAGGERED, sensitivity_rhs, s));
    CHECK(CVodeSetSensParams(mem, NULL, pbar, NULL));
    CHECK(CVodeSensEEtolerances(mem));
    CHECK(CVodeSetSensErrCon(mem, sens_in_error_test ? SUNTRUE : SUNFALSE));
    CHECK(CVode(mem, t_end, y, &t, CV_NORMAL));
    CHECK(CVodeGetSens(mem, &t, s));

    const double *yf = N_VGetArrayPointer(y);
    for (int i = 0; i < NEQ; i++) y_out[i] = yf[i];
    for (int j = 0; j < NS; j++) {
        const double *sj = N_VGetArrayPointer(s[j]);
        for (int i = 0; i < NEQ; i++) sens_out[NEQ * j + i] = sj[i];
    }
    CHECK(CVodeGetNumSteps(mem, &stats[STEPS]));
    CHECK(CVodeGetNumRhsEvals(mem, &stats[RHS]));
    CHECK(CVodeGetNumJacEvals(mem, &stats[JACOBIANS]));
    CHECK(CVodeGetNumLinSolvSetups(mem, &stats[SETUPS]));
    CHECK(CVodeGetNumNonlinSolvIters(mem, &stats[NEWTON]));
    CHECK(CVodeGetSensNumRhsEvals(mem, &stats[SENS_RHS]));
    flag = 0;

done:
    if (mem) CVodeFree(&mem);
    if (ls) SUNLinSolFree(ls);
    if (a) SUNMatDestroy(a);
    if (s) N_VDestroyVectorArray(s, NS);
    if (y) N_VDestroy(y);
    if (ctx) SUNContext_Free(&ctx);
    return flag;
}

//! ESDIRK5(4)7L\[2\]SA2 of Kennedy & Carpenter (2019), *Diagonally implicit Runge–Kutta methods
//! for stiff ODEs*, Appl. Numer. Math. 146, 221–244: 7 stages, order 5 with an embedded
//! order-4 method, L-stable, stiffly accurate, stage order 2, `γ = 23/125` — the higher-order
//! tableau for tight tolerances (issue #25: at rtol ≤ 1e-7 a multistep BDF code outran the
//! 4th-order default on HIRES and Chemical Akzo Nobel, `BENCHMARKS.md`).
//!
//! Measured: on stiff problems it takes about the steps of the fourth-order default (HIRES at
//! rtol 1e-10: 1538 against 1589), both limited by order reduction on the stiff components,
//! which stage order 2 bounds for every tableau here (`BENCHMARKS.md`, P5/P6); on non-stiff
//! components it gains its fifth order (`tests/esdirk547.rs`: observed 5.5).
//!
//! Every coefficient is a rational number of the paper, evaluated here in f64 at compile time
//! (one correctly rounded division each); `a_i1 = a_i2` (stage order 2). The unit tests check
//! every rooted-tree condition of order ≤ 5 for `b` and ≤ 4 for `b̂` to 1e-14, and that the
//! orders are sharp — a transcription error in any digit would break them.

use super::Tableau;

const G: f64 = 23.0 / 125.0;
const A31: f64 = 791_020_047_304.0 / 3_561_426_431_547.0;
const A41: f64 = -158_159_076_358.0 / 11_257_294_102_345.0;
const A43: f64 = -85_517_644_447.0 / 5_003_708_988_389.0;
const A51: f64 = -1_653_327_111_580.0 / 4_048_416_487_981.0;
const A53: f64 = 1_514_767_744_496.0 / 9_099_671_765_375.0;
const A54: f64 = 14_283_835_447_591.0 / 12_247_432_691_556.0;
const A61: f64 = -4_540_011_970_825.0 / 8_418_487_046_959.0;
const A63: f64 = -1_790_937_573_418.0 / 7_393_406_387_169.0;
const A64: f64 = 10_819_093_665_085.0 / 7_266_595_846_747.0;
const A65: f64 = 4_109_463_131_231.0 / 7_386_972_500_302.0;
const B1: f64 = -188_593_204_321.0 / 4_778_616_380_481.0;
const B3: f64 = 2_809_310_203_510.0 / 10_304_234_040_467.0;
const B4: f64 = 1_021_729_336_898.0 / 2_364_210_264_653.0;
const B5: f64 = 870_612_361_811.0 / 2_470_410_392_208.0;
const B6: f64 = -1_307_970_675_534.0 / 8_059_683_598_661.0;
const BH1: f64 = -582_099_335_757.0 / 7_214_068_459_310.0;

/// ESDIRK5(4)7L\[2\]SA2 (Kennedy & Carpenter 2019).
pub const ESDIRK547L2SA2: Tableau<7> = Tableau {
    name: "ESDIRK5(4)7L[2]SA2",
    c: [
        0.0,
        46.0 / 125.0,
        7_121_331_996_143.0 / 11_335_814_405_378.0,
        49.0 / 353.0,
        3_706_679_970_760.0 / 5_295_570_149_437.0,
        347.0 / 382.0,
        1.0,
    ],
    a: [
        [0.0; 7],
        [G, G, 0.0, 0.0, 0.0, 0.0, 0.0],
        [A31, A31, G, 0.0, 0.0, 0.0, 0.0],
        [A41, A41, A43, G, 0.0, 0.0, 0.0],
        [A51, A51, A53, A54, G, 0.0, 0.0],
        [A61, A61, A63, A64, A65, G, 0.0],
        [B1, B1, B3, B4, B5, B6, G],
    ],
    b: [B1, B1, B3, B4, B5, B6, G],
    b_hat: [
        BH1,
        BH1,
        615_023_338_567.0 / 3_362_626_566_945.0,
        3_192_122_436_311.0 / 6_174_152_374_399.0,
        6_156_034_052_041.0 / 14_430_468_657_929.0,
        -1_011_318_518_279.0 / 9_693_750_372_484.0,
        1_914_490_192_573.0 / 13_754_262_428_401.0,
    ],
    gamma: G,
    order: 5,
    embedded_order: 4,
    stage_order: 2,
};

// Compile-time guard against transcription errors (row sums equal to c).
const _: () = assert!(ESDIRK547L2SA2.structural_defect() < 1e-15);

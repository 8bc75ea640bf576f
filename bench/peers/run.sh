#!/usr/bin/env bash
# Build (release) and run the peer benchmark; prints one markdown report on stdout, progress
# on stderr.
#
#   bench/peers/run.sh [--budget SECONDS] [--cases P1,P3a,...]
#
# The build runs at the lowest CPU priority (the machine's 2 cores are shared with other
# builds; PEERS_JOBS=1 limits it to one job). The first build compiles diffsol's dependencies
# (nalgebra, faer) and dominates a cold run; later runs reuse bench/peers/target. The benchmark
# itself runs at normal priority so its timings are not distorted by `nice`. CVODES joins P3a and
# P3b (feature `cvodes`; install_sundials.sh installs SUNDIALS if missing); PEERS_CVODES=0
# leaves it out.
set -euo pipefail
cd "$(dirname "$0")"
jobs=()
if [[ -n "${PEERS_JOBS:-}" ]]; then jobs=(-j "$PEERS_JOBS"); fi
features=()
if [[ "${PEERS_CVODES:-1}" != 0 ]]; then
    ./install_sundials.sh
    features=(--features cvodes)
fi
nice -n 19 cargo build --release --quiet "${jobs[@]}" "${features[@]}"
exec "${CARGO_TARGET_DIR:-target}/release/hysens-peers" "$@"

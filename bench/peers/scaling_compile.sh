#!/usr/bin/env bash
# Compile cost of one heated-rod model per size (the scaling benchmark's third table): for each
# N, a scratch crate holding only `rodN` (`models/gen_heat_rod.py N`) and a `main` that solves
# it, after its dependencies are built: the macro expansion alone (rustc's `-Z time-passes`,
# `expand_crate`), `cargo check` (expansion and type checking, no code generation) and `cargo
# build --release`, the last two with /usr/bin/time (peak RSS of the compiler included).
# Usage: `bench/peers/scaling_compile.sh [N ...]` (default 10 100 1000). With `MACRO_OPT=3`
# the scratch crate compiles the macro (and the symbolic engine it runs) optimized, as
# `[profile.dev.build-override] opt-level = 3` in a user's Cargo.toml does; cargo's default
# builds proc macros without optimization, in release builds too.
set -euo pipefail
# Stable rustc prints `-Z time-passes` with this; set for every command, since cargo rebuilds
# the dependencies when it changes.
export RUSTC_BOOTSTRAP=1
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
sizes=("${@:-10 100 1000}")
work="$here/target/scaling_compile"
mkdir -p "$work/src"
cat > "$work/Cargo.toml" <<TOML
[package]
name = "scaling-compile"
version = "0.0.0"
edition = "2021"
publish = false
[dependencies]
hysens = { path = "$root" }
[workspace]
TOML
if [ -n "${MACRO_OPT:-}" ]; then
  printf '[profile.dev.build-override]\nopt-level = %s\n[profile.release.build-override]\nopt-level = %s\n' \
    "$MACRO_OPT" "$MACRO_OPT" >> "$work/Cargo.toml"
fi
write_main() {
  cat > "$work/src/main.rs" <<RS
mod rod;
fn main() {
    let p = rod::rod$1::P::from_array([1.0, 0.8, 1.2, 0.9, 1.1, 2.0, 2.0, 0.0, 1.0, 0.8]);
    let x0 = rod::rod$1::X::from_array([0.0; $1]);
    let s = rod::rod$1::Model.solver().tolerances(1e-6, 1e-8).solve(0.0, 2.0, &x0, &p);
    println!("{}", s.is_ok());
}
RS
}
# Dependencies first (not timed), with the smallest model.
python3 "$here/models/gen_heat_rod.py" 10 > "$work/src/rod.rs"
write_main 10
(cd "$work" && cargo build --release -q && cargo check -q)
echo "| N | model source (KB) | macro expansion (s) | cargo check (s) | check peak RSS (MB) | cargo build --release (s) | build peak RSS (MB) |"
echo "|---:|---:|---:|---:|---:|---:|---:|"
for n in ${sizes[@]}; do
  python3 "$here/models/gen_heat_rod.py" "$n" > "$work/src/rod.rs"
  write_main "$n"
  kb=$(( $(wc -c < "$work/src/rod.rs") / 1024 ))
  touch "$work/src/rod.rs"
  expand=$(cd "$work" && cargo rustc -q --profile check -- -Z time-passes 2>&1 \
    | awk '/[ \t]expand_crate$/ {sub(";", "", $2); print $2}')
  touch "$work/src/rod.rs"
  check=$( { cd "$work" && /usr/bin/time -f "%e %M" cargo check -q 2>&1 >/dev/null; } | tail -1)
  touch "$work/src/rod.rs"
  build=$( { cd "$work" && /usr/bin/time -f "%e %M" cargo build --release -q 2>&1 >/dev/null; } | tail -1)
  read -r cs cm <<< "$check"
  read -r bs bm <<< "$build"
  echo "| $n | $kb | $expand | $cs | $(( cm / 1024 )) | $bs | $(( bm / 1024 )) |"
done

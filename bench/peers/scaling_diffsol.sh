#!/usr/bin/env bash
# The diffsol side of the scaling benchmark (examples/scaling_diffsol.rs): the heated rod with
# a thermostat at N cells, diffsol 0.18 BDF with its sparse faer backend, every (N, MODE) in its
# own process under /usr/bin/time -v for its peak RSS. Prints a markdown table at the end; the
# JSON lines (with "rss_mb" added) go to results/scaling_diffsol.jsonl.
#
#   bench/peers/scaling_diffsol.sh [N ...]            (default: 10 100 1000 5000)
#   MODES="plain fsa" bench/peers/scaling_diffsol.sh  (default: plain fsa adjoint fsa-asis adjoint-asis)
#
# fsa / adjoint are the benchmark's modes; fsa-asis / adjoint-asis are diffsol's own event
# handling without the restart fixes (see the example's module docs). A cell is stopped after
# CELL_TIMEOUT seconds (default 180). The build runs niced; the runs do not.
set -euo pipefail
cd "$(dirname "$0")"
sizes=("${@:-10 100 1000 5000}")
modes=(${MODES:-plain fsa adjoint fsa-asis adjoint-asis})
cell_timeout=${CELL_TIMEOUT:-180}
nice cargo build --release -q --example scaling_diffsol
bin="${CARGO_TARGET_DIR:-target}/release/examples/scaling_diffsol"
out=results/scaling_diffsol.jsonl
: > "$out"

# Repeats per cell: each cell ≥ ~0.5 s, or one solve for the large ones.
repeats() {
  case "$1:$2" in
    10:plain) echo 1000 ;;
    10:fsa*) echo 60 ;;
    10:adjoint*) echo 200 ;;
    100:plain) echo 120 ;;
    100:fsa*) echo 5 ;;
    100:adjoint*) echo 30 ;;
    1000:plain) echo 8 ;;
    1000:adjoint*) echo 3 ;;
    *) echo 1 ;;
  esac
}
# The value of JSON field $1 in the line $2 (empty if absent).
field() { { grep -o "\"$1\":[^,}]*" <<<"$2" || true; } | head -1 | cut -d: -f2; }

rows=()
for n in ${sizes[@]}; do
  for mode in "${modes[@]}"; do
    log=$(mktemp)
    err=$(mktemp)
    rep=$(repeats "$n" "$mode")
    rc=0
    line=$(/usr/bin/time -v -o "$log" timeout "$cell_timeout" "$bin" "$n" "$mode" "$rep" 2>"$err") || rc=$?
    rss=$(awk -F: '/Maximum resident set size/ {printf "%.0f", $2/1024}' "$log")
    if [ "$rc" -eq 0 ]; then
      line="${line%\}},\"rss_mb\":$rss}"
      echo "$line" >>"$out"
      median=$(printf "%.4g" "$(field median_s "$line")")
      build=$(printf "%.3g" "$(field build_s "$line")")
      steps=$(field steps "$line")
      back=$(field steps_backward "$line")
      if [ -n "$back" ]; then steps="$steps + $back back"; fi
      rows+=("| $n | $mode | $median | $build | $rep | $steps | $(field nnz_jacobian "$line") | $rss |")
    elif [ "$rc" -eq 124 ]; then
      rows+=("| $n | $mode | stopped after ${cell_timeout} s | | $rep | | | $rss |")
    else
      why=$(tail -1 "$err" | sed 's/^scaling_diffsol: //; s/|/\\|/g')
      rows+=("| $n | $mode | fails: $why | | $rep | | | $rss |")
    fi
    echo "N=$n $mode: ${rows[-1]}" >&2
    rm -f "$log" "$err"
  done
done

echo
echo "diffsol 0.18 BDF, sparse faer LU (FaerSparseMat / FaerSparseLU), rtol 1e-6, atol 1e-8, t in [0, 2]"
echo
echo "| N | mode | median s / solve | of which build s | repeats | steps | nnz(J) | peak RSS MB |"
echo "|---:|---|---:|---:|---:|---:|---:|---:|"
printf '%s\n' "${rows[@]}"

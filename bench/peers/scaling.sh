#!/usr/bin/env bash
# The scaling benchmark (issue #25): the heated rod with a thermostat (`models/heat_rod.rs`) at
# N = 10, 100, 1000, 5000, hysens (its builder) and diffsol (BDF with its sparse faer backend),
# plain / forward sensitivities to the 10 parameters / adjoint gradient of the terminal cost.
# Every cell runs in its own process under /usr/bin/time -v (peak RSS), the tools alternating
# cell by cell; the JSON lines go to results/scaling.jsonl, the tables to stdout and the plot
# to results/scaling.svg (examples/scaling_report.rs). Usage: `bench/peers/scaling.sh [N ...]`.
# `TOOLS="hysens-sparse diffsol" OUT=results/scaling_sparse.jsonl scaling.sh 100 1000 5000`: the
# rod with `store = sparse` (`scaling_hysens 1000s`) against diffsol, into its own file (the
# sparse rods are generated at 100, 1000 and 5000 cells).
# About 15 minutes, most of it hysens at N = 5000 (and 2–3 minutes and 8 GB to compile it).
set -euo pipefail
cd "$(dirname "$0")"
sizes=("${@:-10 100 1000 5000}")
nice cargo build --release -q --example scaling_hysens --example scaling_diffsol --example scaling_report
out=${OUT:-results/scaling.jsonl}
tools=(${TOOLS:-hysens diffsol})
: > "$out"
# Repeats per size: enough for a stable median at the small sizes, one solve at the large.
repeats() { case $1 in 10) echo 200 ;; 100) echo 20 ;; 1000) echo 3 ;; *) echo 1 ;; esac; }
for n in ${sizes[@]}; do
  for mode in plain fsa adjoint; do
    for tool in "${tools[@]}"; do
      log=$(mktemp)
      case $tool in
        hysens-sparse) run=(target/release/examples/scaling_hysens "${n}s") ;;
        *) run=("target/release/examples/scaling_$tool" "$n") ;;
      esac
      line=$(/usr/bin/time -v -o "$log" "${run[@]}" "$mode" "$(repeats "$n")" | tail -1)
      rss=$(awk -F: '/Maximum resident set size/ {print $2/1024}' "$log")
      rm -f "$log"
      echo "${line%\}},\"rss_mb\":$rss}" | tee -a "$out" | cut -c1-160 >&2
    done
  done
done
target/release/examples/scaling_report "$out" "${out%.jsonl}.svg"

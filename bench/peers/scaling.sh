#!/usr/bin/env bash
# The scaling benchmark (issue #25): the heated rod with a thermostat (`models/heat_rod.rs`) at
# N = 10, 100, 1000 (hysens; its fixed-size dense storage stops there, see BENCHMARKS.md) and
# 10 … 5000 (diffsol BDF with its sparse faer backend), plain / forward sensitivities to the
# 10 parameters / adjoint gradient of the terminal cost. Every cell runs in its own process
# under /usr/bin/time -v (peak RSS), the tools alternating cell by cell; the JSON lines go to
# results/scaling.jsonl, the tables to stdout and the plot to results/scaling.svg
# (examples/scaling_report.rs). Usage: `bench/peers/scaling.sh [N ...]`.
set -euo pipefail
cd "$(dirname "$0")"
sizes=("${@:-10 100 1000 5000}")
nice cargo build --release -q --example scaling_hysens --example scaling_diffsol --example scaling_report
out=results/scaling.jsonl
: > "$out"
# Repeats per size: enough for a stable median at the small sizes, one solve at the large.
repeats() { case $1 in 10) echo 200 ;; 100) echo 20 ;; 1000) echo 3 ;; *) echo 1 ;; esac; }
hysens_sizes=" 10 100 1000 "
for n in ${sizes[@]}; do
  for mode in plain fsa adjoint; do
    for tool in hysens diffsol; do
      if [ "$tool" = hysens ] && [[ "$hysens_sizes" != *" $n "* ]]; then continue; fi
      log=$(mktemp)
      line=$(/usr/bin/time -v -o "$log" "target/release/examples/scaling_$tool" "$n" "$mode" "$(repeats "$n")" | tail -1)
      rss=$(awk -F: '/Maximum resident set size/ {print $2/1024}' "$log")
      rm -f "$log"
      echo "${line%\}},\"rss_mb\":$rss}" | tee -a "$out" | cut -c1-160 >&2
    done
  done
done
target/release/examples/scaling_report "$out" results/scaling.svg

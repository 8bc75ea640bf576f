#!/usr/bin/env bash
# Regenerate the performance table of the top-level README from one fresh run of run.sh:
# the full report goes to results/readme_run.md, the short table (summary.rs) replaces the
# lines between the README's `<!-- peers-table:begin -->` and `<!-- peers-table:end -->`
# markers, headed by the date, the machine's core count and the command.
#
#   bench/peers/update_readme.sh [run.sh arguments, e.g. --budget 0.5]
set -euo pipefail
cd "$(dirname "$0")"
readme=../../README.md
short=$(mktemp)
trap 'rm -f "$short"' EXIT
./run.sh --summary "$short" "$@" > results/readme_run.md
{
    echo "One run of \`bench/peers/update_readme.sh\` on $(date -u +%Y-%m-%d), $(nproc) cores" \
        "(full report: \`bench/peers/results/readme_run.md\`):"
    echo
    cat "$short"
} > "$short.block"
awk -v block="$short.block" '
    /<!-- peers-table:end -->/ { while ((getline line < block) > 0) print line; skipping = 0 }
    !skipping { print }
    /<!-- peers-table:begin -->/ { skipping = 1 }
' "$readme" > "$readme.new"
grep -q "peers-table:begin" "$readme.new" || { echo "README has no peers-table markers" >&2; exit 1; }
mv "$readme.new" "$readme"
rm -f "$short.block"
echo "README table updated from results/readme_run.md" >&2

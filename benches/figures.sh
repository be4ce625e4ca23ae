#!/usr/bin/env bash
# The four figures of docs/performance.md's "Figures to watch" table, measured in one run and
# printed as table rows to paste there (issue 35):
#
#   1. Spring 1901, napjudge against the `diplomacy` crate (same run, same inputs): time each, ratio
#      (1 to 3: the median of three runs of the bench, each the best of five rounds)
#   2. the DATC's 145 movement phases, both engines: time each, ratio
#   3. a Napoleonic season through `turn::play` from each power's text (88 units)
#   4. the main job, `napjudge replay fixtures/games/`: wall and user time, median of 3 runs (its
#      games side by side, as many at once as the machine has cores)
#
#   bash benches/figures.sh          # about 2 minutes on the 2-core machine, idle
#   IR=1 bash benches/figures.sh     # also instructions per call (valgrind's callgrind), which
#                                    # a loaded machine does not disturb
#
# Wall-clock figures mean something only on an idle machine: the script prints the load average
# before and after. Run from the repository's root.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
# One build, the release profile for both (`cargo bench` would build everything again under
# the bench profile).
bench=$(cargo build --release --bin napjudge --bench adjudicate --message-format=json |
    sed -n 's/.*"executable":"\([^"]*adjudicate[^"]*\)".*/\1/p' | tail -1)
[ -x "$bench" ] || { echo "no adjudicate bench binary" >&2; exit 1; }

# The bench's own timing loops only: a filter no criterion bench matches skips the criterion
# groups, and the plain loops after them print the per-call figures and the ratios (each the best
# of five rounds, the engines taking turns). Three runs of it, each figure their median: a whole
# process can be slow as a piece on this virtual machine (the first run after an idle minute).
for n in 1 2 3; do
    "$bench" --bench no-criterion-bench-matches > "$tmp/adjudicate.$n.txt" 2>/dev/null
done
field() { sed -n "s/.*$1 \([0-9.]*\).*/\1/p"; }
median() { sort -n | sed -n 2p; }
# The median of one field of one line over the three runs.
med() {
    for n in 1 2 3; do grep "$1" "$tmp/adjudicate.$n.txt" | field "$2"; done | median
}
s_nap=$(med '^spring_1901:' napjudge); s_dip=$(med '^spring_1901:' diplomacy); s_ratio=$(med '^spring_1901:' ratio)
d_nap=$(med '^datc ([0-9]* cases):' napjudge); d_dip=$(med '^datc ([0-9]* cases):' diplomacy)
d_ratio=$(med '^datc ([0-9]* cases):' ratio)
season_us=$(med '^napoleonic_season' napjudge)

# The main job, three times, each into a fresh folder, the folders deleted only at the end: ext4
# is slow to create files while thousands it deleted in the last minutes are still "recently
# deleted" (docs/performance.md), so a run must not follow the deletion of another's 17,000.
for n in 1 2 3; do
    /usr/bin/time -f "%e %U" -o "$tmp/time.$n" target/release/napjudge replay fixtures/games/ \
        --outbox "$tmp/outbox.$n" > "$tmp/replay.$n.txt" 2>&1 ||
        { cat "$tmp/replay.$n.txt" >&2; exit 1; }
    grep -q ' 0 differences' "$tmp/replay.$n.txt" || { cat "$tmp/replay.$n.txt" >&2; exit 1; }
done
wall=$(for n in 1 2 3; do cut -d' ' -f1 "$tmp/time.$n"; done | median)
user=$(for n in 1 2 3; do cut -d' ' -f2 "$tmp/time.$n"; done | median)
mails=$(sed -n 's/.*replayed \([0-9]* games\): \([0-9]*\) phases, .* \([0-9]*\) mails out.*/\1, \2 phases, \3 mails/p' "$tmp/replay.1.txt")

ir_spring="" ir_datc="" ir_season=""
if [ "${IR:-}" = 1 ]; then
    # Instructions per call: the count for N calls less the count for none (the set-up), over N.
    ir() {
        local what=$1 n=$2 zero full
        zero=$(NAPJUDGE_BENCH_COUNT=$what:0 valgrind --tool=callgrind --callgrind-out-file=/dev/null \
            "$bench" 2>&1 | sed -n 's/.*Collected : //p')
        full=$(NAPJUDGE_BENCH_COUNT=$what:$n valgrind --tool=callgrind --callgrind-out-file=/dev/null \
            "$bench" 2>&1 | sed -n 's/.*Collected : //p')
        echo $(((full - zero) / n))
    }
    a=$(ir spring_napjudge 2000); b=$(ir spring_diplomacy 200)
    ir_spring=" Instructions: $a against $b ($(awk "BEGIN{printf \"%.1f\", $b/$a}")x)."
    a=$(ir datc_napjudge 20); b=$(ir datc_diplomacy 3)
    ir_datc=" Instructions: $a against $b ($(awk "BEGIN{printf \"%.1f\", $b/$a}")x)."
    ir_season=" Instructions: $(ir season_napjudge 100)."
fi

echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
echo
echo "Measured $(date -u +%Y-%m-%d\ %H:%M) UTC at $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (uncommitted changes)'), load average $(cut -d' ' -f1-3 /proc/loadavg):"
echo
echo "| measure | figure |"
echo "|---|---|"
echo "| Spring 1901, napjudge vs the \`diplomacy\` crate | $s_nap us vs $s_dip us (${s_ratio}x)${ir_spring} |"
echo "| DATC, 145 movement phases | $(awk "BEGIN{printf \"%.3f\", $d_nap/1000}") ms vs $(awk "BEGIN{printf \"%.3f\", $d_dip/1000}") ms (${d_ratio}x)${ir_datc} |"
echo "| a Napoleonic season through \`turn::play\` from each power's text (88 units) | $season_us us${ir_season} |"
echo "| the main job, \`replay fixtures/games/\` ($mails) | $wall s (median of 3, user $user s; games side by side on $(nproc) cores) |"

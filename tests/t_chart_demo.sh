#!/bin/sh
# t_chart_demo.sh -- `make demo`'s report (a slow leak in a vLLM server
# tipped over by a burst of requests) has an honest chart: KV-cache usage
# a percentage between 0 and 100 in the legend and the findings, the byte
# axis fitted to the 71 -> 75 GiB leak with the card's total labelled,
# the header's peak the legend's, and the card strip's slices named as
# the message names them (args: oomlens binary, source dir).
set -eu
OOMLENS=$1
SRC=$2
DIR=$(mktemp -d "${TMPDIR:-/tmp}/t_chart_demo.XXXXXX")
trap 'rm -rf "$DIR"' EXIT
"$OOMLENS" analyze -q --tz +00:00 --year 2026 "$SRC/fixtures/mixed_gpu_leak_spike" \
	-o "$DIR/r.html" --db "$DIR/r.db" >/dev/null 2>&1 || true
[ -s "$DIR/r.html" ] || { echo "no report written"; exit 1; }
# the timeline section alone
sed -n '/<section id=timeline>/,/<\/section>/p' "$DIR/r.html" >"$DIR/tl.html"
fail() { echo "$1"; exit 1; }
kv=$(grep -o 'GPU KV cache <span class=ent>vllm</span> <span class=muted[^>]*>peak [0-9.]* %' \
	"$DIR/tl.html" | head -1 | sed 's/.*peak \([0-9.]*\) %/\1/')
[ -n "$kv" ] || fail "no KV-cache peak in the legend"
awk -v v="$kv" 'BEGIN { exit !(v > 1 && v <= 100) }' || fail "KV-cache peak $kv % is not a percentage"
[ "$kv" = "21.9" ] || fail "KV-cache peak $kv %, the log says 21.9 %"
# every percentage on the chart is one
grep -o '[0-9.]* %' "$DIR/tl.html" | awk '$1 > 100 { bad = 1; print "over 100: " $0 } END { exit bad }' \
	|| fail "a percentage over 100 on the chart"
grep -q '<th title="kv_usage_peak">KV-cache usage at its peak</th><td class=n title="[0-9.]*">15.9 %</td>' "$DIR/r.html" \
	|| fail "the spike finding's KV usage is not a percentage"
# the axis fits the leak, the capacity is labelled
grep -q 'axis from 70 GiB' "$DIR/tl.html" || fail "the byte axis does not fit the data"
grep -q 'class=yl>72 GiB</text>' "$DIR/tl.html" || fail "no GiB ticks near the data"
grep -q '>gpu0 total 79.6 GiB</text>' "$DIR/tl.html" || fail "no labelled capacity"
# one peak: the header's is the legend's
head=$(grep -o 'Peak memory</div><div class=kv>[^<]*' "$DIR/r.html" | sed 's/.*class=kv>//')
[ "$head" = "78.5 GiB" ] || fail "header peak: $head"
grep -q 'GPU used <span class=ent>gpu0</span> <span class=muted[^>]*>peak 78.5 GiB<' "$DIR/tl.html" \
	|| fail "the legend's peak of GPU used is not the header's $head"
# the card strip names what PyTorch's message says: allocated, not "activations"
grep -q 'class="lbl lbd">allocated by PyTorch 79.1 GiB</text>' "$DIR/r.html" \
	|| fail "the card strip does not say allocated by PyTorch"
grep -q 'class="lbl lbd">weights 15.0 GiB</text>' "$DIR/r.html" || fail "the ledger bar lost its weights"
exit 0

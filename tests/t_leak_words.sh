#!/bin/sh
# t_leak_words.sh -- a leak's title in words, in every format (issue 26's
# review): the fixture leak_gpu_vllm's verdict says "GPU 0's memory in
# use grew", never the metric name "gpu.used_bytes gpu0 grows", in the
# text, Markdown, HTML (its apostrophe escaped) and JSON reports. Args:
# oomlens binary, source dir.
set -u
OOMLENS=$1
SRC=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
for fmt in text md html json; do
	"$OOMLENS" analyze -q --db "$tmp/i.db" --format "$fmt" -o "$tmp/r.$fmt" \
		"$SRC/fixtures/leak_gpu_vllm" 2>"$tmp/err" || { echo "$fmt: analyze failed"; cat "$tmp/err"; fail=1; continue; }
	rm -f "$tmp/i.db"
	if ! grep -q "GPU 0\('\|&#39;\)s memory in use grew" "$tmp/r.$fmt"; then
		echo "$fmt: no \"GPU 0's memory in use grew\""
		fail=1
	fi
	if grep -q 'gpu\.used_bytes gpu0 grow' "$tmp/r.$fmt"; then
		echo "$fmt: the metric name is still the title"
		fail=1
	fi
done
[ "$fail" -eq 0 ] && echo "4 formats: the leak's title in words"
exit "$fail"

#!/bin/sh
# fuzz/run.sh BUILD_DIR SECONDS [NAME...] -- run each libFuzzer harness
# (BUILD_DIR/fuzz_NAME) for SECONDS on a scratch copy of its seed corpus
# fuzz/corpus/NAME. Findings land in fuzz/artifacts/. Exits non-zero on a
# finding.
set -e
bdir=${1:-build-fuzz}
secs=${2:-60}
shift 2 || true
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$here/artifacts"
# leaks inside system libraries (see lsan.supp) are not findings
export LSAN_OPTIONS="suppressions=$here/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
names="$*"
[ -n "$names" ] || names=$(cd "$bdir" && ls fuzz_* 2>/dev/null | sed 's/^fuzz_//')
for n in $names; do
	work=$(mktemp -d)
	[ -d "$here/corpus/$n" ] && cp -r "$here/corpus/$n/." "$work/"
	echo "== fuzz_$n for ${secs}s"
	"$bdir/fuzz_$n" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-artifact_prefix="$here/artifacts/$n-" -print_final_stats=1 "$work" 2>&1 |
		grep -E '^(#[0-9]+.*DONE|stat::number_of_executed_units|stat::peak_rss|==[0-9]+==ERROR|SUMMARY)' || true
	rm -rf "$work"
	if ls "$here/artifacts/$n-"* >/dev/null 2>&1; then
		echo "fuzz_$n: findings in fuzz/artifacts/" >&2
		exit 1
	fi
done

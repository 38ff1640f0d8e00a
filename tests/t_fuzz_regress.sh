#!/bin/sh
# t_fuzz_regress.sh OOMLENS SRCDIR -- every fuzz finding kept as a seed
# named regress-* (fuzz/corpus/NAME/) is read by `oomlens ingest` without a
# crash: exit 0 or 1. In the ASan/UBSan build (make test-asan) this is
# where a finding that comes back stops the suite.
set -u
bin=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
for f in "$src"/fuzz/corpus/*/regress-*; do
	[ -f "$f" ] || continue
	rm -f "$tmp/t.db"
	"$bin" ingest -q --db "$tmp/t.db" "$f" >/dev/null 2>"$tmp/err"
	rc=$?
	if [ $rc -le 1 ]; then pass=$((pass + 1)); else
		echo "FAIL: $f: exit $rc"; tail -5 "$tmp/err"; fail=$((fail + 1)); fi
done
echo "$pass passed, $fail failed"
[ $pass -gt 0 ] && [ $fail -eq 0 ]

#!/bin/sh
# t_classify.sh -- `oomlens classify` re-runs the rules on an ingested
# database and prints the verdict (args: oomlens binary, source dir).
set -eu
OOMLENS=$1
SRC=$2
DB=${TMPDIR:-/tmp}/t_classify.$$.db
trap 'rm -f "$DB"' EXIT
"$OOMLENS" ingest -q --db "$DB" "$SRC/fixtures/demo/kern.log" >/dev/null 2>&1
out=$("$OOMLENS" classify "$DB")
# a global OOM, no swap, the victim holding 80% of RAM: the host was too
# small for it, most likely (not proven: no history)
echo "$out" | grep -q '^verdict: misconfig (host_capacity), confidence 0\.[0-6][0-9]$' || { echo "got: $out"; exit 1; }
echo "$out" | grep -q 'missing: memory in use over time' || { echo "got: $out"; exit 1; }
"$OOMLENS" classify --json "$DB" | grep -q '"class": "misconfig"' || exit 1
"$OOMLENS" classify "$DB.missing" 2>/dev/null && exit 1
"$OOMLENS" classify >/dev/null 2>&1 && exit 1
rc=0
"$OOMLENS" replay >/dev/null 2>&1 || rc=$?
[ "$rc" -eq 2 ] || { echo "replay with no case: exit $rc, expected 2"; exit 1; }
exit 0

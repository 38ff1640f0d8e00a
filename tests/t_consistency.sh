#!/bin/sh
# t_consistency.sh -- one incident, one set of facts in every format
# (issue 25): for every fixture and every real corpus file, the verdict,
# the OOM moment, the victim and each account's peak read the same in the
# JSON, text, Markdown and HTML reports of one database, a no_oom report is
# a memory profile that never says "before the OOM", and every healthy
# input gives no_oom (tests/consistency.py). Zero failures, or the test
# fails. Args: oomlens binary, source dir. Skipped (77) without python3.
set -u
OOMLENS=$1
SRC=$2
command -v python3 >/dev/null 2>&1 || { echo "python3 not found: skipped"; exit 77; }
out=$(cd "$SRC" && python3 tests/consistency.py "$OOMLENS" . 2>&1)
rc=$?
echo "$out" | tail -40
[ "$rc" -eq 0 ] || exit 1
echo "$out" | tail -1 | grep -q '^[0-9][0-9]* passed, 0 failed$' || exit 1

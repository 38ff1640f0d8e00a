#!/bin/sh
# t_review.sh -- the review set (issue 26): for at least 20 real cases,
# the first screen of the text report states what a careful engineer
# would answer (tests/data/review/cases.tsv, checked by tests/review.py);
# a gzip cut in half is named as damaged on the first screen. Zero
# failures, or the test fails. Args: oomlens binary, source dir. Skipped
# (77) without python3.
set -u
OOMLENS=$1
SRC=$2
command -v python3 >/dev/null 2>&1 || { echo "python3 not found: skipped"; exit 77; }
out=$(cd "$SRC" && python3 tests/review.py "$OOMLENS" . 2>&1)
rc=$?
echo "$out" | tail -40
[ "$rc" -eq 0 ] || exit 1
echo "$out" | tail -1 | grep -q '^[0-9][0-9]* passed, 0 failed' || exit 1

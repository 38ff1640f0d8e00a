#!/bin/sh
# t_real_corpus.sh -- every real serving-engine excerpt of tests/data/real
# is read, and gives every figure its manifest row asserts
# (tests/real_corpus.py; the keys it does not assert are listed in
# tests/data/real/serving/README.md). Zero failures, or the test fails.
# Args: oomlens binary, source dir. Skipped (77) without python3.
set -u
OOMLENS=$1
SRC=$2
command -v python3 >/dev/null 2>&1 || { echo "python3 not found: skipped"; exit 77; }
out=$(python3 "$SRC/tests/real_corpus.py" "$OOMLENS" "$SRC" --by-engine 2>&1)
rc=$?
echo "$out" | tail -40
[ "$rc" -eq 0 ] || exit 1
echo "$out" | tail -1 | grep -q '^[0-9][0-9]* passed, 0 failed$' || exit 1

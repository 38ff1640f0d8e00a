#!/bin/sh
# t_servwhatif.sh -- the serving what-if and the advice give one value per
# knob (issue 28 item 4): on the fixtures with engine accounting and load
# the serving_whatif table exists, reproduces the OOM at the recorded
# settings, and its chosen value is the one every finding advises
# (tests/servwhatif.py). Args: oomlens binary, source dir. Skipped (77)
# without python3.
set -u
OOMLENS=$1
SRC=$2
command -v python3 >/dev/null 2>&1 || { echo "python3 not found: skipped"; exit 77; }
out=$(cd "$SRC" && python3 tests/servwhatif.py "$OOMLENS" . 2>&1)
rc=$?
echo "$out" | tail -40
[ "$rc" -eq 0 ] || exit 1
echo "$out" | tail -1 | grep -q '^[0-9][0-9]* passed, 0 failed$' || exit 1

#!/bin/sh
# t_real_snapshots.sh -- the real PyTorch snapshots (not in git: see
# tests/data/real/snapshots/README.md) against the independent oracle
# (tests/real_snapshots.py): holders, peaks, the OOM, and the verdict,
# no_oom exactly when the pickle records no OOM (issue 25). The folder is
# $OOMLENS_REAL_SNAPSHOTS, else <src>/../shared/data/torch-snapshots; exit
# 77 (skipped) when it is absent (args: oomlens binary, source dir).
set -u
OOMLENS=$1
SRC=$2
command -v python3 >/dev/null 2>&1 || { echo "python3 not found: skipped"; exit 77; }
DIR=${OOMLENS_REAL_SNAPSHOTS:-$SRC/../shared/data/torch-snapshots}
[ -d "$DIR" ] || { echo "no snapshots at $DIR: skipped"; exit 77; }
out=$(python3 "$SRC/tests/real_snapshots.py" "$OOMLENS" "$DIR") || { echo "$out"; exit 1; }
echo "$out" | tail -1
# every pickle the manifest lists and the folder holds was read
echo "$out" | tail -1 | grep -q '^[1-9][0-9]* passed, 0 failed' || { echo "$out"; exit 1; }

#!/bin/sh
# t_advice_review.sh -- the answer never contradicts its own figures
# (issue 27 round 15, w-advice16): for every folder of the tuning set and
# the calibration set, the first screen says no GPU memory ran out where
# the failure's scope is not a GPU's, names a ggml context pool or a
# DyNet pool as the pool it is, tells a ggml program other than
# llama.cpp/Ollama none of their flags, and names each knob once
# (tests/advice_review.py). Zero failures, or the test fails. Args:
# oomlens binary, source dir. Skipped (77) without python3.
set -u
# a content check: it runs once, in the plain build (CMakeLists.txt sets
# OOMLENS_SANITIZED in the sanitized one, whose memory checks of the same
# code over the same files are t_real_corpus's and t_consistency's)
[ -z "${OOMLENS_SANITIZED:-}" ] || { echo "content check: run in the plain build, skipped here"; exit 77; }
OOMLENS=$1
SRC=$2
command -v python3 >/dev/null 2>&1 || { echo "python3 not found: skipped"; exit 77; }
out=$(cd "$SRC" && python3 tests/advice_review.py "$OOMLENS" . 2>&1)
rc=$?
echo "$out" | tail -40
[ "$rc" -eq 0 ] || exit 1
echo "$out" | tail -1 | grep -q '^[0-9][0-9]* passed, 0 failed$' || exit 1

#!/bin/sh
# t_engine_stacks.sh -- no real excerpt of tests/data/real/{any_stack,
# serving,healthy} gives an engine row of a stack its manifest does not
# name (tests/engine_stacks.py; issue 27: an Ollama log once gave a
# TensorRT-LLM instance from llama.cpp's "error loading model: ").
# Args: oomlens binary, source dir. Skipped (77) without python3.
set -u
# a content check: it runs once, in the plain build (CMakeLists.txt sets
# OOMLENS_SANITIZED in the sanitized one, whose memory checks of the same
# code over the same files are t_real_corpus's and t_consistency's)
[ -z "${OOMLENS_SANITIZED:-}" ] || { echo "content check: run in the plain build, skipped here"; exit 77; }
OOMLENS=$1
SRC=$2
command -v python3 >/dev/null 2>&1 || { echo "python3 not found: skipped"; exit 77; }
out=$(python3 "$SRC/tests/engine_stacks.py" "$OOMLENS" "$SRC" 2>&1)
rc=$?
echo "$out" | tail -40
[ "$rc" -eq 0 ] || exit 1
echo "$out" | tail -1 | grep -q '^[0-9][0-9]* passed, 0 failed$' || exit 1

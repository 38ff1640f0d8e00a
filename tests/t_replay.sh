#!/bin/sh
# t_replay.sh -- the incident fixtures give their expected verdicts:
# `oomlens replay` over every fixtures/<case>/ (args: oomlens binary, source dir).
# Needs every parser the fixtures use (kernel log, smaps/cgroup, nvidia-smi,
# vLLM log, snapshot pickle) merged; until then the cases that need a missing
# parser fail.
set -u
OOMLENS=$1
SRC=$2
"$OOMLENS" replay "$SRC"/fixtures/*/

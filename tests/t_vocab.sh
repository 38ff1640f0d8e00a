#!/bin/sh
# t_vocab.sh -- one vocabulary (issue 25): no event kind, series name,
# meta key, class or cause named in the C sources of analyzer/, reports/,
# parsers/ or cli/ (in SQL text or a C literal) that lib/vocab.h does not
# declare (tests/vocab_scan.py says what it reads). docs/schema.md against
# the declaration is tests/test_vocab.c.
# Args: oomlens binary (unused), source dir. Skipped (77) without python3.
set -u
SRC=$2
command -v python3 >/dev/null 2>&1 || { echo "python3 not found: skipped"; exit 77; }
python3 "$SRC/tests/vocab_scan.py" "$SRC"

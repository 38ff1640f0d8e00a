#!/bin/sh
# t_archives.sh OOMLENS SRCDIR -- evidence that arrives packed: tar (gz,
# xz, bz2), zip and nested archives read like the folder they hold, a zip
# bomb refused, member names kept as data, a cut archive reported, an
# --append of the same archive idempotent (tests/archive_cases.py).
command -v python3 >/dev/null || exit 77
exec python3 "$2/tests/archive_cases.py" "$1" "$2"

#!/bin/sh
# t_variants.sh -- the incidents the rules were not tuned on
# (fixtures/check_variants.py: another card size, other rates, hosts
# without a limit, a kill of another process) keep their verdicts on the
# timelines the parsers should produce, and through the parsers for those
# that write every artifact (args: oomlens binary, source dir).
set -u
OOMLENS=$1
SRC=$2
command -v python3 >/dev/null 2>&1 || { echo "python3 not found: skipped"; exit 0; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/t_variants.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
OOMLENS=$OOMLENS python3 "$SRC/fixtures/check_variants.py" "$TMP" >/dev/null || exit 1
n=$(ls -d "$TMP"/out/*/ | wc -l)
[ "$n" -ge 5 ] || { echo "only $n variants written"; exit 1; }
out=$("$OOMLENS" replay --oracle "$TMP/db" "$TMP"/out/*/) || { echo "$out"; exit 1; }
echo "$out" | tail -1 | grep -q "^$n passed, 0 failed\$" || { echo "$out"; exit 1; }
# the variants that write every artifact: the parsers and the rules together
full="l4_leak l4_spike h100_slow_leak host_leak_memcg host_spike_memcg host_limit_tight
host_startup_limit a100_startup"
set --
for v in $full; do set -- "$@" "$TMP/out/$v"; done
out=$("$OOMLENS" replay "$@") || { echo "$out"; exit 1; }
echo "$out" | tail -1 | grep -q "^$# passed, 0 failed\$" || { echo "$out"; exit 1; }

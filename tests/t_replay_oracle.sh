#!/bin/sh
# t_replay_oracle.sh -- the rules give every fixture its expected verdict on
# the timelines the parsers should produce (fixtures/gen_fixtures.py
# --oracle, docs/fixtures.md), and replay reports a mismatch as it should:
# a FAIL line, the closing count, exit 3 (args: oomlens binary, source dir).
set -u
OOMLENS=$1
SRC=$2
command -v python3 >/dev/null 2>&1 || { echo "python3 not found: skipped"; exit 0; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/t_replay_oracle.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
OOMLENS=$OOMLENS python3 "$SRC/fixtures/gen_fixtures.py" --oracle "$TMP/db" "$TMP/cases" >/dev/null || exit 1
out=$("$OOMLENS" replay --oracle "$TMP/db" "$TMP"/cases/*/) || { echo "$out"; exit 1; }
n=$(ls -d "$TMP"/cases/*/ | wc -l)
[ "$n" -ge 21 ] || { echo "only $n cases generated"; exit 1; }
echo "$out" | tail -1 | grep -q "^$n passed, 0 failed\$" || { echo "$out"; exit 1; }
# a wrong expectation must fail, name itself and exit 3
sed 's/"class": "leak"/"class": "spike"/' "$TMP/cases/leak_host_smaps/expected.json" > "$TMP/e.json"
mv "$TMP/e.json" "$TMP/cases/leak_host_smaps/expected.json"
rc=0
out=$("$OOMLENS" replay --oracle "$TMP/db" "$TMP/cases/leak_host_smaps" "$TMP/cases/spike_host_smaps") || rc=$?
[ "$rc" -eq 3 ] || { echo "exit $rc, expected 3"; exit 1; }
echo "$out" | grep -q '^FAIL leak_host_smaps: expected class spike, got leak (growth)' || { echo "$out"; exit 1; }
echo "$out" | grep -q '^PASS spike_host_smaps$' || { echo "$out"; exit 1; }
echo "$out" | tail -1 | grep -q '^1 passed, 1 failed$' || { echo "$out"; exit 1; }
# so must a confidence above what the artifacts can prove
sed 's/"max_confidence": 0.69/"max_confidence": 0.2/' "$TMP/cases/capacity_host_lone/expected.json" > "$TMP/e.json"
mv "$TMP/e.json" "$TMP/cases/capacity_host_lone/expected.json"
rc=0
out=$("$OOMLENS" replay --oracle "$TMP/db" "$TMP/cases/capacity_host_lone") || rc=$?
[ "$rc" -eq 3 ] || { echo "exit $rc, expected 3"; exit 1; }
echo "$out" | grep -q '^FAIL capacity_host_lone: expected confidence <= 0.20, got 0\.' || { echo "$out"; exit 1; }
exit 0

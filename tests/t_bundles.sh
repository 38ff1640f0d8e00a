#!/bin/sh
# t_bundles.sh OOMLENS SRCDIR -- support bundles (issue 29) on real data:
#  1. a real nvidia-bug-report.log excerpt (tests/data/real/bundles) is read
#     as nvidia_bug_report: its card's FB total, used and free and its
#     process come out as GPU facts, its Xid lines stay events;
#  2. the same file as two gzip members joined (.log.gz as the script
#     writes it in pieces) gives the same facts;
#  3. a real nvidia-smi --query-accounted-apps CSV (A100) gives the exited
#     process's GPU peak (4989 MiB) and run time as meta, and nothing else;
#  4. every full report in $OOMLENS_NVBUG_DIR (default
#     /work/shared/data/nvidia-bug-reports, skipped when absent) gives each
#     of its cards a total, a used and a free figure.
# Exit 0 when all hold, 1 naming each that does not.
OOMLENS=$1; SRC=$2
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
fail=0
X="$SRC/tests/data/real/bundles/nvidia-bug-report-duaneya-excerpt.log"
# sample is a packed table: the shell reads it with the module built beside oomlens
q() { sqlite3 -cmd ".load $(dirname "$OOMLENS")/oomlens_packed" "$1" "$2"; }
check() { # uses $DB and $LABEL
	k=$(q "$DB" "SELECT kind FROM artifact LIMIT 1")
	[ "$k" = nvidia_bug_report ] || { echo "FAIL $LABEL: kind $k"; fail=1; }
	for pair in "gpu.total_bytes 11554258944" "gpu.used_bytes 9690939392" "gpu.free_bytes 1863319552"; do
		set -- $pair
		v=$(q "$DB" "SELECT CAST(sa.value AS INTEGER) FROM sample sa JOIN series s ON s.id = sa.series_id WHERE s.name = '$1' AND s.entity = 'gpu0'")
		[ "$v" = "$2" ] || { echo "FAIL $LABEL: $1 gpu0 = '$v', want $2"; fail=1; }
	done
	v=$(q "$DB" "SELECT CAST(sa.value AS INTEGER) FROM sample sa JOIN series s ON s.id = sa.series_id WHERE s.name = 'gpu.proc_used_bytes' AND s.entity = 'gpu0/pid:5578'")
	[ "$v" = 9677307904 ] || { echo "FAIL $LABEL: python pid 5578 on gpu0 = '$v'"; fail=1; }
	v=$(q "$DB" "SELECT count(*) FROM event WHERE kind = 'gpu_xid'")
	[ "$v" = 3 ] || { echo "FAIL $LABEL: $v Xid events, want 3"; fail=1; }
}
DB=$T/a.db; LABEL=plain
"$OOMLENS" ingest -q --db "$DB" "$X" || { echo "FAIL ingest $X"; exit 1; }
check
head -n 100 "$X" | gzip -c > "$T/nvidia-bug-report.log.gz"
tail -n +101 "$X" | gzip -c >> "$T/nvidia-bug-report.log.gz"
DB=$T/b.db; LABEL=two-gzip-members
"$OOMLENS" ingest -q --db "$DB" "$T/nvidia-bug-report.log.gz" || { echo "FAIL ingest .gz"; exit 1; }
check
A="$SRC/tests/data/real/bundles/nvidia-smi-accounted-apps-a100.csv"
DB=$T/acc.db
"$OOMLENS" ingest -q --db "$DB" "$A" || { echo "FAIL ingest $A"; exit 1; }
k=$(q "$DB" "SELECT kind FROM artifact")
[ "$k" = nvidia_smi_accounted ] || { echo "FAIL accounted: kind '$k'"; fail=1; }
v=$(q "$DB" "SELECT value FROM meta WHERE key = 'gpu.proc_peak_bytes.NVIDIA A100-PCIE-40GB/pid:1906656'")
[ "$v" = 5231345664 ] || { echo "FAIL accounted: peak of pid 1906656 = '$v', want 5231345664"; fail=1; }
v=$(q "$DB" "SELECT value FROM meta WHERE key = 'gpu.proc_runtime_ms.NVIDIA A100-PCIE-40GB/pid:1906656'")
[ "$v" = 14193 ] || { echo "FAIL accounted: run time '$v', want 14193"; fail=1; }
v=$(q "$DB" "SELECT count(*) FROM meta WHERE key LIKE 'gpu.proc_%'")
[ "$v" = 2 ] || { echo "FAIL accounted: $v gpu.proc_ meta rows, want 2"; fail=1; }
DIR=${OOMLENS_NVBUG_DIR:-/work/shared/data/nvidia-bug-reports}
if [ -d "$DIR" ]; then
	for f in "$DIR"/*; do
		[ -f "$f" ] || continue
		rm -f "$T/c.db"
		"$OOMLENS" ingest -q --db "$T/c.db" "$f" || { echo "FAIL ingest $f"; fail=1; continue; }
		cards=$(q "$T/c.db" "SELECT count(*) FROM meta WHERE key LIKE 'gpu.pci_bus_id.%'")
		full=$(q "$T/c.db" "SELECT count(DISTINCT s.entity) FROM series s WHERE s.name IN ('gpu.total_bytes','gpu.used_bytes','gpu.free_bytes') GROUP BY s.entity HAVING count(*) = 3" | wc -l)
		[ "$cards" -gt 0 ] && [ "$full" -ge "$cards" ] || { echo "FAIL $f: $cards cards, $full with total/used/free"; fail=1; }
	done
fi
[ $fail = 0 ] && echo "t_bundles: ok"
exit $fail

#!/bin/sh
# t_mustgather.sh OOMLENS SRCDIR -- a GPU operator must-gather tree (issue
# 29) read as a folder, a .tar.gz and a .zip gives the same verdict and the
# same events; inside an archive each artifact's provenance is its path in
# the tree with the archive as container; the tree's own files are told
# (mustgather_version, mustgather_log: the failed nvidia-bug-report is an
# evidence-absent note). Exit 0 when all hold, 1 naming each that does not.
OOMLENS=$1; SRC=$2
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
fail=0
F="$SRC/fixtures/real_mustgather_gpu_operator"
q() { sqlite3 "$1" "$2"; }
facts() { # the verdict and the events of a database, one line each
	q "$1" "SELECT class, cause FROM verdict"
	q "$1" "SELECT kind, time_ns, summary FROM event ORDER BY time_ns, kind, summary"
	q "$1" "SELECT key, value FROM meta WHERE key LIKE 'bundle.%' OR key LIKE 'mustgather.%' OR key LIKE 'cgroup.%' ORDER BY key"
}
"$OOMLENS" analyze -q --db "$T/dir.db" -o "$T/dir.json" --format json "$F/must-gather" ||
	{ echo "FAIL analyze the folder"; exit 1; }
facts "$T/dir.db" > "$T/dir.facts"
grep -q '^misconfig|cgroup_limit$' "$T/dir.facts" || { echo "FAIL folder: verdict $(head -1 "$T/dir.facts")"; fail=1; }
grep -q '^k8s_oom_kill|' "$T/dir.facts" || { echo "FAIL folder: no k8s_oom_kill event"; fail=1; }
grep -q '^bundle.evidence_absent.nvidia-bug-report/gpu-node-1|' "$T/dir.facts" ||
	{ echo "FAIL folder: the failed nvidia-bug-report is not an evidence-absent note"; fail=1; }
grep -q '^bundle.kind|gpu-operator must-gather$' "$T/dir.facts" || { echo "FAIL folder: bundle.kind"; fail=1; }
(cd "$F" && tar czf "$T/mg.tar.gz" must-gather)
python3 -c "
import os, sys, zipfile
root, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(out, 'w', zipfile.ZIP_DEFLATED) as z:
    for d, _, fs in os.walk(os.path.join(root, 'must-gather')):
        for f in sorted(fs):
            p = os.path.join(d, f)
            z.write(p, os.path.relpath(p, root))
" "$F" "$T/mg.zip"
for a in mg.tar.gz mg.zip; do
	"$OOMLENS" analyze -q --db "$T/$a.db" -o "$T/$a.json" --format json "$T/$a" ||
		{ echo "FAIL analyze $a"; fail=1; continue; }
	facts "$T/$a.db" > "$T/$a.facts"
	cmp -s "$T/dir.facts" "$T/$a.facts" || { echo "FAIL $a: verdict or events differ from the folder's:"; diff "$T/dir.facts" "$T/$a.facts"; fail=1; }
	c=$(q "$T/$a.db" "SELECT container FROM artifact WHERE path = 'must-gather/gpu_operand_pod_nvidia-dcgm-exporter-6r6pk.descr' AND kind = 'k8s'")
	case "$c" in *"$a") ;; *) echo "FAIL $a: the describe's provenance: container '$c'"; fail=1 ;; esac
done
[ $fail = 0 ] && echo "t_mustgather: ok"
exit $fail

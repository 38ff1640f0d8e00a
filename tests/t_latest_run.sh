#!/bin/sh
# t_latest_run.sh -- a folder holding several runs of a service is judged
# by its latest run (issue 27, round 11, analyzer/derive/oom_run.c). The
# real incident folder tests/data/real/any_stack/vllm-0.8.3-gemma3-... (the
# user's first run fails sizing the KV cache, the retry with a smaller
# max_model_len fails capturing CUDA graphs) is analyzed:
#   1. as pasted (vLLM's timed lines): the OOM, the verdict's phase, is the
#      latest run's graph_capture, runs ordered by the clock, and the answer
#      names the earlier run's failure;
#   2. with the times cut from the same lines and the files numbered in the
#      thread's order: the same verdict, the order said inferred from the
#      files' order;
#   3. the same untimed files numbered the other way round: the latest run
#      is then the KV-cache one (the order is the files').
# The verdict's cause is the latest run's too (round 12, engine_facts.h
# RL_EARLIER_RUN): the engine's figures and launch knobs of an earlier
# run are not read, so the capture OOM is not blamed on run 1's
# max_model_len 4096, and the KV-cache run keeps its max_model_len.
# Args: oomlens binary, source dir.
set -u
OOMLENS=$1
SRC=$2
G="$SRC/tests/data/real/any_stack/vllm-0.8.3-gemma3-27b-awq-24g-kv-too-small-then-capture-oom"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
command -v python3 >/dev/null 2>&1 || exit 77
fail=0

# $1 folder, $2 the verdict's phase, $3 run_by, $4 the answer's words, $5 its cause
check() {
	rm -f "$tmp/i.db"
	"$OOMLENS" analyze -q --db "$tmp/i.db" --json -o "$tmp/r.json" "$1" 2>"$tmp/err" ||
		{ echo "$1: analyze failed"; cat "$tmp/err"; fail=1; return; }
	python3 - "$tmp/r.json" "$2" "$3" "$4" "$5" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
ooms = (d.get("summary") or {}).get("ooms") or []
phase = (d.get("verdict") or {}).get("phase")
cause = (d.get("verdict") or {}).get("cause")
what = (d.get("answer") or {}).get("what") or ""
ok = phase == sys.argv[2] and ooms and ooms[0].get("run") == 2 and \
    ooms[0].get("run_by") == sys.argv[3] and sys.argv[4] in what and cause == sys.argv[5]
if not ok:
    print("want phase %s, run 2 by %s, %r in the answer, cause %s; got phase %s, cause %s,"
          " ooms %s, answer %r" % (sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], phase, cause,
        [(o.get("phase"), o.get("run"), o.get("run_by")) for o in ooms], what))
    sys.exit(1)
PY
}

check "$G" graph_capture clock "An earlier run (run 1) failed in profile: the serving engine's out-of-memory error" graphs_do_not_fit
mkdir "$tmp/a" "$tmp/b"
untimed() { sed -E 's/^(INFO|ERROR|WARNING) [0-9-]+ [0-9:]+ /\1 /' "$1"; }
untimed "$G/02-error1.log" >"$tmp/a/01-first.log"
untimed "$G/04-error2.log" >"$tmp/a/02-retry.log"
check "$tmp/a" graph_capture file_order "order inferred from the files' order" graphs_do_not_fit
untimed "$G/04-error2.log" >"$tmp/b/01-first.log"
untimed "$G/02-error1.log" >"$tmp/b/02-retry.log"
check "$tmp/b" profile file_order "failed in graph_capture" max_model_len
[ "$fail" -eq 0 ] && echo "3 folders: the latest run's failure is the OOM"
exit "$fail"

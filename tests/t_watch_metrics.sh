#!/bin/sh
# t_watch_metrics.sh OOMLENS SRCDIR -- `oomlens watch --metrics URL`: the
# serving engine's load beside the memory series. A local HTTP server
# (tests/metrics_server.py) serves real /metrics text captured from vLLM,
# SGLang, TGI(S) and Triton (tests/data/real/tools/MANIFEST.tsv), and
# endpoints that hang, send too much, redirect, or refuse the connection:
#  1. the watcher keeps the load gauges of each engine (and drops the
#     latency histograms), stops on time whatever the bad endpoints do,
#     says why each bad one failed, and backs off from them;
#  2. `oomlens analyze` of its folder has the load series the rules read
#     (server.running, server.waiting, server.gpu_kv_usage) per engine,
#     with one point per scrape, in the JSON report;
#  3. URLs it cannot take (https, another scheme, user information, a bad
#     port) are refused at the command line (exit 2) with the reason;
#  4. a refused port alone is not an error: the watcher runs and stops;
#  5. --print-arm names each engine's default metrics endpoint, and gives
#     Ollama and llama.cpp (ggml, no PyTorch) their log settings, no hook;
#  6. "What would settle it" names the exact `oomlens watch --metrics`
#     line for the engine the incident shows, said to be its default
#     port, in every format.
set -u
bin=$1
src=${2:-$(cd "$(dirname "$0")/.." && pwd)}
command -v python3 > /dev/null || { echo "SKIP: python3 is missing"; exit 77; }
. "$src/tests/testlib.sh"
srv=
cleanup() { [ -n "$srv" ] && kill "$srv" 2> /dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

python3 "$src/tests/metrics_server.py" "$src/tests/data/real/tools" "$tmp/port" & srv=$!
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
	[ -s "$tmp/port" ] && break
	sleep 0.2
done
[ -s "$tmp/port" ] || { echo "SKIP: the local metrics server did not start"; exit 77; }
port=$(cat "$tmp/port")
u=http://127.0.0.1:$port
# a port nothing listens on: bind one, close it
dead=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

# 1. four engines and four bad endpoints for 4 s at 0.5 s
start=$(date +%s)
"$bin" watch --metrics "$u/vllm" --metrics "$u/sglang" --metrics "$u/tgi" --metrics "$u/triton" \
	--metrics "$u/hang" --metrics "$u/big" --metrics "$u/redirect" \
	--metrics "http://127.0.0.1:$dead/metrics" \
	--out "$tmp/w" --interval 0.5 --for 4 --kmsg "$tmp/no-kmsg" 2> "$tmp/w.err"
check "watch with bad endpoints" 0 $?
took=$(($(date +%s) - start))
# the hanging endpoint costs its 2 s deadline, then backs off: the run
# ends within its 4 s plus one deadline and some slack
if [ $took -le 9 ]; then ok; else no "watch took $took s for --for 4 (the hang was not bounded)"; fi
has "hang said" "$tmp/w.err" "$u/hang: no whole reply within 2000 ms"
has "big said" "$tmp/w.err" "$u/big: the reply passed 4 MiB; not kept"
has "redirect said" "$tmp/w.err" "$u/redirect: status 302: redirects are not followed (Location: /vllm)"
has "refused said" "$tmp/w.err" "127.0.0.1:$dead/metrics: connect: Connection refused"
m=$tmp/w/metrics.prom
has "vllm kept" "$m" '^vllm:num_requests_running{model_name="Qwen/Qwen2.5-Coder-32B-Instruct"} 0.0$'
has "vllm kv kept" "$m" '^vllm:gpu_cache_usage_perc{'
has "sglang kept (chunked)" "$m" '^sglang:num_running_reqs{'
has "sglang token usage kept" "$m" '^sglang:token_usage{'
has "tgi queue kept" "$m" '^tgi_queue_size 0.0$'
has "tgi batch kept" "$m" '^tgi_batch_current_size 0.0$'
has "triton count kept" "$m" '^nv_inference_count{model="resnet_50",version="1"} 2$'
has "help kept" "$m" '^# HELP tgi_batch_current_size Current batch size$'
hasnt "histograms dropped" "$m" '_bucket{'
hasnt "other families dropped" "$m" 'nv_inference_exec_count'
hasnt "process families dropped" "$m" 'process_cpu_seconds_total'
hasnt "nothing of the big reply" "$m" 'model_name="m"'
has "separator" "$m" "^### 20[0-9-]*T[0-9:.]*Z src=metrics url=$u/vllm .*mono="
# the server saw the vllm endpoint scraped every interval, at most once a
# second (4 s: 4 or 5 scrapes), and the hanging one at most twice (back-off)
curl_counts=$(python3 -c 'import sys,urllib.request; print(urllib.request.urlopen(sys.argv[1]).read().decode())' "$u/counts")
python3 - "$curl_counts" <<'PY' && ok || no "scrape counts: $curl_counts"
import json, sys
c = json.loads(sys.argv[1])
assert 3 <= c.get("/vllm", 0) <= 5, c   # 4 or 5; 3 on a loaded machine
assert 1 <= c.get("/hang", 0) <= 2, c
PY

# 2. analyze the folder: the load series in the JSON, one point per scrape
"$bin" analyze -q "$tmp/w" --json -o "$tmp/w.json" --db "$tmp/w.db" 2> "$tmp/a.err"
check "analyze the watch folder" 0 $?
python3 - "$tmp/w.json" "$m" <<'PY' && ok || no "load series in the JSON report"
import json, sys
r = json.load(open(sys.argv[1]))
scrapes = sum(1 for l in open(sys.argv[2]) if l.startswith("### ") and "/vllm " in l)
series = {(s["name"], s["entity"].split(" ")[0]): s for s in r["series"]}
for want in [("server.running", "vllm"), ("server.waiting", "vllm"), ("server.gpu_kv_usage", "vllm"),
             ("server.running", "sglang"), ("server.gpu_kv_usage", "sglang"),
             ("server.running", "tgi"), ("server.waiting", "tgi")]:
    s = series.get(want)
    assert s, "no %s of %s in %s" % (want[0], want[1], sorted(series))
    assert s["points"] == scrapes or want[1] != "vllm", (want, s["points"], scrapes)
    assert s["first_time"], (want, "no time")
bad = [a for a in r["artifacts"] if a["status"] not in ("ok", "no_records") or a["errors"]]
assert not bad, bad
assert any(a["path"].endswith("metrics.prom") and a["kind"] == "prometheus_text"
           for a in r["artifacts"]), r["artifacts"]
PY

# the watcher's separator alone makes it a scrape: without the # HELP and
# # TYPE lines an exporter may leave out, it still reads
mkdir "$tmp/bare" && grep -v '^# ' "$m" > "$tmp/bare/metrics.prom"
"$bin" analyze -q "$tmp/bare" --json -o "$tmp/bare.json" --db "$tmp/bare.db" 2> /dev/null
python3 - "$tmp/bare.json" <<'PY' && ok || no "a metrics.prom without HELP/TYPE lines is not read"
import json, sys
r = json.load(open(sys.argv[1]))
assert [a["kind"] for a in r["artifacts"]] == ["prometheus_text"], r["artifacts"]
names = {(s["name"], s["entity"].split(" ")[0]) for s in r["series"]}
assert ("server.running", "tgi") in names and ("server.running", "vllm") in names, names
PY

# 3. URLs refused at the command line
for bad in "https://127.0.0.1:8000/metrics" "ftp://127.0.0.1/metrics" \
	"http://user:pw@127.0.0.1:8000/metrics" "http://127.0.0.1:99999/metrics" \
	"http://127.0.0.1:80x/metrics" "127.0.0.1:8000/metrics"; do
	"$bin" watch --metrics "$bad" --out "$tmp/r" --for 0.1 2> "$tmp/r.err"
	check "refuse $bad" 2 $?
	has "refuse $bad said" "$tmp/r.err" "--metrics: '$bad': "
done
has "https reason" "$tmp/r.err" "only http://host:port/path"
"$bin" watch --metrics "https://127.0.0.1:8000/metrics" --out "$tmp/r" 2> "$tmp/r.err"
has "tls reason" "$tmp/r.err" "no TLS"
[ -e "$tmp/r" ] && no "a refused URL made the output folder" || ok

# 4. a refused port alone: runs, says so, stops cleanly, writes no samples
"$bin" watch --metrics "http://127.0.0.1:$dead/metrics" --out "$tmp/d" --interval 0.2 --for 1 \
	--kmsg "$tmp/no-kmsg" 2> "$tmp/d.err"
check "refused port alone" 0 $?
[ -s "$tmp/d/metrics.prom" ] && no "samples written for a refused port" || ok

# 5. --print-arm
for e in vllm:8000 sglang:30000 tgi:3000 llamacpp:8080; do
	"$bin" watch --print-arm "${e%%:*}" > "$tmp/arm" 2>&1
	check "print-arm ${e%%:*}" 0 $?
	has "print-arm ${e%%:*} metrics" "$tmp/arm" "--metrics http://127.0.0.1:${e##*:}/metrics --out"
done
hasnt "print-arm llamacpp no hook" "$tmp/arm" "_record_memory_history"
"$bin" watch --print-arm tgi > "$tmp/arm" 2>&1
has "print-arm tgi hook" "$tmp/arm" "_record_memory_history"
has "print-arm tgi launcher" "$tmp/arm" "text-generation-launcher"
"$bin" watch --print-arm ollama > "$tmp/arm" 2>&1
check "print-arm ollama" 0 $?
has "print-arm ollama debug" "$tmp/arm" 'OLLAMA_DEBUG=1'
hasnt "print-arm ollama no hook" "$tmp/arm" "_record_memory_history"
hasnt "print-arm ollama no metrics" "$tmp/arm" "--metrics"
"$bin" watch --print-arm nosuch > "$tmp/arm" 2>&1
check "print-arm unknown" 2 $?

# 6. what would settle it: the engine's own endpoint, said to be its default
for c in fixtures/real_capacity_vllm_worker:8000:vLLM fixtures/real_prefill_tokens_tgi:3000:TGI \
	tests/data/real/any_stack/lmdeploy-0.8-turbomind-core-allocator-oom-concurrency.log:23333:LMDeploy; do
	f=${c%%:*}; rest=${c#*:}; p=${rest%%:*}; name=${rest#*:}
	"$bin" analyze -q "$src/$f" --json -o "$tmp/s.json" --db "$tmp/s.db" 2> /dev/null
	"$bin" analyze -q "$src/$f" --format text -o "$tmp/s.txt" --db "$tmp/s2.db" 2> /dev/null
	for out in "$tmp/s.json" "$tmp/s.txt"; do
		has "settle $f $(basename "$out")" "$out" \
			"oomlens watch --metrics http://127.0.0.1:$p/metrics --gpus --out /var/lib/oomlens/watch"
		has "settle $f default $(basename "$out")" "$out" "$name's default port and path"
	done
done

finish t_watch_metrics

/*
 * wt_arm.c -- `oomlens watch --print-arm ENGINE`: the few settings and
 * lines that make the next GPU OOM of a serving process leave the
 * evidence oomlens needs: an allocator snapshot with bounded history,
 * dumped by PyTorch's OOM observer at the moment of the failure, and GPU
 * accounting mode so the peak of a process that died survives it.
 *
 * What each engine offers of its own was read from its source: SGLang's
 * /start_profile with activities ["MEM"] records history (max_entries
 * from SGLANG_MEM_PROFILE_MAX_ENTRIES in recent releases) but dumps only
 * at /stop_profile, not at an OOM; no vLLM option records allocator
 * history. So every engine gets the same Python start-up hook, which
 * arms the allocator in each process that imports it. Not yet verified on
 * a GPU (issue 8): docs/watch.md says so. The watch line names the
 * engine's Prometheus endpoint at its default port (`--metrics`), so the
 * load at the OOM is kept beside the memory; Ollama and llama.cpp, which
 * allocate through ggml, get their own log settings instead of the hook.
 */
#include "watch/watch.h"

#include <stdio.h>
#include <string.h>

const char wt_arm_engines[] = "vllm sglang tgi pytorch ollama llamacpp";

/* The start-up hook every engine uses (a sitecustomize.py on PYTHONPATH). */
static const char arm_hook[] =
	"# 1. Save as $OOMLENS_ARM_DIR/sitecustomize.py (for example /var/lib/oomlens/arm):\n"
	"#    Python imports it at start in every process whose PYTHONPATH holds that\n"
	"#    folder, workers spawned by the engine included.\n"
	"import os, socket, time\n"
	"def _oomlens_arm():\n"
	"    out = os.environ.get(\"OOMLENS_SNAPSHOT_DIR\", \"/var/lib/oomlens/snapshots\")\n"
	"    entries = int(os.environ.get(\"OOMLENS_MAX_ENTRIES\", \"100000\"))\n"
	"    try:\n"
	"        import torch\n"
	"        # bounded history: the last `entries` alloc/free events, with stacks\n"
	"        torch.cuda.memory._record_memory_history(max_entries=entries)\n"
	"    except Exception:\n"
	"        return\n"
	"    def _on_oom(device, alloc, device_alloc, device_free):\n"
	"        os.makedirs(out, exist_ok=True)\n"
	"        name = \"snapshot_%s_%d_%d.pickle\" % (socket.gethostname(), os.getpid(),\n"
	"                                              int(time.time()))\n"
	"        torch.cuda.memory._dump_snapshot(os.path.join(out, name))\n"
	"    torch._C._cuda_attach_out_of_memory_observer(_on_oom)\n"
	"if os.environ.get(\"OOMLENS_ARM\", \"1\") != \"0\":\n"
	"    _oomlens_arm()\n";

/* Step n (after the launch): GPU accounting mode. */
static const char arm_accounting[] =
	"\n# %d. Once per node, as root: GPU accounting mode keeps each process's peak\n"
	"#    GPU memory after it exits (nvidia-smi --query-accounted-apps=...):\n"
	"nvidia-smi --accounting-mode=1\n";

struct arm_engine {
	const char *name;
	const char *launch;  /* how to start the engine with the hook */
	int hook;            /* 1: a PyTorch process: the start-up hook applies */
	const char *metrics; /* its Prometheus endpoint at the defaults, or NULL */
	const char *note;    /* where that endpoint comes from */
};

/* The metrics endpoints are each engine's defaults, from its source:
 * vLLM vllm/entrypoints/openai/cli_args.py (--port 8000, /metrics on the API
 * server); SGLang python/sglang/srt/server_args.py (--port 30000, metrics only
 * with --enable-metrics); TGI launcher/src/main.rs@v3.3.7 (--port 3000, the
 * router's /metrics route; the official image sets PORT=80); llama.cpp
 * llama-server (--port 8080, /metrics only with --metrics). Ollama
 * (envconfig/config.go@v0.33.0-rc2, 127.0.0.1:11434) has no Prometheus
 * endpoint: its server log is the evidence. */
static const struct arm_engine arm_engines[] = {
	{ "vllm",
	  "\n# 2. Start vLLM with the hook (no vLLM option records allocator history):\n"
	  "export PYTHONPATH=$OOMLENS_ARM_DIR${PYTHONPATH:+:$PYTHONPATH}\n"
	  "export OOMLENS_SNAPSHOT_DIR=/var/lib/oomlens/snapshots OOMLENS_MAX_ENTRIES=100000\n"
	  "vllm serve <model> ...\n", 1,
	  "http://127.0.0.1:8000/metrics", "vLLM's default --port 8000; its API server serves"
	  " /metrics" },
	{ "sglang",
	  "\n# 2. Start SGLang with the hook and its metrics. (SGLang's own /start_profile\n"
	  "#    with activities [\"MEM\"] records history too, max_entries from\n"
	  "#    SGLANG_MEM_PROFILE_MAX_ENTRIES, but dumps it only at /stop_profile,\n"
	  "#    not when an OOM happens.)\n"
	  "export PYTHONPATH=$OOMLENS_ARM_DIR${PYTHONPATH:+:$PYTHONPATH}\n"
	  "export OOMLENS_SNAPSHOT_DIR=/var/lib/oomlens/snapshots OOMLENS_MAX_ENTRIES=100000\n"
	  "python3 -m sglang.launch_server --model-path <model> --enable-metrics ...\n", 1,
	  "http://127.0.0.1:30000/metrics", "SGLang's default --port 30000; /metrics only with"
	  " --enable-metrics" },
	{ "tgi",
	  "\n# 2. Start TGI with the hook: the launcher passes its environment to the\n"
	  "#    Python shards (text-generation-server), where PyTorch allocates:\n"
	  "export PYTHONPATH=$OOMLENS_ARM_DIR${PYTHONPATH:+:$PYTHONPATH}\n"
	  "export OOMLENS_SNAPSHOT_DIR=/var/lib/oomlens/snapshots OOMLENS_MAX_ENTRIES=100000\n"
	  "text-generation-launcher --model-id <model> ...\n"
	  "#    (in the official image, pass them with docker run -e and mount the folders)\n", 1,
	  "http://127.0.0.1:3000/metrics", "TGI's default --port 3000 (the official image"
	  " listens on 80): its router serves /metrics" },
	{ "pytorch",
	  "\n# 2. Start the program with the hook, or call _oomlens_arm()'s lines at the\n"
	  "#    top of your own main before the first CUDA allocation:\n"
	  "export PYTHONPATH=$OOMLENS_ARM_DIR${PYTHONPATH:+:$PYTHONPATH}\n"
	  "export OOMLENS_SNAPSHOT_DIR=/var/lib/oomlens/snapshots OOMLENS_MAX_ENTRIES=100000\n"
	  "python3 train.py ...   # or torchrun ...\n", 1, NULL, NULL },
	{ "ollama",
	  "\n# 1. Ollama allocates through ggml, not PyTorch: no allocator snapshot. Its\n"
	  "#    server log says what it planned to fit (layers offloaded, weights, KV\n"
	  "#    cache, graph, the free memory of each device) with debug logging on:\n"
	  "#    systemctl edit ollama, then under [Service]:\n"
	  "Environment=\"OLLAMA_DEBUG=1\"\n"
	  "#    After an OOM, keep the log: journalctl -u ollama --since '-1h' > ollama.log\n"
	  "#    (Ollama serves no Prometheus metrics: the log's request lines are the load.)\n",
	  0, NULL, NULL },
	{ "llamacpp",
	  "\n# 1. llama.cpp allocates through ggml, not PyTorch: no allocator snapshot.\n"
	  "#    Start llama-server with its metrics endpoint and keep its log, whose\n"
	  "#    load lines give the offload, KV cache and compute buffer sizes:\n"
	  "llama-server -m <model.gguf> --metrics --verbose ... 2> llama-server.log\n",
	  0, "http://127.0.0.1:8080/metrics", "llama-server's default --port 8080; /metrics"
	  " only with --metrics" },
	{ NULL, NULL, 0, NULL, NULL }
};

int wt_print_arm(const char *engine)
{
	const struct arm_engine *e;

	for (e = arm_engines; e->name; e++)
		if (!strcmp(e->name, engine))
			break;
	if (!e->name)
		return -1;
	int step = e->hook ? 3 : 2;

	printf("# oomlens watch --print-arm %s: make the next OOM leave its evidence:\n"
	       "# %smemory over time up to it%s.\n"
	       "# Not yet verified on a GPU (issue 8).\n\n", e->name,
	       e->hook ? "an allocator snapshot (bounded history, dumped by the OOM observer),\n# " : "",
	       e->metrics ? " and the server's load beside it" : "");
	if (e->hook)
		fputs(arm_hook, stdout);
	fputs(e->launch, stdout);
	printf(arm_accounting, step);
	printf("\n# %d. Watch beside it (docs/watch.md)%s%s%s:\n"
	       "oomlens watch --cgroup /sys/fs/cgroup/<the service's cgroup> --gpus%s%s"
	       " --out /var/lib/oomlens/watch\n"
	       "# After an OOM: oomlens analyze /var/lib/oomlens/watch%s\n", step + 1,
	       e->metrics ? ".\n#    The --metrics URL is " : "", e->metrics ? e->note : "",
	       e->metrics ? ";\n#    change the port to the one it serves on" : "",
	       e->metrics ? " --metrics " : "", e->metrics ? e->metrics : "",
	       e->hook ? " /var/lib/oomlens/snapshots" : "");
	return 0;
}

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
 * a GPU (issue 8): docs/watch.md says so.
 */
#include "watch/watch.h"

#include <stdio.h>
#include <string.h>

const char wt_arm_engines[] = "vllm sglang pytorch";

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

static const char arm_accounting[] =
	"\n# 3. Once per node, as root: GPU accounting mode keeps each process's peak\n"
	"#    GPU memory after it exits (nvidia-smi --query-accounted-apps=...):\n"
	"nvidia-smi --accounting-mode=1\n"
	"\n# 4. Watch the host side beside it (docs/watch.md):\n"
	"oomlens watch --cgroup /sys/fs/cgroup/<the service's cgroup> --gpus --out /var/lib/oomlens/watch\n"
	"# After an OOM: oomlens analyze /var/lib/oomlens/watch /var/lib/oomlens/snapshots\n"
	"# (not yet verified on a GPU: issue 8)\n";

struct arm_engine {
	const char *name;
	const char *launch; /* how to start the engine with the hook */
};

static const struct arm_engine arm_engines[] = {
	{ "vllm",
	  "\n# 2. Start vLLM with the hook (no vLLM option records allocator history):\n"
	  "export PYTHONPATH=$OOMLENS_ARM_DIR${PYTHONPATH:+:$PYTHONPATH}\n"
	  "export OOMLENS_SNAPSHOT_DIR=/var/lib/oomlens/snapshots OOMLENS_MAX_ENTRIES=100000\n"
	  "vllm serve <model> ...\n" },
	{ "sglang",
	  "\n# 2. Start SGLang with the hook. (SGLang's own /start_profile with\n"
	  "#    activities [\"MEM\"] records history too, max_entries from\n"
	  "#    SGLANG_MEM_PROFILE_MAX_ENTRIES, but dumps it only at /stop_profile,\n"
	  "#    not when an OOM happens.)\n"
	  "export PYTHONPATH=$OOMLENS_ARM_DIR${PYTHONPATH:+:$PYTHONPATH}\n"
	  "export OOMLENS_SNAPSHOT_DIR=/var/lib/oomlens/snapshots OOMLENS_MAX_ENTRIES=100000\n"
	  "python3 -m sglang.launch_server --model-path <model> ...\n" },
	{ "pytorch",
	  "\n# 2. Start the program with the hook, or call _oomlens_arm()'s lines at the\n"
	  "#    top of your own main before the first CUDA allocation:\n"
	  "export PYTHONPATH=$OOMLENS_ARM_DIR${PYTHONPATH:+:$PYTHONPATH}\n"
	  "export OOMLENS_SNAPSHOT_DIR=/var/lib/oomlens/snapshots OOMLENS_MAX_ENTRIES=100000\n"
	  "python3 train.py ...   # or torchrun ...\n" },
	{ NULL, NULL }
};

int wt_print_arm(const char *engine)
{
	const struct arm_engine *e;

	for (e = arm_engines; e->name; e++)
		if (!strcmp(e->name, engine))
			break;
	if (!e->name)
		return -1;
	printf("# oomlens watch --print-arm %s: make the next GPU OOM leave an allocator\n"
	       "# snapshot (bounded history, dumped by the OOM observer) and the peak of a\n"
	       "# process that died. Not yet verified on a GPU (issue 8).\n\n", e->name);
	fputs(arm_hook, stdout);
	fputs(e->launch, stdout);
	fputs(arm_accounting, stdout);
	return 0;
}

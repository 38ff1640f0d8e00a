/*
 * formats.c -- the format table and content sniffing; see formats.h.
 */
#include "analyzer/ingest/formats.h"
#include "parsers/kernel_oom.h"
#include "parsers/cuda_core.h"
#include "parsers/host_core.h"
/* time series sources */
#include "parsers/cgroup.h"
#include "parsers/dcgm.h"
#include "parsers/nvidia_smi.h"
#include "parsers/server_log.h"
#include "parsers/smaps.h"
#include "parsers/torch_snapshot.h"

#include <string.h>

const struct format formats[] = {
	{ "kernel_log", "kernel log with OOM-killer reports (dmesg, syslog, journalctl, kmsg)",
	  kernel_oom_sniff, kernel_oom_parse, 1 },
	{ "cuda_core", "CUDA GPU core dump (.nvcudmp, ELF EM_CUDA), plain or gzip",
	  cuda_core_sniff, cuda_core_parse, 0 },
	{ "host_core", "host process core dump (ELF ET_CORE: gcore, kernel core files)",
	  host_core_sniff, host_core_parse, 0 },
	{ "torch_snapshot", "PyTorch CUDA memory snapshot (pickle of torch.cuda.memory._snapshot())",
	  torch_snapshot_sniff, torch_snapshot_parse, 0 },
	{ "torch_snapshot_flat", "PyTorch memory snapshot in oomlens' flat JSON Lines form (oomlens convert)",
	  torch_flat_sniff, torch_flat_parse, 0 },
	/* --- time series sources --- */
	{ "smaps", "/proc/PID/smaps or smaps_rollup, one capture or a ### series",
	  smaps_sniff, smaps_parse, 0 },
	{ "cgroup", "cgroup v1/v2 memory files, one copy or a ### series",
	  cgroup_sniff, cgroup_parse, 0 },
	{ "nvidia_smi", "nvidia-smi --query-gpu / --query-compute-apps CSV log",
	  nvidia_smi_sniff, nvidia_smi_parse, 0 },
	{ "dcgm", "DCGM exporter scrape (Prometheus text)", dcgm_sniff, dcgm_parse, 0 },
	{ "server_log", "serving-engine log (vLLM, SGLang, TGI, TensorRT-LLM, Triton, PyTorch)",
	  server_log_sniff, server_log_parse, 1 },
	{ NULL, NULL, NULL, NULL, 0 }
};

#define NFORMATS (sizeof(formats) / sizeof(formats[0]) - 1)

int detect_formats(struct input *in, const struct format **out, int max)
{
	const unsigned char *head;
	int score[NFORMATS];
	size_t n, i, best = 0;
	int k = 0;

	head = input_peek(in, DETECT_HEAD, &n);
	if (!n || max < 1)
		return 0;
	for (i = 0; i < NFORMATS; i++) {
		score[i] = formats[i].sniff(head, n);
		if (score[i] > score[best])
			best = i;
	}
	if (score[best] <= 0 && n >= DETECT_HEAD) {
		/* A log may open with 64 KiB of other lines (a long start-up, a
		 * progress bar redrawn): the line logs look again, at the
		 * first DETECT_WIDE bytes. */
		head = input_peek(in, DETECT_WIDE, &n);
		for (i = 0; i < NFORMATS; i++) {
			score[i] = formats[i].line_log ? formats[i].sniff(head, n) : 0;
			if (score[i] > score[best])
				best = i;
		}
	}
	if (score[best] <= 0)
		return 0;
	out[k++] = &formats[best];
	if (!formats[best].line_log)
		return k;
	for (i = 0; i < NFORMATS && k < max; i++)
		if (i != best && formats[i].line_log && score[i] > 0)
			out[k++] = &formats[i];
	return k;
}

const struct format *detect_format(struct input *in)
{
	const struct format *f;

	return detect_formats(in, &f, 1) ? f : NULL;
}

const struct format *format_by_kind(const char *kind)
{
	const struct format *f;

	for (f = formats; f->kind; f++)
		if (!strcmp(f->kind, kind))
			return f;
	return NULL;
}

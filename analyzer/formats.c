/*
 * formats.c -- the format table and content sniffing; see formats.h.
 */
#include "formats.h"
#include "../parsers/kernel_oom.h"
#include "../parsers/cuda_core.h"
#include "../parsers/host_core.h"
/* issue 5: time series sources */
#include "../parsers/cgroup.h"
#include "../parsers/dcgm.h"
#include "../parsers/nvidia_smi.h"
#include "../parsers/server_log.h"
#include "../parsers/smaps.h"

#include <string.h>

const struct format formats[] = {
	{ "kernel_log", "kernel log with OOM-killer reports (dmesg, syslog, journalctl, kmsg)",
	  kernel_oom_sniff, kernel_oom_parse },
	{ "cuda_core", "CUDA GPU core dump (.nvcudmp, ELF EM_CUDA), plain or gzip",
	  cuda_core_sniff, cuda_core_parse },
	{ "host_core", "host process core dump (ELF ET_CORE: gcore, kernel core files)",
	  host_core_sniff, host_core_parse },
	/* --- issue 5: time series sources --- */
	{ "smaps", "/proc/PID/smaps or smaps_rollup, one capture or a ### series",
	  smaps_sniff, smaps_parse },
	{ "cgroup", "cgroup v1/v2 memory files, one copy or a ### series",
	  cgroup_sniff, cgroup_parse },
	{ "nvidia_smi", "nvidia-smi --query-gpu / --query-compute-apps CSV log",
	  nvidia_smi_sniff, nvidia_smi_parse },
	{ "dcgm", "DCGM exporter scrape (Prometheus text)", dcgm_sniff, dcgm_parse },
	{ "server_log", "inference server log (vLLM, TGI, PyTorch tracebacks)",
	  server_log_sniff, server_log_parse },
	{ NULL, NULL, NULL, NULL }
};

const struct format *detect_format(struct input *in)
{
	const struct format *f, *best = NULL;
	const unsigned char *head;
	size_t n;
	int score, best_score = 0;

	head = input_peek(in, DETECT_HEAD, &n);
	if (!n)
		return NULL;
	for (f = formats; f->kind; f++) {
		score = f->sniff(head, n);
		if (score > best_score) {
			best_score = score;
			best = f;
		}
	}
	return best;
}

const struct format *format_by_kind(const char *kind)
{
	const struct format *f;

	for (f = formats; f->kind; f++)
		if (!strcmp(f->kind, kind))
			return f;
	return NULL;
}

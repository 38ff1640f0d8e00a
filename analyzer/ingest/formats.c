/*
 * formats.c -- the format table and content sniffing; see formats.h.
 */
#include "analyzer/ingest/formats.h"
#include "parsers/kernel/kernel_oom.h"
#include "parsers/cores/cuda_core.h"
#include "parsers/cores/host_core.h"
/* time series sources */
#include "parsers/host/cgroup.h"
#include "parsers/gpu/dcgm.h"
#include "parsers/gpu/nvidia_smi.h"
#include "parsers/gpu/nvidia_smi_table.h"
#include "parsers/gpu/nvsmi_accounted.h"
#include "parsers/k8s/k8s.h"
#include "parsers/k8s/mustgather.h"
#include "parsers/host/environ.h"
#include "parsers/serving/server_log.h"
#include "parsers/serving/launch_conf.h"
#include "parsers/host/smaps.h"
#include "parsers/torch/torch_snapshot.h"
/* diagnostic tools' reports */
#include "parsers/torch/torch_stats.h"
#include "parsers/torch/torch_summary.h"
#include "parsers/torch/torch_profiler.h"
#include "parsers/torch/torch_trace.h"
#include "parsers/tools/memray_stats.h"
#include "parsers/tools/memray_bin.h"
#include "parsers/tools/prom_text.h"
#include "parsers/tools/nsys_stats.h"
#include "parsers/tools/nsys_sqlite.h"
/* support bundles */
#include "parsers/bundles/nvbug.h"
#include "parsers/bundles/nvsmi_q.h"
#include "parsers/bundles/sos.h"
#include "parsers/host/procmem.h"
#include "parsers/host/memsamples.h"
#include "parsers/host/ps_table.h"
#include "parsers/host/stats_table.h"
#include "parsers/tools/bench_out.h"
#include "parsers/tools/ollama_ps.h"
#include "parsers/host/lsf_job.h"
#include "parsers/host/shell_kill.h"
#include "parsers/serving/memfail.h"

#include <string.h>

/* The fallback's row claims nothing by its head: it is chosen only by
 * format_fallback, for a text file no other row claimed. */
static int text_fallback_sniff(const unsigned char *head, size_t n)
{
	(void)head;
	(void)n;
	return 0;
}

/* A shell's kill report, with the stage the program's lines above it
 * name (parsers/host cannot reach the serving parsers' phase table; this
 * layer joins the two). */
static int shell_kill_with_stages(struct input *in, struct sink *s)
{
	return shell_kill_parse_staged(in, s, memfail_phase_line);
}

const struct format format_table[] = {
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
	{ "nvidia_smi_accounted", "nvidia-smi --query-accounted-apps CSV: each process's peak GPU memory, exited ones too",
	  nvsmi_accounted_sniff, nvsmi_accounted_parse, 0 },
	{ "nvidia_smi_table", "nvidia-smi's default table (GPUs, processes), anywhere in a text file",
	  nvidia_smi_table_sniff, nvidia_smi_table_parse, 1 },
	{ "dcgm", "DCGM exporter scrape (Prometheus text)", dcgm_sniff, dcgm_parse, 0 },
	{ "k8s", "Kubernetes pod state and events: OOMKilled, evictions (describe, YAML, events)",
	  k8s_sniff, k8s_parse, 1 },
	{ "environ", "a process's environment (/proc/PID/environ, env, export lines, collect_env): memory settings only",
	  environ_sniff, environ_parse, 1 },
	{ "server_log", "serving-engine log (vLLM, SGLang, TGI, TensorRT-LLM, Triton, PyTorch)",
	  server_log_sniff, server_log_parse, 1 },
	{ "launch_config", "an engine's launch command or configuration pasted beside a failure (vllm serve, sglang, TGI, llama-server, compose/k8s args and env, Modelfile, trainer configs): the knobs' values",
	  launch_conf_sniff, launch_conf_parse, 1 },
	/* --- diagnostic tools' reports --- */
	{ "torch_memory_summary", "torch.cuda.memory_summary() tables, alone or in a log",
	  torch_summary_sniff, torch_summary_parse, 1 },
	{ "torch_memory_stats", "torch.cuda.memory_stats() dumps (OrderedDict, pprint, dict, JSON)",
	  torch_stats_sniff, torch_stats_parse, 1 },
	{ "torch_profiler_table", "PyTorch profiler key_averages() table with memory columns",
	  torch_profiler_sniff, torch_profiler_parse, 1 },
	{ "torch_profiler_trace", "PyTorch profiler Chrome trace: its [memory] events",
	  torch_trace_sniff, torch_trace_parse, 0 },
	{ "memray_stats", "memray stats report (text)", memray_stats_sniff, memray_stats_parse, 1 },
	{ "memray_stats_json", "memray stats --json, or that dict printed by Python",
	  memray_json_sniff, memray_json_parse, 0 },
	{ "memray_capture", "memray capture file (memray run -o x.bin), lz4 or plain, read in one pass",
	  memray_bin_sniff, memray_bin_parse, 0 },
	{ "prometheus_text", "Prometheus /metrics scrape (cAdvisor, vLLM, SGLang, ...; not DCGM)",
	  prom_text_sniff, prom_text_parse, 0 },
	{ "prometheus_query", "Prometheus query / query_range answer (JSON, Grafana inspector, Python dict)",
	  prom_query_sniff, prom_query_parse, 0 },
	{ "grafana_csv", "Grafana panel CSV export", grafana_csv_sniff, grafana_csv_parse, 0 },
	{ "nsys_stats", "Nsight Systems nsys stats tables on CUDA memory",
	  nsys_stats_sniff, nsys_stats_parse, 1 },
	{ "nsys_sqlite", "Nsight Systems SQLite export (nsys export --type sqlite), read in place",
	  nsys_sqlite_sniff, nsys_sqlite_parse, 0 },
	/* --- support bundles and their sections --- */
	{ "nvidia_bug_report", "nvidia-bug-report.log(.gz): nvidia-smi -q, dmesg, meminfo sections",
	  nvbug_sniff, nvbug_parse, 0 },
	{ "nvidia_smi_q", "nvidia-smi -q (--query) text: per-card memory, processes, ECC, retired pages",
	  nvsmi_q_sniff, nvsmi_q_parse, 0 },
	{ "sos_version", "a sosreport's version.txt: the sos version and the plugins run",
	  sos_version_sniff, sos_version_parse, 0 },
	{ "sos_log", "a sosreport's sos_logs/sos.log: plugins that failed, skipped or timed out",
	  sos_log_sniff, sos_log_parse, 0 },
	{ "mustgather_version", "a GPU operator must-gather's version file",
	  mg_version_sniff, mg_version_parse, 0 },
	{ "mustgather_log", "a GPU operator must-gather's must-gather.log: what it could not collect",
	  mg_log_sniff, mg_log_parse, 0 },
	{ "package_list", "installed packages (dpkg -l, installed-rpms): NVIDIA driver and CUDA versions",
	  pkg_list_sniff, pkg_list_parse, 0 },
	/* --- a host's memory as a bundle collects it --- */
	{ "meminfo", "a copy of /proc/meminfo", meminfo_sniff, meminfo_parse, 0 },
	{ "free", "free(1) output (a bundle's sos_commands/memory/free)",
	  free_out_sniff, free_out_parse, 0 },
	{ "buddyinfo", "a copy of /proc/buddyinfo", buddyinfo_sniff, buddyinfo_parse, 0 },
	{ "slabinfo", "a copy of /proc/slabinfo: the largest slab caches",
	  slabinfo_sniff, slabinfo_parse, 0 },
	{ "ps_table", "ps(1) or top(1) process tables (PID, RSS or RES): each process's resident"
	  " memory, one sample a table, untimed", ps_table_sniff, ps_table_parse, 0 },
	{ "stats_table", "docker stats or kubectl top tables: each container's, pod's or node's"
	  " memory in use, one sample a table, untimed", stats_table_sniff, stats_table_parse, 0 },
	{ "memory_samples", "memory figures pasted as lines or a small table (VmRSS, RSS, resident,"
	  " memory.used ...), in file order, untimed", memsamples_sniff, memsamples_parse, 0 },
	{ "bench_output", "a load generator's output or command line (vLLM / SGLang serving"
	  " benchmark, ab, wrk, hey, locust, k6, genai-perf, llmperf): the load of each run",
	  bench_out_sniff, bench_out_parse, 1 },
	{ "ollama_ps", "ollama ps: each loaded model's size and its CPU/GPU split, as an"
	  " Ollama offload record", ollama_ps_sniff, ollama_ps_parse, 1 },
	{ "lsf_job", "IBM LSF job report (mail or -o file) of a job killed at its memory"
	  " limit (TERM_MEMLIMIT): its peak and request", lsf_job_sniff, lsf_job_parse, 1 },
	{ "shell_kill", "a shell's report that its job was killed by SIGKILL (bash's \"line N: PID"
	  " Killed CMD\", \"[1]+ Killed\", zsh's \"killed\", a lone \"Killed\"), or a launcher's"
	  " (DeepSpeed's \"exits with return code = -9\", torchrun's \"Signal 9 (SIGKILL)\", a Go launcher's \"signal: killed\"): the sender not"
	  " shown; the stage the lines above it name", shell_kill_sniff, shell_kill_with_stages, 1 },
	/* --- last: no row claimed the file, and it is text --- */
	{ "text", "any other text file: read whole, line by line, by the generic"
	  " memory-failure recogniser (an allocation failure in any wording it knows, its"
	  " phase)", text_fallback_sniff, server_log_parse, 1 },
	{ NULL, NULL, NULL, NULL, 0 }
};

#define NFORMATS (sizeof(format_table) / sizeof(format_table[0]) - 1)

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
		score[i] = format_table[i].sniff(head, n);
		if (score[i] > score[best])
			best = i;
	}
	if (score[best] <= 0 && n >= DETECT_HEAD) {
		/* A log may open with 64 KiB of other lines (a long start-up, a
		 * progress bar redrawn): the line logs look again, at the
		 * first DETECT_WIDE bytes. */
		head = input_peek(in, DETECT_WIDE, &n);
		for (i = 0; i < NFORMATS; i++) {
			score[i] = format_table[i].line_log ? format_table[i].sniff(head, n) : 0;
			if (score[i] > score[best])
				best = i;
		}
	}
	if (score[best] <= 0)
		return 0;
	out[k++] = &format_table[best];
	if (!format_table[best].line_log)
		return k;
	for (i = 0; i < NFORMATS && k < max; i++)
		if (i != best && format_table[i].line_log && score[i] > 0)
			out[k++] = &format_table[i];
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

	for (f = format_table; f->kind; f++)
		if (!strcmp(f->kind, kind))
			return f;
	return NULL;
}

/* Text, not binary: the head has no NUL byte, and at most one byte in 32
 * is another control character than a line's (tab, newline, carriage
 * return, form feed, vertical tab, escape: a coloured log's). Bytes of
 * 0x80 and above pass (UTF-8, Latin-1 logs); a compressed input is
 * judged on what it unpacks to (input_peek reads through gzip). */
static int looks_text(const unsigned char *head, size_t n)
{
	size_t i, odd = 0;

	if (!n)
		return 0;
	for (i = 0; i < n; i++) {
		unsigned char c = head[i];
		if (!c)
			return 0;
		if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' &&
		     c != '\v' && c != 0x1b) || c == 0x7f)
			odd++;
	}
	return odd * 32 <= n;
}

/* 1 when line l (n bytes, a diff's leading '+', '-' or ' ' skipped)
 * is a page's markup rather than a program's output: a Markdown heading
 * of level two or more ("## "), a line led by bold ("**Cause**:"), a
 * reStructuredText directive (".. code-block::"). A program prints none
 * of these as its own lines; a level-one "# " is also a shell's comment
 * and a Markdown table also llama-bench's output (llama.cpp
 * examples/llama-bench/llama-bench.cpp, markdown_printer), so neither
 * counts. */
static int markup_line(const char *l, size_t n)
{
	size_t i = 0, k;

	if (n && (l[0] == '+' || l[0] == '-' || l[0] == ' '))
		i = 1;
	if (n - i >= 3 && l[i] == '#' && l[i + 1] == '#') {
		for (k = i; k < n && l[k] == '#'; k++)
			;
		return k < n && l[k] == ' ' && k - i <= 6;
	}
	if (n - i >= 5 && !memcmp(l + i, "**", 2) && l[i + 2] != '*' && l[i + 2] != ' ')
		return 1;
	if (n - i >= 6 && !memcmp(l + i, ".. ", 3)) {
		for (k = i + 3; k < n && l[k] != ' '; k++)
			if (l[k] == ':' && k + 1 < n && l[k + 1] == ':')
				return 1;
	}
	return 0;
}

/* 1 when the head is a page about failures, not a log of one: two lines
 * of markup (markup_line), or what the server reader's sniff rules out
 * (a manifest's table, reStructuredText, an oomlens report). What such a
 * page says of memory failures is prose: a README's "CUDA out of memory"
 * row, a troubleshooting page's ``Killed``. */
static int page_not_log(const unsigned char *head, size_t n)
{
	const char *p = (const char *)head, *end = p + n, *nl;
	int marks = 0;

	if (server_log_not_a_log(head, n))
		return 1;
	for (; p < end && marks < 2; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		marks += markup_line(p, (size_t)(nl - p - (nl > p && nl[-1] == '\r')));
	}
	return marks >= 2;
}

const struct format *format_fallback(struct input *in, const char **why)
{
	const unsigned char *head;
	size_t n;

	head = input_peek(in, DETECT_HEAD, &n);
	if (!looks_text(head, n)) {
		*why = "not a format oomlens reads (binary)";
		return NULL;
	}
	if (page_not_log(head, n)) {
		*why = "a page or a table about failures (Markdown, reStructuredText, a manifest),"
		       " not a log: its memory-failure words are not failures";
		return NULL;
	}
	return format_by_kind("text");
}

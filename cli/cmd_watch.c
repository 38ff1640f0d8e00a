/*
 * cmd_watch.c -- `oomlens watch`: arm the evidence before the next OOM.
 * Reads the command line into a wt_config and runs the collector
 * (watch/watch.h), or prints the arming lines of an engine
 * (--print-arm). The folder it writes is one `oomlens analyze` reads
 * (docs/watch.md).
 */
#include "cli/cli.h"
#include "watch/watch.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char watch_usage[] =
	"usage: oomlens watch [--cgroup PATH]... [--pid PID]... [--gpus] [--metrics URL]...\n"
	"                     --out DIR [--interval S] [--for S] [--max-bytes N]\n"
	"                     [--threshold F]\n"
	"       oomlens watch --print-arm vllm|sglang|tgi|pytorch|ollama|llamacpp\n"
	"  Samples the memory of cgroups and processes (cgroup memory files,\n"
	"  smaps_rollup, memory pressure; nvidia-smi with --gpus), follows /dev/kmsg\n"
	"  for OOM-killer reports, and captures a burst of detail when an OOM kill\n"
	"  happens or usage crosses the threshold; writes DIR for `oomlens analyze DIR`.\n"
	"  --cgroup PATH      a cgroup folder (/sys/fs/cgroup/...; v1 or v2), repeatable;\n"
	"                     every process in it is sampled too\n"
	"  --pid PID          a process, repeatable\n"
	"  --gpus             nvidia-smi's GPU and compute-apps queries (every 2 s at most)\n"
	"  --metrics URL      a serving engine's Prometheus endpoint on this host, plain\n"
	"                     http://host:port/path only (vLLM http://127.0.0.1:8000/metrics,\n"
	"                     SGLang :30000 with --enable-metrics, TGI :3000, Triton :8002,\n"
	"                     llama-server --metrics :8080); its load gauges go to\n"
	"                     metrics.prom, at most once a second; repeatable\n"
	"  --out DIR          the output folder (made if missing; never a symbolic link)\n"
	"  --interval S       seconds between samples (default 1; 0.05 to 3600)\n"
	"  --for S            stop after S seconds (default: at SIGINT or SIGTERM)\n"
	"  --max-bytes N      bound the folder (K, M, G suffixes): old samples are thinned,\n"
	"                     OOM moments kept (default 256M; 0: no bound)\n"
	"  --threshold F      usage share of the limit that triggers a burst (default 0.9)\n"
	"  --print-arm ENGINE print the settings that make the next OOM leave its evidence\n"
	"                     (vllm, sglang, tgi, pytorch, ollama, llamacpp) and exit\n"
	"  -q, --quiet        no progress lines on stderr\n"
	"exit: 0 stopped cleanly, 1 could not start or a write failed, 2 usage\n";

/* The options of this command only (ids past cli.h's). */
#define W_OPT(n) ((enum cli_opt_id)(100 + (n)))
#define W_CGROUP W_OPT(0)
#define W_PID W_OPT(1)
#define W_GPUS W_OPT(2)
#define W_OUT W_OPT(3)
#define W_INTERVAL W_OPT(4)
#define W_FOR W_OPT(5)
#define W_MAX_BYTES W_OPT(6)
#define W_THRESHOLD W_OPT(7)
#define W_PRINT_ARM W_OPT(8)
#define W_KMSG W_OPT(9)
#define W_METRICS W_OPT(10)

static const struct cli_opt watch_opts[] = {
	{ "--cgroup", 0, 1, W_CGROUP }, { "--pid", 0, 1, W_PID }, { "--gpus", 0, 0, W_GPUS },
	{ "--out", 0, 1, W_OUT }, { "--interval", 0, 1, W_INTERVAL }, { "--for", 0, 1, W_FOR },
	{ "--max-bytes", 0, 1, W_MAX_BYTES }, { "--threshold", 0, 1, W_THRESHOLD },
	{ "--print-arm", 0, 1, W_PRINT_ARM }, { "--kmsg", 0, 1, W_KMSG },
	{ "--metrics", 0, 1, W_METRICS },
	{ "--quiet", 'q', 0, OPT_QUIET }, { NULL, 0, 0, 0 }
};

/* Seconds in s (a decimal number in [lo, hi]) as nanoseconds. 0 or -1. */
static int parse_seconds(const char *s, double lo, double hi, int64_t *ns)
{
	char *e;
	double v = strtod(s, &e);

	if (e == s || *e || !isfinite(v) || v < lo || v > hi)
		return -1;
	*ns = (int64_t)(v * 1e9 + 0.5);
	return 0;
}

/* A byte count with an optional K, M or G (1024-based). 0 or -1. */
static int parse_bytes(const char *s, int64_t *v)
{
	char *e;
	long long n = strtoll(s, &e, 10);
	int shift = 0;

	if (e == s || n < 0)
		return -1;
	if (*e == 'K' || *e == 'k')
		shift = 10;
	else if (*e == 'M' || *e == 'm')
		shift = 20;
	else if (*e == 'G' || *e == 'g')
		shift = 30;
	if (shift)
		e++;
	if (*e == 'i' && shift)
		e++;
	if (*e == 'B' && shift)
		e++;
	if (*e || n > (INT64_MAX >> shift))
		return -1;
	*v = (int64_t)n << shift;
	return 0;
}

int cmd_watch(int argc, char **argv)
{
	struct cli_args a = CLI_ARGS_INIT(argc, argv, watch_opts);
	struct wt_config cfg;
	const char *arm = NULL;
	char *e;
	int o;

	memset(&cfg, 0, sizeof(cfg));
	cfg.interval_ns = 1000000000;
	cfg.max_bytes = 256LL << 20;
	cfg.threshold = 0.9;
	while ((o = cli_next(&a)) != CLI_DONE) {
		long pid;

		switch (o) {
		case CLI_HELP:
			return cli_help(watch_usage);
		case W_CGROUP:
			if (cfg.ncgroups == WT_MAX_CGROUPS)
				return cli_error("at most %d --cgroup", WT_MAX_CGROUPS), EXIT_USAGE;
			cfg.cgroups[cfg.ncgroups++] = a.value;
			break;
		case W_PID:
			pid = strtol(a.value, &e, 10);
			if (e == a.value || *e || pid <= 0 || pid > 1 << 22)
				return cli_error("--pid: '%s' is not a process id", a.value), EXIT_USAGE;
			if (cfg.npids == WT_MAX_PIDS)
				return cli_error("at most %d --pid", WT_MAX_PIDS), EXIT_USAGE;
			cfg.pids[cfg.npids++] = (int)pid;
			break;
		case W_GPUS:
			cfg.gpus = 1;
			break;
		case W_METRICS: {
			char why[200];
			if (wt_metrics_url_check(a.value, why, sizeof(why)) < 0)
				return cli_error("--metrics: '%s': %s", a.value, why), EXIT_USAGE;
			if (cfg.nmetrics == WT_MAX_METRICS)
				return cli_error("at most %d --metrics", WT_MAX_METRICS), EXIT_USAGE;
			cfg.metrics[cfg.nmetrics++] = a.value;
			break;
		}
		case W_OUT:
			cfg.out = a.value;
			break;
		case W_INTERVAL:
			if (parse_seconds(a.value, 0.05, 3600, &cfg.interval_ns) < 0)
				return cli_error("--interval: '%s' is not seconds from 0.05 to 3600",
						 a.value), EXIT_USAGE;
			break;
		case W_FOR:
			if (parse_seconds(a.value, 0.001, 1e7, &cfg.for_ns) < 0)
				return cli_error("--for: '%s' is not a positive number of seconds",
						 a.value), EXIT_USAGE;
			break;
		case W_MAX_BYTES:
			if (parse_bytes(a.value, &cfg.max_bytes) < 0 ||
			    (cfg.max_bytes > 0 && cfg.max_bytes < (64 << 10)))
				return cli_error("--max-bytes: '%s' is not a size of 64K or more"
						 " (or 0)", a.value), EXIT_USAGE;
			break;
		case W_THRESHOLD:
			cfg.threshold = strtod(a.value, &e);
			if (e == a.value || *e || !(cfg.threshold > 0 && cfg.threshold <= 1))
				return cli_error("--threshold: '%s' is not a share in (0, 1]",
						 a.value), EXIT_USAGE;
			break;
		case W_PRINT_ARM:
			arm = a.value;
			break;
		case W_KMSG:
			cfg.kmsg_path = a.value;
			break;
		case OPT_QUIET:
			cfg.quiet = 1;
			break;
		default:
			return cli_usage(watch_usage);
		}
	}
	if (arm) {
		if (wt_print_arm(arm) < 0)
			return cli_error("--print-arm: '%s' is not one of: %s", arm, wt_arm_engines),
			       EXIT_USAGE;
		return EXIT_OK;
	}
	if (a.nargs || !cfg.out)
		return cli_usage(watch_usage);
	if (!cfg.ncgroups && !cfg.npids && !cfg.gpus && !cfg.nmetrics)
		return cli_error("nothing to watch: give --cgroup, --pid, --gpus or --metrics"),
		       EXIT_USAGE;
	return wt_run(&cfg) < 0 ? EXIT_ERROR : EXIT_OK;
}

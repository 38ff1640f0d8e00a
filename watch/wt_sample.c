/*
 * wt_sample.c -- one sample of what the rules read, as capture records
 * (docs/formats.md, "The capture separator"): a line
 * `### <UTC ISO 8601> src=... cgroup=... boot_id=... mono=...` and then
 * the file as the kernel gave it, so that the cgroup and smaps readers
 * take it as they take a collection loop's output. The separator's mono=
 * with its UTC time anchors the kernel log's boot-relative stamps.
 *
 * Files are read with one read into the context's buffer: the memory
 * files are small (memory.stat, the largest, is a few KiB).
 */

#include "watch/wt_int.h"
#include "lib/timeutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Read path (relative to dirfd, or absolute with dirfd AT_FDCWD) into
 * c->buf, NUL-terminated. Returns the length, or -1 (gone, unreadable). */
static ssize_t read_file(struct wt_ctx *c, const char *path)
{
	ssize_t n, got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

	if (fd < 0)
		return -1;
	while (got < WT_BUF - 1) {
		n = read(fd, c->buf + got, (size_t)(WT_BUF - 1 - got));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
	}
	close(fd);
	c->buf[got] = 0;
	return got;
}

void wt_now(struct wt_ctx *c)
{
	struct timespec r, m;

	clock_gettime(CLOCK_REALTIME, &r);
	clock_gettime(CLOCK_MONOTONIC, &m);
	c->utc_ns = (int64_t)r.tv_sec * 1000000000 + r.tv_nsec;
	c->mono_ns = (int64_t)m.tv_sec * 1000000000 + m.tv_nsec;
}

void wt_sep(struct wt_ctx *c, const char *src, int pid, const char *comm,
	    const char *cgname, const char *trigger)
{
	char iso[48];

	format_iso8601(c->utc_ns, iso, sizeof(iso));
	strbuf_reset(&c->rec);
	strbuf_addf(&c->rec, "### %s", iso);
	if (pid > 0)
		strbuf_addf(&c->rec, " pid=%d", pid);
	if (comm && *comm)
		strbuf_addf(&c->rec, " comm=%s", comm);
	strbuf_addf(&c->rec, " src=%s", src);
	if (cgname && *cgname)
		strbuf_addf(&c->rec, " cgroup=%s", cgname);
	if (c->boot_id[0])
		strbuf_addf(&c->rec, " boot_id=%s", c->boot_id);
	strbuf_addf(&c->rec, " mono=%lld.%06lld", (long long)(c->mono_ns / 1000000000),
		    (long long)(c->mono_ns % 1000000000 / 1000));
	if (trigger)
		strbuf_addf(&c->rec, " trigger=%s", trigger);
	strbuf_addch(&c->rec, '\n');
}

/* Add c->buf[0..n) as the record's body, ending with a newline, and
 * append the record to file f. */
static int put_body(struct wt_ctx *c, enum wt_file f, size_t n, const char *trigger)
{
	strbuf_add(&c->rec, c->buf, n);
	if (n && c->buf[n - 1] != '\n')
		strbuf_addch(&c->rec, '\n');
	if (strbuf_failed(&c->rec)) {
		fprintf(stderr, "oomlens: watch: out of memory\n");
		return -1;
	}
	return wt_out_put(&c->out, f, c->rec.buf, c->rec.len, trigger != NULL);
}

/* The value of key in a "key value" file body, or -1. */
static int64_t kv_value(const char *body, const char *key)
{
	size_t kl = strlen(key);
	const char *p = body;

	while (p && *p) {
		if (!strncmp(p, key, kl) && p[kl] == ' ')
			return strtoll(p + kl + 1, NULL, 10);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -1;
}

int wt_cg_init(struct wt_cg *cg, const char *dir)
{
	static const char *const roots[] = {
		"/sys/fs/cgroup/memory/", "/sys/fs/cgroup/unified/", "/sys/fs/cgroup/", NULL
	};
	char path[4096];
	size_t i, n;

	memset(cg, 0, sizeof(*cg));
	cg->dir = dir;
	cg->usage = cg->limit = cg->oom_kill = -1;
	snprintf(path, sizeof(path), "%s/memory.current", dir);
	if (access(path, R_OK) == 0) {
		cg->v2 = 1;
	} else {
		snprintf(path, sizeof(path), "%s/memory.usage_in_bytes", dir);
		if (access(path, R_OK) < 0) {
			fprintf(stderr, "oomlens: watch: %s holds no memory controller file"
				" (memory.current, memory.usage_in_bytes)\n", dir);
			return -1;
		}
	}
	/* the kernel's name: the path after the mount (a node's tree mounted
	 * elsewhere, /host/sys/fs/cgroup/..., reads the same) */
	for (i = 0; roots[i]; i++) {
		const char *at = strstr(dir, roots[i]);
		n = strlen(roots[i]);
		if (at || (!strncmp(dir, roots[i], n - 1) && !dir[n - 1])) {
			const char *rest = at ? at + n - 1 : "/";
			snprintf(cg->name, sizeof(cg->name), "%s", *rest ? rest : "/");
			break;
		}
	}
	n = strlen(cg->name);
	while (n > 1 && cg->name[n - 1] == '/')
		cg->name[--n] = 0;
	if (strchr(cg->name, ' '))
		cg->name[0] = 0; /* a separator value cannot hold a blank */
	return 0;
}

/* The memory files of each version, those read every sample (burst 0)
 * and those added on a trigger (burst 1). */
static const char *const v1_files[] = {
	"memory.usage_in_bytes", "memory.limit_in_bytes", "memory.max_usage_in_bytes",
	"memory.failcnt", "memory.oom_control", "memory.stat", "memory.memsw.usage_in_bytes",
	NULL
};
static const char *const v2_files[] = {
	"memory.current", "memory.max", "memory.high", "memory.peak", "memory.events",
	"memory.stat", "memory.swap.current", "memory.pressure", NULL
};

int wt_sample_cgroup(struct wt_ctx *c, struct wt_cg *cg, const char *trigger)
{
	const char *const *f = cg->v2 ? v2_files : v1_files;
	char path[4096], src[64];
	ssize_t n;

	cg->usage = cg->limit = -1;
	for (; *f; f++) {
		snprintf(path, sizeof(path), "%s/%s", cg->dir, *f);
		n = read_file(c, path);
		if (n <= 0)
			continue;
		if (!strcmp(*f, "memory.current") || !strcmp(*f, "memory.usage_in_bytes"))
			cg->usage = strtoll(c->buf, NULL, 10);
		else if (!strcmp(*f, "memory.max") || !strcmp(*f, "memory.limit_in_bytes"))
			cg->limit = strncmp(c->buf, "max", 3) && strtoll(c->buf, NULL, 10) < (1LL << 62)
				    ? strtoll(c->buf, NULL, 10) : -1;
		else if (!strcmp(*f, "memory.events") || !strcmp(*f, "memory.oom_control"))
			cg->oom_kill = kv_value(c->buf, "oom_kill");
		snprintf(src, sizeof(src), "cgroup:%s", *f);
		wt_sep(c, src, 0, NULL, cg->name, trigger);
		if (put_body(c, WT_CGROUP, (size_t)n, trigger) < 0)
			return -1;
	}
	return 0;
}

int wt_sample_pid(struct wt_ctx *c, int pid, const char *cgname, const char *trigger)
{
	char path[64], comm[64];
	ssize_t n;
	size_t i;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	n = read_file(c, path);
	if (n < 0)
		return 0; /* gone */
	for (i = 0; i < (size_t)n && i < sizeof(comm) - 1 && c->buf[i] != '\n'; i++)
		comm[i] = c->buf[i] == ' ' || c->buf[i] == '=' ? '_' : c->buf[i];
	comm[i] = 0;
	snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", pid);
	n = read_file(c, path);
	if (n <= 0)
		return 0; /* gone, or a kernel thread */
	wt_sep(c, "smaps_rollup", pid, comm, cgname, trigger);
	return put_body(c, WT_SMAPS, (size_t)n, trigger);
}

int wt_sample_procs(struct wt_ctx *c, const struct wt_cg *cg, const char *trigger)
{
	char path[4096];
	int pids[4096], np = 0, i;
	ssize_t n;
	char *p, *e;

	snprintf(path, sizeof(path), "%s/cgroup.procs", cg->dir);
	n = read_file(c, path);
	if (n <= 0)
		return 0;
	for (p = c->buf; np < (int)(sizeof(pids) / sizeof(pids[0])); p = e) {
		long v = strtol(p, &e, 10);
		if (e == p)
			break;
		if (v > 0)
			pids[np++] = (int)v;
	}
	for (i = 0; i < np; i++)
		if (wt_sample_pid(c, pids[i], cg->name, trigger) < 0)
			return -1;
	return 0;
}

int wt_sample_host(struct wt_ctx *c, const char *trigger)
{
	ssize_t n = read_file(c, "/proc/pressure/memory");

	if (n <= 0)
		return 0; /* no PSI in this kernel */
	/* the host's pressure is the root cgroup's memory.pressure */
	wt_sep(c, "cgroup:memory.pressure", 0, NULL, "/", trigger);
	return put_body(c, WT_CGROUP, (size_t)n, trigger);
}

/* Run nvidia-smi with query q into c->buf (stdout, at most WT_BUF - 1
 * bytes). The length, or -1. */
static ssize_t run_smi(struct wt_ctx *c, const char *q)
{
	char cmd[256];
	FILE *p;
	size_t n;

	snprintf(cmd, sizeof(cmd), "nvidia-smi %s --format=csv 2>/dev/null", q);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	n = fread(c->buf, 1, WT_BUF - 1, p);
	if (pclose(p) != 0)
		return -1;
	c->buf[n] = 0;
	return (ssize_t)n;
}

/* Append nvidia-smi's CSV in c->buf[0..n) to f: the header line only into
 * an empty file, and every row. */
static int put_csv(struct wt_ctx *c, enum wt_file f, size_t n, int keep)
{
	const char *body = c->buf, *nl = memchr(c->buf, '\n', n);

	if (!nl)
		return 0;
	if (!wt_out_empty(&c->out, f))
		body = nl + 1;
	if ((size_t)(body - c->buf) >= n)
		return 0;
	return wt_out_put(&c->out, f, body, n - (size_t)(body - c->buf), keep);
}

int wt_sample_gpus(struct wt_ctx *c, int force)
{
	ssize_t n;

	if (!c->have_smi || (!force && c->mono_ns < c->gpu_next_ns))
		return 0;
	/* nvidia-smi costs tens of milliseconds: at most every 2 s */
	c->gpu_next_ns = c->mono_ns + (c->cfg->interval_ns > 2000000000LL ?
				       c->cfg->interval_ns : 2000000000LL);
	n = run_smi(c, "--query-gpu=timestamp,index,uuid,name,memory.used,memory.total,"
		    "memory.free,utilization.gpu");
	if (n > 0 && put_csv(c, WT_GPU, (size_t)n, force) < 0)
		return -1;
	n = run_smi(c, "--query-compute-apps=timestamp,gpu_uuid,pid,process_name,used_memory");
	if (n > 0 && put_csv(c, WT_GPU_APPS, (size_t)n, force) < 0)
		return -1;
	return 0;
}

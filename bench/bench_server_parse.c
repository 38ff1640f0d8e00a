/*
 * bench_server_parse.c -- the server-log parser alone (parsers/server_*.c)
 * on a file, without SQL: the file is read as `oomlens ingest` reads it
 * (lib/input.c) into a counting sink that stores nothing, so the time is
 * the parser's own. The sink keeps a digest of what it was given (each
 * series, sample, event, meta and engine row, in order), so two builds
 * can be shown to give the same records. Like the store, it gives a
 * series one id per (name, entity), however often it is asked.
 *
 * usage: bench_server_parse FILE [YEAR]   (YEAR as --year, default 2026);
 * prints the bytes, the records of each kind, the digest and the CPU and
 * wall seconds of the parse with its throughput.
 */
#include "parsers/serving/server_log.h"
#include "lib/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* What the sink was given: counts and an FNV-1a digest over it. */
struct tally {
	uint64_t digest;
	long series, samples, events, metas, engines, diags;
};

static struct tally tally = { 14695981039346656037ull, 0, 0, 0, 0, 0, 0 };

static void mix(const void *p, size_t n)
{
	const unsigned char *c = p;
	size_t i;

	for (i = 0; i < n; i++)
		tally.digest = (tally.digest ^ c[i]) * 1099511628211ull;
}

static void mix_str(const char *s)
{
	mix(s ? s : "(null)", s ? strlen(s) + 1 : 7);
}

static void mix_time(const struct ol_time *t)
{
	mix(&t->clock, sizeof(t->clock));
	mix(&t->utc_ns, sizeof(t->utc_ns));
	mix(&t->boot_ns, sizeof(t->boot_ns));
}

/* A series has one id per (name, entity), as the store gives it. */
#define SERIES_MAX 4096
static char *series_key[SERIES_MAX];

static int64_t on_series(struct sink *s, const char *name, const char *unit, const char *entity)
{
	char key[256];
	long i;

	(void)s;
	snprintf(key, sizeof(key), "%s\n%s", name, entity ? entity : "");
	for (i = 0; i < tally.series; i++)
		if (!strcmp(series_key[i], key))
			return i + 1;
	if (tally.series == SERIES_MAX)
		return -1;
	series_key[tally.series] = strdup(key);
	mix_str(name);
	mix_str(unit);
	mix_str(entity);
	return ++tally.series;
}

static int64_t on_sample(struct sink *s, int64_t id, const struct ol_time *t, double v)
{
	(void)s;
	mix(&id, sizeof(id));
	mix_time(t);
	mix(&v, sizeof(v));
	tally.samples++;
	return 1;
}

static int64_t on_event(struct sink *s, const struct ol_event *e)
{
	char *d = e->data ? json_dumps(e->data, JSON_COMPACT | JSON_SORT_KEYS) : NULL;

	(void)s;
	mix_str(e->kind);
	mix_time(&e->t);
	mix(&e->pid, sizeof(e->pid));
	mix(&e->bytes, sizeof(e->bytes));
	mix(&e->line, sizeof(e->line));
	mix_str(e->summary);
	mix_str(d);
	free(d);
	return ++tally.events;
}

static int64_t on_meta(struct sink *s, const char *k, const char *v)
{
	(void)s;
	mix_str(k);
	mix_str(v);
	tally.metas++;
	return 1;
}

static int64_t on_engine(struct sink *s, const struct ol_engine *e)
{
	char *d = e->errors ? json_dumps(e->errors, JSON_COMPACT | JSON_SORT_KEYS) : NULL;

	(void)s;
	mix_str(e->engine);
	mix_str(e->instance);
	mix_str(e->version);
	mix(e->fact, sizeof(e->fact));
	mix_str(d);
	mix(&e->errors_dropped, sizeof(e->errors_dropped));
	mix(&e->line, sizeof(e->line));
	free(d);
	return ++tally.engines;
}

static int64_t on_diag(struct sink *s, uint64_t line, uint64_t off, enum ol_severity sev,
		       const char *msg)
{
	(void)s;
	mix(&line, sizeof(line));
	mix(&off, sizeof(off));
	mix(&sev, sizeof(sev));
	mix_str(msg);
	tally.diags++;
	return 1;
}

static double seconds(clockid_t c)
{
	struct timespec t;

	clock_gettime(c, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct ingest_opts o = { OL_NULL, 0, 0, argc > 2 ? atoi(argv[2]) : 2026 };
	struct strbuf err = STRBUF_INIT;
	struct sink s;
	struct input in;
	double c0, w0, cpu, wall;
	int rc;

	if (argc < 2) {
		fprintf(stderr, "usage: bench_server_parse FILE [YEAR]\n");
		return 2;
	}
	memset(&s, 0, sizeof(s));
	s.opts = &o;
	s.path = argv[1];
	s.series = on_series;
	s.sample = on_sample;
	s.event = on_event;
	s.meta = on_meta;
	s.engine = on_engine;
	s.diag = on_diag;
	if (input_open(&in, argv[1], &err) < 0) {
		fprintf(stderr, "%s\n", err.buf ? err.buf : argv[1]);
		return 1;
	}
	c0 = seconds(CLOCK_PROCESS_CPUTIME_ID);
	w0 = seconds(CLOCK_MONOTONIC);
	rc = server_log_parse(&in, &s);
	cpu = seconds(CLOCK_PROCESS_CPUTIME_ID) - c0;
	wall = seconds(CLOCK_MONOTONIC) - w0;
	printf("input: %llu bytes, %llu lines; parse returned %d\n",
	       (unsigned long long)in.offset, (unsigned long long)in.lineno, rc);
	printf("records: %ld series, %ld samples, %ld events, %ld meta, %ld engines,"
	       " %ld diagnostics\n", tally.series, tally.samples, tally.events, tally.metas,
	       tally.engines, tally.diags);
	printf("digest: %016llx\n", (unsigned long long)tally.digest);
	printf("parse: %.3f s CPU, %.3f s wall, %.1f MB/s per CPU-second, %.1f MB/s wall\n",
	       cpu, wall, (double)in.offset / 1e6 / cpu, (double)in.offset / 1e6 / wall);
	input_close(&in);
	strbuf_release(&err);
	return rc < 0;
}

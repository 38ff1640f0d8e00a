/*
 * server_pressure.c -- Rapid-MLX / vllm-mlx's start-up memory projection
 * (its "Memory pressure warning" block) into server.* meta; see
 * server_pressure.h. The lines reach here only when engine_lines.c's
 * anchors marked them, so a log without the block costs nothing more.
 */
#include "parsers/serving/server_pressure.h"
#include "parsers/common/seriesutil.h"
#include "lib/vocab.h"

#include <stdio.h>
#include <string.h>

#define GIB 1073741824.0

/* The "N GB" after label in msg[0..n), in bytes (the source's GB are
 * GiB); 0 with *v set, -1 when absent or unreadable. */
static int gib_after(const char *msg, size_t n, const char *label, double *v)
{
	const char *p = mem_find(msg, n, label), *end = msg + n;

	if (!p)
		return -1;
	p += strlen(label);
	if (parse_num_gb(p, (size_t)(end - p), v) < 0)
		return -1;
	*v *= GIB;
	return 0;
}

/* The "(N% projected utilization)" share of msg[0..n) as a ratio; 0 with
 * *share set, -1 when absent. */
static int share_of(const char *msg, size_t n, double *share)
{
	const char *q = mem_find(msg, n, "% projected utilization)"), *p;
	size_t used;

	if (!q)
		return -1;
	for (p = q; p > msg && ((p[-1] >= '0' && p[-1] <= '9') || p[-1] == '.'); p--)
		;
	if (p == q || parse_num(p, (size_t)(q - p), share, &used) < 0 || used != (size_t)(q - p))
		return -1;
	*share /= 100;
	return 0;
}

int srv_pressure_line(struct srv_pressure *p, struct sink *s, const char *msg, size_t n,
		      uint64_t lineno)
{
	double v, ram, share, projected;
	char b[160];

	if (!p->armed) {
		p->working = p->used = -1;
		p->armed = 1;
	}
	if (gib_after(msg, n, "Est. working set:", &v) == 0) {
		p->working = v;
		return 0;
	}
	if (gib_after(msg, n, "Currently used by OS:", &v) == 0) {
		p->used = v;
		return 0;
	}
	if (gib_after(msg, n, "Total system RAM:", &ram) < 0 || ram <= 0 ||
	    share_of(msg, n, &share) < 0)
		return 0;
	/* the engine's own sum where both terms were printed; else its
	 * share (rounded to a percent) of the RAM */
	projected = p->working >= 0 && p->used >= 0 ? p->working + p->used : share * ram;
	p->working = p->used = -1;
	snprintf(b, sizeof(b), "{\"projected_bytes\":%.0f,\"ram_bytes\":%.0f,\"share\":%.2f,"
		 "\"line\":%llu}", projected, ram, share, (unsigned long long)lineno);
	return sink_meta(s, vocab_meta_key(VM_SERVER_PROJECTION), b) < 0 ? -1 : 1;
}

/*
 * nvsmi_q.c -- `nvidia-smi -q` text into GPU facts; see nvsmi_q.h.
 *
 * The output is an indented tree, four spaces a level, of "Key : value"
 * lines. The reader keeps the open key of each level, so that "Used"
 * under "FB Memory Usage" is told from "Used" under "BAR1 Memory Usage",
 * and a leaf's meaning comes from its path. A card opens at a level-0
 * "GPU <bus id>" line and is closed (its error counts stored) by the
 * next card, the next NVSMI LOG banner or the end. "N/A" and the other
 * non-values are unknown: no record, never 0.
 */
#include "parsers/bundles/nvsmi_q.h"
#include "parsers/common/seriesutil.h"
#include "lib/timeutil.h"
#include "lib/vocab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BANNER "==============NVSMI LOG=============="

static int counted(struct nvsmi_q *q, int64_t id)
{
	if (id < 0)
		return -1;
	q->n++;
	return 0;
}

static int put_meta(struct nvsmi_q *q, enum vocab_meta m, const char *var, const char *val)
{
	char key[160];

	snprintf(key, sizeof(key), "%s%s", vocab_meta_key(m), var ? var : "");
	return counted(q, sink_meta(q->s, key, val));
}

static int put_sample(struct nvsmi_q *q, enum vocab_series v, const char *ent, double x)
{
	if (su_put_sample(q->s, vocab_series_name(v), "bytes", ent, &q->t, x) < 0)
		return -1;
	q->n++;
	return 0;
}

/* Reset what one card gathers. */
static void card_reset(struct nvsmi_q *q)
{
	q->pid = OL_NULL;
	q->pname[0] = 0;
	q->ecc_corr[0] = q->ecc_corr[1] = q->ecc_uncorr[0] = q->ecc_uncorr[1] = OL_NULL;
	q->retired_sbe = q->retired_dbe = OL_NULL;
	q->retired_pending[0] = 0;
	q->remap_corr = q->remap_uncorr = OL_NULL;
	q->remap_pending[0] = q->remap_failed[0] = 0;
}

void nvsmi_q_init(struct nvsmi_q *q, struct sink *s)
{
	memset(q, 0, sizeof(*q));
	q->s = s;
	q->t = ol_time_none();
	q->gpu = -1;
	card_reset(q);
}

static void add(int64_t *acc, int64_t v)
{
	*acc = *acc == OL_NULL ? v : *acc + v;
}

static const char *num_or_na(int64_t v, char *buf, size_t n)
{
	if (v == OL_NULL)
		return "N/A";
	snprintf(buf, n, "%lld", (long long)v);
	return buf;
}

/* Store the current card's error counts (ECC, retired pages, remapped
 * rows) when any was stated. -1 when the sink failed. */
static int card_close(struct nvsmi_q *q)
{
	char ent[16], val[200], a[24], b[24], c[24], d[24];

	if (q->gpu < 0)
		return 0;
	snprintf(ent, sizeof(ent), "gpu%d", q->gpu);
	if (q->ecc_corr[0] != OL_NULL || q->ecc_uncorr[0] != OL_NULL ||
	    q->ecc_corr[1] != OL_NULL || q->ecc_uncorr[1] != OL_NULL) {
		snprintf(val, sizeof(val), "volatile: %s correctable, %s uncorrectable;"
			 " aggregate: %s correctable, %s uncorrectable",
			 num_or_na(q->ecc_corr[0], a, sizeof(a)), num_or_na(q->ecc_uncorr[0], b, sizeof(b)),
			 num_or_na(q->ecc_corr[1], c, sizeof(c)), num_or_na(q->ecc_uncorr[1], d, sizeof(d)));
		if (put_meta(q, VM_GPU_ECC_ERRORS, ent, val) < 0)
			return -1;
	}
	if (q->retired_sbe != OL_NULL || q->retired_dbe != OL_NULL || q->retired_pending[0]) {
		snprintf(val, sizeof(val), "single-bit ECC: %s, double-bit ECC: %s, pending: %s",
			 num_or_na(q->retired_sbe, a, sizeof(a)), num_or_na(q->retired_dbe, b, sizeof(b)),
			 q->retired_pending[0] ? q->retired_pending : "N/A");
		if (put_meta(q, VM_GPU_RETIRED_PAGES, ent, val) < 0)
			return -1;
	}
	if (q->remap_corr != OL_NULL || q->remap_uncorr != OL_NULL || q->remap_pending[0]) {
		snprintf(val, sizeof(val), "correctable: %s, uncorrectable: %s, pending: %s,"
			 " remapping failed: %s", num_or_na(q->remap_corr, a, sizeof(a)),
			 num_or_na(q->remap_uncorr, b, sizeof(b)),
			 q->remap_pending[0] ? q->remap_pending : "N/A",
			 q->remap_failed[0] ? q->remap_failed : "N/A");
		if (put_meta(q, VM_GPU_REMAPPED_ROWS, ent, val) < 0)
			return -1;
	}
	card_reset(q);
	return 0;
}

/* A decimal count in [v, v + n); OL_NULL when it is not one ("N/A"). */
static int64_t count_of(const char *v, size_t n)
{
	int64_t x = 0;
	size_t i;

	if (!n || n > 18)
		return OL_NULL;
	for (i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9')
			return OL_NULL;
		x = x * 10 + (v[i] - '0');
	}
	return x;
}

/* A size "4096 MiB" in [v, v + n): bytes, or OL_NULL. */
static int64_t size_of(const char *v, size_t n)
{
	size_t used;
	int64_t b = parse_size(v, n, &used);

	return b != OL_NULL && used == n ? b : OL_NULL;
}

/* A ctime "Thu Aug 25 20:30:44 2022": wall-clock ns, or OL_NULL. */
static int64_t ctime_of(const char *v, size_t n)
{
	char buf[40];
	int d, h, mi, se, y, mon;

	if (n < 24 || n >= sizeof(buf))
		return OL_NULL;
	memcpy(buf, v, n);
	buf[n] = 0;
	if (!(mon = month_from_name(buf + 4, 3)) ||
	    sscanf(buf + 8, "%d %d:%d:%d %d", &d, &h, &mi, &se, &y) != 5 || y < 1990)
		return OL_NULL;
	return utc_ns(y, mon, d, h, mi, se, 0);
}

static int is(const char *key, const char *lit)
{
	return !strcmp(key, lit);
}

/* A leaf "key : value" at level lv of the current card. -1 when the
 * sink failed. */
static int card_leaf(struct nvsmi_q *q, int lv, const char *key, const char *v, size_t vn)
{
	char ent[48], val[64];
	const char *sec = q->keys[1];
	int64_t x;

	snprintf(ent, sizeof(ent), "gpu%d", q->gpu);
	if (lv == 1 && is(key, "Product Name")) {
		copy_str(val, sizeof(val), v, vn);
		return put_meta(q, VM_GPU_NAME, ent, val);
	}
	if (lv == 1 && is(key, "Remapped Rows")) {
		/* "N/A" on cards without row remapping */
		return 0;
	}
	if (lv == 2 && is(sec, "FB Memory Usage")) {
		static const struct { const char *k; enum vocab_series v; } fb[] = {
			{ "Total", VS_GPU_TOTAL_BYTES }, { "Reserved", VS_GPU_RESERVED_BYTES },
			{ "Used", VS_GPU_USED_BYTES }, { "Free", VS_GPU_FREE_BYTES } };
		size_t i;
		if ((x = size_of(v, vn)) == OL_NULL)
			return 0;
		for (i = 0; i < sizeof(fb) / sizeof(fb[0]); i++)
			if (is(key, fb[i].k)) {
				if (put_sample(q, fb[i].v, ent, (double)x) < 0)
					return -1;
				if (fb[i].v == VS_GPU_TOTAL_BYTES) {
					snprintf(val, sizeof(val), "%lld", (long long)x);
					if (note_gpu_total(q->s, &q->total_seen, (unsigned)q->gpu, val) < 0)
						return -1;
				}
			}
		return 0;
	}
	if (lv == 2 && is(sec, "BAR1 Memory Usage") && is(key, "Used")) {
		if ((x = size_of(v, vn)) == OL_NULL)
			return 0;
		return put_sample(q, VS_GPU_BAR1_USED_BYTES, ent, (double)x);
	}
	if (is(sec, "Processes")) {
		if (lv == 2 && is(key, "Process ID")) {
			q->pid = count_of(v, vn);
			q->pname[0] = 0;
		} else if (lv == 3 && is(key, "Name")) {
			copy_str(q->pname, sizeof(q->pname), v, vn);
		} else if (lv == 3 && is(key, "Used GPU Memory") && q->pid != OL_NULL &&
			   (x = size_of(v, vn)) != OL_NULL) {
			char pent[64];
			snprintf(pent, sizeof(pent), "gpu%d/pid:%lld", q->gpu, (long long)q->pid);
			if (put_sample(q, VS_GPU_PROC_USED_BYTES, pent, (double)x) < 0 ||
			    (q->pname[0] && put_meta(q, VM_GPU_PROC_NAME, pent, q->pname) < 0))
				return -1;
		}
		return 0;
	}
	if (is(sec, "ECC Errors") && lv >= 3) {
		int agg = is(q->keys[2], "Aggregate");
		if (!is(q->keys[2], "Volatile") && !agg)
			return 0;
		if ((x = count_of(v, vn)) == OL_NULL)
			return 0;
		if (strstr(key, "Uncorrectable") ||
		    (lv == 4 && is(key, "Total") && !strncmp(q->keys[3], "Double Bit", 10)))
			add(&q->ecc_uncorr[agg], x);
		else if (strstr(key, "Correctable") ||
			 (lv == 4 && is(key, "Total") && !strncmp(q->keys[3], "Single Bit", 10)))
			add(&q->ecc_corr[agg], x);
		return 0;
	}
	if (is(sec, "Retired Pages") && lv == 2) {
		if (is(key, "Single Bit ECC"))
			q->retired_sbe = count_of(v, vn);
		else if (is(key, "Double Bit ECC"))
			q->retired_dbe = count_of(v, vn);
		else if (!strncmp(key, "Pending", 7) && vn && !(vn == 3 && !memcmp(v, "N/A", 3)))
			copy_str(q->retired_pending, sizeof(q->retired_pending), v, vn);
		return 0;
	}
	if (is(sec, "Remapped Rows") && lv == 2) {
		if (is(key, "Correctable Error"))
			q->remap_corr = count_of(v, vn);
		else if (is(key, "Uncorrectable Error"))
			q->remap_uncorr = count_of(v, vn);
		else if (is(key, "Pending"))
			copy_str(q->remap_pending, sizeof(q->remap_pending), v, vn);
		else if (is(key, "Remapping Failure Occurred"))
			copy_str(q->remap_failed, sizeof(q->remap_failed), v, vn);
	}
	return 0;
}

int nvsmi_q_line(struct nvsmi_q *q, const char *l, size_t n)
{
	const char *e, *colon, *v = NULL;
	char key[48];
	size_t ind = 0, kn, vn = 0;
	int lv;

	n = trim_end(l, n);
	if (n >= sizeof(BANNER) - 1 && !memcmp(l, BANNER, sizeof(BANNER) - 1)) {
		if (card_close(q) < 0)
			return -1;
		q->gpu = -1;
		q->ngpu_log = 0;
		q->t = ol_time_none();
		return 0;
	}
	while (ind < n && l[ind] == ' ')
		ind++;
	if (ind == n)
		return 0;
	lv = (int)(ind / 4);
	if (lv >= NVSMI_Q_DEPTH)
		return 0;
	e = l + n;
	colon = memchr(l + ind, ':', n - ind);
	/* "GPU 00000000:01:00.0" has colons but no " : " */
	while (colon && !(colon > l + ind && colon[-1] == ' '))
		colon = memchr(colon + 1, ':', (size_t)(e - colon - 1));
	kn = trim_end(l + ind, (size_t)((colon ? colon : e) - (l + ind)));
	copy_str(key, sizeof(key), l + ind, kn);
	if (colon) {
		v = colon + 1;
		while (v < e && *v == ' ')
			v++;
		vn = (size_t)(e - v);
	}
	strcpy(q->keys[lv], key);
	for (int i = lv + 1; i < NVSMI_Q_DEPTH; i++)
		q->keys[i][0] = 0;
	if (lv == 0) {
		char val[64];
		if (!colon && !strncmp(key, "GPU ", 4)) {
			char ent[16];
			if (card_close(q) < 0)
				return -1;
			q->gpu = q->ngpu_log++;
			snprintf(ent, sizeof(ent), "gpu%d", q->gpu);
			return put_meta(q, VM_GPU_PCI_BUS_ID, ent, key + 4);
		}
		if (!colon)
			return 0;
		q->gpu = q->gpu < 0 ? -1 : q->gpu;
		if (is(key, "Timestamp")) {
			int64_t t = ctime_of(v, vn);
			if (t != OL_NULL) {
				q->t = wall_time(q->s, t);
				if (note_local_clock(q->s, &q->t, &q->noted_local) < 0)
					return -1;
			}
		} else if (is(key, "Driver Version") && vn) {
			copy_str(val, sizeof(val), v, vn);
			return put_meta(q, VM_CUDA_DRIVER_VERSION, NULL, val);
		} else if (is(key, "CUDA Version") && vn) {
			copy_str(val, sizeof(val), v, vn);
			return put_meta(q, VM_CUDA_VERSION, NULL, val);
		}
		return 0;
	}
	if (q->gpu < 0 || !colon)
		return 0;
	return card_leaf(q, lv, key, v, vn);
}

int nvsmi_q_end(struct nvsmi_q *q)
{
	if (card_close(q) < 0)
		return -1;
	return q->n;
}

int nvsmi_q_sniff(const unsigned char *head, size_t n)
{
	const char *b = mem_find((const char *)head, n, BANNER);

	if (!b)
		return 0;
	/* the banner, then a Timestamp or a GPU block */
	if (mem_find(b, n - (size_t)((const unsigned char *)b - head), "Attached GPUs") ||
	    mem_find(b, n - (size_t)((const unsigned char *)b - head), "Timestamp"))
		return 90;
	return 60;
}

int nvsmi_q_parse(struct input *in, struct sink *s)
{
	struct nvsmi_q q;
	const char *line;
	size_t len;
	int rc;

	nvsmi_q_init(&q, s);
	while ((rc = input_getline(in, &line, &len)) == 1) {
		q.line = in->lineno;
		if (nvsmi_q_line(&q, line, len) < 0)
			return -1;
	}
	if (rc < 0 && sink_diagf(s, in->lineno, 0, OL_ERROR, "read error after line %llu",
				 (unsigned long long)in->lineno) < 0)
		return -1;
	return nvsmi_q_end(&q);
}

/*
 * nvbug.c -- an nvidia-bug-report.log, section by section; see nvbug.h.
 *
 * Layout learnt from real reports (script versions 20083567 of 2015 to
 * 31295035 of 2022): a line of 44 underscores, an empty line, the title
 * (a command such as "/usr/bin/nvidia-smi --query", "dmesg:", "Scanning
 * kernel log files for NVIDIA kernel messages:", 'base64 "name"', or
 * "*** /proc/meminfo"), then the body. Inside a section, "*** /path"
 * lines open a file's own block; "*** ls: ... 2017-09-07 10:55:16.86
 * +0800 /path" lines give the file's time with the host's zone. The
 * first section carries "Date:" (the shell's date, locale and all) and
 * "uname:".
 */
#include "parsers/bundles/nvbug.h"
#include "parsers/bundles/nvsmi_q.h"
#include "parsers/kernel/kernel_oom.h"
#include "parsers/common/seriesutil.h"
#include "lib/timeutil.h"
#include "lib/vocab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum sec { SEC_HEAD, SEC_OTHER, SEC_SMI, SEC_KERNEL, SEC_DMESG, SEC_B64 };

struct nvbug {
	struct sink *s;
	struct input *in;
	struct nvsmi_q q;
	struct kparse *kp;
	enum sec sec;
	int want_title;            /* the next non-empty line is a title */
	int in_meminfo;            /* inside a "*** /proc/meminfo" block */
	int64_t date_wall;         /* Date: as wall clock, OL_NULL if unread */
	int date_off_known;
	int32_t date_off;          /* Date:'s zone from its abbreviation */
	char date_text[80];
	int64_t ls_wall;           /* the newest "*** ls:" time, wall clock */
	int32_t ls_off;
	int64_t last_uptime_ns;    /* the last dmesg line's stamp */
	int64_t mem[4];            /* MemTotal, MemAvailable, SwapTotal, SwapFree (bytes) */
	int n;
};

static int is_separator(const char *l, size_t n)
{
	size_t i;

	if (n < 40)
		return 0;
	for (i = 0; i < n; i++)
		if (l[i] != '_')
			return 0;
	return 1;
}

int nvbug_sniff(const unsigned char *head, size_t n)
{
	if (mem_find((const char *)head, n, "Start of NVIDIA bug report log file"))
		return 100;
	if (mem_find((const char *)head, n, "nvidia-bug-report.sh Version:"))
		return 95;
	return 0;
}

/* Zones a Date: line names that mean one offset. */
static int zone_offset(const char *z, int32_t *off)
{
	static const struct { const char *n; int h; } zones[] = {
		{ "UTC", 0 }, { "GMT", 0 }, { "EST", -5 }, { "EDT", -4 }, { "CDT", -5 },
		{ "MST", -7 }, { "MDT", -6 }, { "PST", -8 }, { "PDT", -7 }, { "CET", 1 },
		{ "CEST", 2 }, { "EET", 2 }, { "EEST", 3 }, { "JST", 9 }, { "KST", 9 } };
	size_t i;

	for (i = 0; i < sizeof(zones) / sizeof(zones[0]); i++)
		if (!strcmp(z, zones[i].n)) {
			*off = zones[i].h * 3600;
			return 1;
		}
	return 0;
}

/* "Date: Thu Sep  7 10:55:12 CST 2017" (C locale): the wall time and,
 * when the zone names one offset, that. Other locales are left unread. */
static void read_date(struct nvbug *b, const char *v, size_t n)
{
	char buf[80], zone[8] = "";
	int d, h, mi, se, y, mon;
	char wd[8], ms[8];

	copy_str(b->date_text, sizeof(b->date_text), v, n);
	copy_str(buf, sizeof(buf), v, n);
	if (sscanf(buf, "%7s %7s %d %d:%d:%d %7s %d", wd, ms, &d, &h, &mi, &se, zone, &y) == 8 &&
	    (mon = month_from_name(ms, strlen(ms))) && y > 1990) {
		b->date_wall = utc_ns(y, mon, d, h, mi, se, 0);
		b->date_off_known = zone_offset(zone, &b->date_off);
	}
}

/* "*** ls: -r--r--r-- 1 root root 0 2017-09-07 10:55:16.864049071 +0800
 * /proc/meminfo": keep the newest time with its offset. */
static void read_ls(struct nvbug *b, const char *l, size_t n)
{
	const char *p, *e = l + n;
	int y, mo, d, h, mi, se, sign, oh, om;

	for (p = l; p + 37 <= e; p++) {
		char buf[64];
		const char *z;
		if (p[4] != '-' || p[7] != '-' || p[10] != ' ' || p[13] != ':')
			continue;
		copy_str(buf, sizeof(buf), p, (size_t)(e - p));
		if (sscanf(buf, "%4d-%2d-%2d %2d:%2d:%2d", &y, &mo, &d, &h, &mi, &se) != 6)
			continue;
		z = memchr(p + 19, ' ', (size_t)(e - p - 19));
		if (!z || z + 6 > e || (z[1] != '+' && z[1] != '-'))
			return;
		sign = z[1] == '-' ? -1 : 1;
		if (sscanf(z + 2, "%2d%2d", &oh, &om) != 2)
			return;
		{
			int64_t w = utc_ns(y, mo, d, h, mi, se, 0);
			if (w >= 0 && (b->ls_wall == OL_NULL || w > b->ls_wall)) {
				b->ls_wall = w;
				b->ls_off = sign * (oh * 3600 + om * 60);
			}
		}
		return;
	}
}

/* A title line: which reader its section goes to. */
static enum sec section_of(const char *l, size_t n)
{
	if (n >= 11 && !memcmp(l, "Start of NV", 11))
		return SEC_HEAD;
	if (mem_find(l, n, "nvidia-smi --query") || mem_find(l, n, "nvidia-smi -q"))
		return SEC_SMI;
	if (n >= 6 && !memcmp(l, "dmesg:", 6))
		return SEC_DMESG;
	if (n >= 25 && !memcmp(l, "Scanning kernel log files", 25))
		return SEC_KERNEL;
	if (n >= 8 && !memcmp(l, "base64 \"", 8))
		return SEC_B64;
	return SEC_OTHER;
}

/* A /proc/meminfo line: the four figures kept. */
static void meminfo_line(struct nvbug *b, const char *l, size_t n)
{
	static const char *keys[4] = { "MemTotal:", "MemAvailable:", "SwapTotal:", "SwapFree:" };
	int i;

	for (i = 0; i < 4; i++) {
		size_t k = strlen(keys[i]), used;
		int64_t kb;
		if (n > k && !memcmp(l, keys[i], k) &&
		    parse_uint_commas(l + k + strspn(l + k, " "), n - k - strspn(l + k, " "),
				      &kb, &used) == 0 && kb >= 0 && kb <= INT64_MAX / 1024)
			b->mem[i] = kb * 1024;   /* larger than any memory: not a figure */
	}
}

/* "[ 7330.912345] ...": the stamp in ns, or OL_NULL. */
static int64_t uptime_of(const char *l, size_t n)
{
	char buf[32];
	double sec;

	if (n < 4 || l[0] != '[')
		return OL_NULL;
	copy_str(buf, sizeof(buf), l + 1, n - 1);
	if (sscanf(buf, "%lf]", &sec) != 1 || sec < 0 || sec > 1e9)
		return OL_NULL;
	return (int64_t)(sec * 1e9);
}

static int line(struct nvbug *b, const char *l, size_t n)
{
	if (is_separator(l, n)) {
		b->want_title = 1;
		b->in_meminfo = 0;
		return 0;
	}
	if (b->want_title) {
		if (!n)
			return 0;
		b->want_title = 0;
		b->sec = section_of(l, n);
		if (b->sec == SEC_B64) {
			char name[96];
			copy_str(name, sizeof(name), l + 7, n - 7);
			return sink_diagf(b->s, b->in->lineno, 0, OL_INFO, "section base64 %s:"
					  " binary (an NVML or debug dump), not read", name) < 0 ? -1 : 0;
		}
	}
	if (n >= 6 && !memcmp(l, "Date: ", 6) && b->sec == SEC_HEAD) {
		read_date(b, l + 6, n - 6);
		return 0;
	}
	if (n >= 8 && !memcmp(l, "*** ls: ", 8)) {
		read_ls(b, l, n);
		return 0;
	}
	if (n >= 4 && !memcmp(l, "*** ", 4)) {
		b->in_meminfo = n == 17 && !memcmp(l + 4, "/proc/meminfo", 13);
		return 0;
	}
	if (b->in_meminfo) {
		meminfo_line(b, l, n);
		return 0;
	}
	switch (b->sec) {
	case SEC_SMI:
		return nvsmi_q_line(&b->q, l, n);
	case SEC_DMESG: {
		int64_t u = uptime_of(l, n);
		if (u != OL_NULL)
			b->last_uptime_ns = u;
	}
		/* fall through */
	case SEC_KERNEL:
		return kernel_feed_line(b->kp, l, n);
	default:
		return 0;
	}
}

/* The report's time in UTC, with how it was known in how; OL_NULL when
 * no zone is known. */
static int64_t report_utc(struct nvbug *b, char *how, size_t hn)
{
	const struct ingest_opts *o = b->s->opts;

	if (b->date_wall != OL_NULL && b->date_off_known) {
		snprintf(how, hn, "its Date: %s", b->date_text);
		return b->date_wall - (int64_t)b->date_off * 1000000000;
	}
	if (b->date_wall != OL_NULL && b->ls_wall != OL_NULL) {
		snprintf(how, hn, "its Date: %s, zone %+03d:%02d from its newest file time",
			 b->date_text, b->ls_off / 3600, abs(b->ls_off % 3600) / 60);
		return b->date_wall - (int64_t)b->ls_off * 1000000000;
	}
	if (b->date_wall != OL_NULL && o && o->tz_known) {
		snprintf(how, hn, "its Date: %s, zone from --tz", b->date_text);
		return b->date_wall - (int64_t)o->tz_offset_s * 1000000000;
	}
	if (b->ls_wall != OL_NULL) {
		snprintf(how, hn, "its newest file time (Date: %s not read)", b->date_text);
		return b->ls_wall - (int64_t)b->ls_off * 1000000000;
	}
	return OL_NULL;
}

/* The end: the host's memory at the report's time, and the anchor that
 * places the dmesg stamps. -1 when the sink failed. */
static int finish(struct nvbug *b)
{
	char how[256], why[512], v[32];
	int64_t t = report_utc(b, how, sizeof(how));
	struct ol_time at = ol_time_none();

	if (t != OL_NULL) {
		at.clock = OL_CLOCK_UTC;
		at.utc_ns = t;
	}
	if (b->mem[0] != OL_NULL) {
		snprintf(v, sizeof(v), "%lld", (long long)b->mem[0]);
		if (sink_meta(b->s, vocab_meta_key(VM_HOST_MEM_TOTAL_BYTES), v) < 0)
			return -1;
		b->n++;
	}
	if (b->mem[2] != OL_NULL) {
		snprintf(v, sizeof(v), "%lld", (long long)b->mem[2]);
		if (sink_meta(b->s, vocab_meta_key(VM_HOST_SWAP_TOTAL_BYTES), v) < 0)
			return -1;
		b->n++;
	}
	if (t != OL_NULL && b->mem[1] != OL_NULL) {
		if (su_put_sample(b->s, vocab_series_name(VS_HOST_MEM_AVAILABLE_BYTES), "bytes",
				  "host", &at, (double)b->mem[1]) < 0)
			return -1;
		b->n++;
	}
	if (t != OL_NULL && b->mem[3] != OL_NULL) {
		if (su_put_sample(b->s, vocab_series_name(VS_HOST_SWAP_FREE_BYTES), "bytes",
				  "host", &at, (double)b->mem[3]) < 0)
			return -1;
		b->n++;
	}
	if (b->last_uptime_ns == OL_NULL)
		return 0;
	if (t == OL_NULL)
		return sink_diagf(b->s, 0, 0, OL_INFO, "dmesg times not placed on UTC: the report's"
				  " Date: (%s) names no zone oomlens knows and no file time gives one;"
				  " give --boot-time or --tz", b->date_text[0] ? b->date_text : "none")
			< 0 ? -1 : 0;
	snprintf(why, sizeof(why), "inferred: nvidia-bug-report time (%s) taken as the time of"
		 " its last dmesg line (the kernel may have been quiet before the report ran:"
		 " times may be placed late)", how);
	return sink_anchor(b->s, NULL, b->last_uptime_ns, t, why) < 0 ? -1 : 0;
}

int nvbug_parse(struct input *in, struct sink *s)
{
	struct nvbug *b = calloc(1, sizeof(*b));
	const char *l;
	size_t n;
	int rc, k, result = -1;

	if (!b)
		return -1;
	b->s = s;
	b->in = in;
	b->sec = SEC_HEAD;
	b->date_wall = b->ls_wall = b->last_uptime_ns = OL_NULL;
	for (k = 0; k < 4; k++)
		b->mem[k] = OL_NULL;
	nvsmi_q_init(&b->q, s);
	if (!(b->kp = kernel_feed_new(in, s))) {
		free(b);
		return -1;
	}
	while ((rc = input_getline(in, &l, &n)) == 1) {
		b->q.line = in->lineno;
		if (line(b, l, n) < 0) {
			kernel_feed_end(b->kp);
			free(b);
			return -1;
		}
	}
	if (rc < 0)
		sink_diagf(s, in->lineno, 0, OL_ERROR, "read error after line %llu",
			   (unsigned long long)in->lineno);
	k = kernel_feed_end(b->kp);
	if (k >= 0 && (rc = nvsmi_q_end(&b->q)) >= 0 && finish(b) == 0)
		result = k + rc + b->n;
	free(b);
	return result;
}

/*
 * procmem.c -- copies of /proc/meminfo, /proc/buddyinfo, /proc/slabinfo
 * and free(1)'s output into host facts; see procmem.h.
 *
 * Each is a small table read line by line; lines that do not have the
 * table's shape are warned about and skipped, never guessed at.
 */
#include "parsers/host/procmem.h"
#include "parsers/common/textclean.h"
#include "lib/vocab.h"
#include "parsers/common/seriesutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLAB_TOP 10

/* Store meta prefix var = the decimal v. Returns 0, or -1 (sink). */
static int put_num(struct sink *s, enum vocab_meta m, const char *var, long long v, int *n)
{
	char key[200], val[32];

	snprintf(key, sizeof(key), "%s%s", vocab_meta_key(m), var ? var : "");
	snprintf(val, sizeof(val), "%lld", v);
	if (sink_meta(s, key, val) < 0)
		return -1;
	(*n)++;
	return 0;
}

static int read_error(struct input *in, struct sink *s, int rc)
{
	if (rc < 0 && sink_diagf(s, in->lineno, 0, OL_ERROR, "read error after line %llu",
				 (unsigned long long)in->lineno) < 0)
		return -1;
	return 0;
}

/* ---- /proc/meminfo ---- */

int meminfo_sniff(const unsigned char *head, size_t n)
{
	return n > 9 && !memcmp(head, "MemTotal:", 9) && memmem(head, n, "\nMemFree:", 9) ? 90 : 0;
}

int meminfo_parse(struct input *in, struct sink *s)
{
	const char *l;
	size_t len;
	int rc, n = 0;

	while ((rc = input_getline(in, &l, &len)) == 1) {
		char buf[160], *w[4], field[64];
		int k = text_words(l, len, buf, sizeof(buf), w, 4);
		size_t fl = k ? strlen(w[0]) : 0;
		long long v;
		if (!k)
			continue;
		if (k < 2 || fl < 2 || fl > sizeof(field) || w[0][fl - 1] != ':' ||
		    (v = text_whole(w[1])) < 0 || (k == 3 && strcmp(w[2], "kB")) || k > 3 ||
		    (k == 3 && v > INT64_MAX / 1024)) {   /* past int64 bytes: no figure */
			if (sink_diagf(s, in->lineno, 0, OL_WARN, "line %llu: expected \"Field: N kB\";"
				       " skipped", (unsigned long long)in->lineno) < 0)
				return -1;
			continue;
		}
		memcpy(field, w[0], fl - 1);
		field[fl - 1] = 0;
		if (k == 3)
			v *= 1024;
		if (put_num(s, VM_HOST_MEMINFO, field, v, &n) < 0)
			return -1;
		if (!strcmp(field, "MemTotal") && put_num(s, VM_HOST_MEM_TOTAL_BYTES, NULL, v, &n) < 0)
			return -1;
		if (!strcmp(field, "SwapTotal") && put_num(s, VM_HOST_SWAP_TOTAL_BYTES, NULL, v, &n) < 0)
			return -1;
	}
	return read_error(in, s, rc) < 0 ? -1 : n;
}

/* ---- free(1) ---- */

/* The unit free(1) printed its figures in, as its command line says
 * (procps-ng src/free.c @v4.0.4, and 3.3.x's free.c): KiB unless told
 * otherwise; -b/--bytes, -k/--kibi, -m/--mebi, -g/--gibi, --tebi, --pebi
 * powers of 1024; --kilo, --mega, --giga, --tera, --peta (and --si with
 * any of them) powers of 1000; -h/--human a suffix on every figure (B,
 * Ki, Mi, Gi...; K, M, G with --si and in 3.3.9 and older). */
struct free_unit {
	double mult;     /* bytes per bare figure */
	int si;          /* --si, or a power of 1000 named: -h suffixes by 1000 */
	int human;       /* -h */
	char flags[40];  /* the unit options as echoed, for the diagnostic */
};

/* Is line l (n bytes) a shell command that runs free, after a prompt or
 * none ("free -g", "$ free --giga -s 1800", "[u@h ~]$ free -h")? Its
 * options set *u. Every word after "free" must be an option or the
 * number an option takes; anything else (a pipe, a file) and it is not
 * free's own output. 1 or 0. */
static int free_command(const char *l, size_t n, struct free_unit *u)
{
	static const struct { const char *opt; char c; int exp, si; } units[] = {
		{ "--bytes", 'b', 0, 0 }, { "--kibi", 'k', 1, 0 }, { "--mebi", 'm', 2, 0 },
		{ "--gibi", 'g', 3, 0 }, { "--tebi", 0, 4, 0 }, { "--pebi", 0, 5, 0 },
		{ "--kilo", 0, 1, 1 }, { "--mega", 0, 2, 1 }, { "--giga", 0, 3, 1 },
		{ "--tera", 0, 4, 1 }, { "--peta", 0, 5, 1 },
	};
	char buf[256], *w[16];
	int k, i, at = -1, exp = 1, si = 0;
	size_t j;

	if (n >= sizeof(buf))
		return 0;
	k = text_words(l, n, buf, sizeof(buf), w, 16);
	for (i = 0; i < k && at < 0; i++) {
		/* "free" first, after a prompt word ending in '$', '#' or '>', or
		 * glued to the prompt's sign ("$free") */
		int glued = w[i][0] && strchr("$#>", w[i][0]) && !strcmp(w[i] + 1, "free");
		if (glued || (!strcmp(w[i], "free") &&
			      (i == 0 || (w[i - 1][0] &&
			       strchr("$#>", w[i - 1][strlen(w[i - 1]) - 1])))))
			at = i;
	}
	if (at < 0)
		return 0;
	memset(u, 0, sizeof(*u));
	for (i = at + 1; i < k; i++) {
		const char *o = w[i];
		if (o[0] != '-') {
			if (o[0] >= '0' && o[0] <= '9' && i > at + 1)
				continue;  /* -s N, -c N */
			return 0;
		}
		if (!strcmp(o, "--si")) {
			si = 1;
			continue;
		}
		if (!strcmp(o, "--human")) {
			u->human = 1;
			continue;
		}
		for (j = 0; j < sizeof(units) / sizeof(units[0]); j++)
			if (!strcmp(o, units[j].opt)) {
				exp = units[j].exp;
				si |= units[j].si;
				snprintf(u->flags, sizeof(u->flags), "%s", o);
			}
		if (o[1] == '-')
			continue;  /* --seconds, --count, --total, --wide... */
		for (j = 1; o[j]; j++) {   /* a cluster of short options: -gt, -hw */
			size_t x;
			if (o[j] == 'h')
				u->human = 1;
			for (x = 0; x < sizeof(units) / sizeof(units[0]); x++)
				if (units[x].c && o[j] == units[x].c) {
					exp = units[x].exp;
					snprintf(u->flags, sizeof(u->flags), "-%c", o[j]);
				}
		}
	}
	u->si = si;
	u->mult = 1;
	while (exp-- > 0)
		u->mult *= si ? 1000 : 1024;
	if (!u->flags[0])
		snprintf(u->flags, sizeof(u->flags), "%s", u->human ? "-h" : "no unit option: KiB");
	return 1;
}


/* Is line l (n bytes) a header of free's table ("total", "used" and
 * "free" in it)? */
static int free_header(const unsigned char *l, size_t n)
{
	return memmem(l, n, "total", 5) && memmem(l, n, "used", 4) && memmem(l, n, "free", 4);
}

int free_out_sniff(const unsigned char *head, size_t n)
{
	const unsigned char *nl = memchr(head, '\n', n);
	size_t l = nl ? (size_t)(nl - head) : n;
	struct free_unit u;

	/* the command echoed above the table: "$ free -g", "root@h:~# free -h" */
	if (nl && free_command((const char *)head, l, &u)) {
		head = nl + 1;
		n -= l + 1;
		nl = memchr(head, '\n', n);
		l = nl ? (size_t)(nl - head) : n;
	}
	if (!nl || !free_header(head, l))
		return 0;
	return n - l > 5 && !memcmp(nl + 1, "Mem:", 4) ? 90 : 0;
}

/* A figure of free's table in bytes: a whole number in the table's unit
 * (mult bytes each), or free -h's number with its suffix (procps-ng
 * free.c prints B, Ki, Mi, Gi, Ti, Pi; 3.3.9 and older B, K, M, G, T;
 * with --si K, M, G... by 1000, si). -1 when w is not one or its bytes
 * overflow. */
static double free_fig(const char *w, double mult, int si)
{
	static const char sfx[] = "BKMGTP";
	const char *p;
	char *end;
	double v;
	int e;

	if (*w < '0' || *w > '9')
		return -1;
	v = strtod(w, &end);
	if (!*end)
		return strchr(w, '.') ? -1 : v * mult;
	if (!(p = strchr(sfx, end[0])) || (end[1] && (end[1] != 'i' || end[2] || end[0] == 'B')))
		return -1;
	for (e = 0; e < p - sfx; e++)
		v *= si && !end[1] ? 1000 : 1024;
	return v < 9.2e18 ? v : -1;
}

/* Bytes per bare figure of a table whose command line is not in the
 * paste, from the Mem total (w1, as printed), said in an INFO diagnostic
 * when not KiB (once a file: *said): a guess, and the diagnostic says so.
 * free prints KiB unless an option says otherwise (procps-ng free.c: -k
 * is the default). A total of 2^20 or more is KiB: a host of 1 GiB and
 * up, where MiB would be 1 TiB and up. Under 256 it is read as GiB (free
 * -g, or --giga by 10^9: within 7 %); from 256 up, MiB (free -m): a host
 * of 256 GiB or more printed with -g, or one under 1 GiB printed in KiB,
 * is the ambiguity the label owns up to. -1 when the sink failed. */
static double free_guess(struct input *in, struct sink *s, const char *w1, int *said)
{
	long long t = text_whole(w1);

	if (t < 0 || t >= (1ll << 20))
		return 1024;
	if (!(*said)++ && sink_diagf(s, in->lineno, 0, OL_INFO, "Mem total %s is read as %s; free prints"
		       " no unit and the paste shows no command line (a guess)", w1,
		       t < 256 ? "GiB (free -g)" : "MiB (free -m)") < 0)
		return -1;
	return t < 256 ? 1073741824.0 : 1048576.0;
}

/* The name of a bare figure's unit, mult bytes (by 1000 when si):
 * "KiB", "MB"...; "" for none of them. */
static const char *free_unit_name(double mult, int si)
{
	static const char *const bin[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	static const char *const dec[] = { "B", "kB", "MB", "GB", "TB", "PB" };
	double m = 1;
	int e;

	for (e = 0; e < 6; e++, m *= si ? 1000 : 1024)
		if (m == mult)
			return si ? dec[e] : bin[e];
	return "";
}

/* Record the paste's unit once it is read: meta host.free_unit (the Mem
 * tables' unit, "suffix" for free -h, "mixed" when they differ) and
 * host.free_unit_by (command_line, suffix, guess, mixed). A guess is a
 * stored fact so that analyzer/derive/freeunit.c can check it against a
 * RAM total another artifact states. 0, or -1 (sink). */
static int free_unit_meta(struct sink *s, const char *unit, const char *by, int *n)
{
	if (!unit[0])
		return 0;
	if (sink_meta(s, vocab_meta_key(VM_HOST_FREE_UNIT), unit) < 0 ||
	    sink_meta(s, vocab_meta_key(VM_HOST_FREE_UNIT_BY), by) < 0)
		return -1;
	*n += 2;
	return 0;
}

/* free(1)'s table: a header of column names, then rows "Mem:", "Swap:"
 * (and "Low:", "High:", "Total:" with -l, -t). A header seen again starts
 * the next table of the same run (free -s N prints one a interval). The
 * command echoed above a table ("$ free -g") states its unit; without
 * one the unit is guessed from the Mem total (free_guess). Each table's
 * Mem used is one sample of host.mem_used_bytes (entity host), untimed:
 * free -s prints no clock, so the order is the file's. */
int free_out_parse(struct input *in, struct sink *s)
{
	char hbuf[256], *cols[12];
	const char *l;
	size_t len;
	int rc, n = 0, ncol = -1, said = 0, stated = 0, told = 0;
	double mult = 1024;
	struct free_unit u = { 1024, 0, 0, "" };
	struct ol_time none = ol_time_none();
	char unit[8] = "", by[16] = "";

	while ((rc = input_getline(in, &l, &len)) == 1) {
		char buf[256], *w[13], row[16], var[64];
		int k = text_words(l, len, buf, sizeof(buf), w, 13), i;
		size_t rl;
		if (!k)
			continue;
		if (w[0][0] && w[0][strlen(w[0]) - 1] != ':' && free_command(l, len, &u)) {
			stated = 1;   /* the next table's unit, as the command line says */
			told = 0;
			continue;
		}
		if (ncol < 0 || (!strcmp(w[0], "total") && k > 2 && !strcmp(w[1], "used"))) {
			/* the header: the column names */
			ncol = text_words(l, len, hbuf, sizeof(hbuf), cols, 12);
			continue;
		}
		rl = strlen(w[0]);
		if (rl < 2 || rl >= sizeof(row) || w[0][rl - 1] != ':' || k - 1 > ncol) {
			if (sink_diagf(s, in->lineno, 0, OL_WARN, "line %llu: expected a row of free's"
				       " table (\"Mem:\", \"Swap:\"); skipped",
				       (unsigned long long)in->lineno) < 0)
				return -1;
			continue;
		}
		memcpy(row, w[0], rl - 1);
		row[rl - 1] = 0;
		if (!strcmp(row, "Mem") && k > 1) {
			if (stated)
				mult = u.mult;
			else if ((mult = free_guess(in, s, w[1], &said)) < 0)
				return -1;
			if (stated && !told++ && sink_diagf(s, in->lineno, 0, OL_INFO, "Mem total %s is"
				       " read in the unit its command line states (free %s)", w[1],
				       u.flags) < 0)
				return -1;
			{
				/* this table's unit and what gave it; a paste whose
				 * tables differ is "mixed", never rescaled */
				int sfx = w[1][0] && (w[1][strlen(w[1]) - 1] < '0' ||
						      w[1][strlen(w[1]) - 1] > '9');
				const char *un = sfx ? "suffix" : free_unit_name(mult, stated && u.si);
				const char *b = sfx ? "suffix" : stated ? "command_line" : "guess";
				if (!unit[0]) {
					snprintf(unit, sizeof(unit), "%s", un);
					snprintf(by, sizeof(by), "%s", b);
				} else if (strcmp(unit, un) || strcmp(by, b)) {
					snprintf(unit, sizeof(unit), "mixed");
					snprintf(by, sizeof(by), "mixed");
				}
			}
		}
		for (i = 1; i < k; i++) {
			double v = free_fig(w[i], mult, stated && u.si);
			if (v < 0 || v > 9.2e18)
				continue;
			snprintf(var, sizeof(var), "%s.%s", row, cols[i - 1]);
			if (put_num(s, VM_HOST_FREE, var, (long long)v, &n) < 0)
				return -1;
			if (!strcmp(row, "Mem") && i == 1 &&
			    put_num(s, VM_HOST_MEM_TOTAL_BYTES, NULL, (long long)v, &n) < 0)
				return -1;
			if (!strcmp(row, "Mem") && !strcmp(cols[i - 1], "used")) {
				if (su_put_sample(s, vocab_series_name(VS_HOST_MEM_USED_BYTES), "bytes",
						  "host", &none, v) < 0)
					return -1;
				n++;
			}
		}
	}
	if (free_unit_meta(s, unit, by, &n) < 0)
		return -1;
	return read_error(in, s, rc) < 0 ? -1 : n;
}

/* ---- /proc/buddyinfo ---- */

int buddyinfo_sniff(const unsigned char *head, size_t n)
{
	return n > 12 && !memcmp(head, "Node ", 5) && memmem(head, n < 40 ? n : 40, ", zone ", 7)
		? 90 : 0;
}

int buddyinfo_parse(struct input *in, struct sink *s)
{
	const char *l;
	size_t len;
	int rc, n = 0;

	while ((rc = input_getline(in, &l, &len)) == 1) {
		char buf[512], *w[20], var[64], val[300];
		int k = text_words(l, len, buf, sizeof(buf), w, 20), i;
		size_t o = 0;
		if (!k)
			continue;
		if (k < 5 || strcmp(w[0], "Node") || strcmp(w[2], "zone")) {
			if (sink_diagf(s, in->lineno, 0, OL_WARN, "line %llu: expected \"Node N, zone"
				       " NAME counts...\"; skipped", (unsigned long long)in->lineno) < 0)
				return -1;
			continue;
		}
		w[1][strcspn(w[1], ",")] = 0;
		snprintf(var, sizeof(var), "%.8s/%.32s", w[1], w[3]);
		val[0] = 0;
		for (i = 4; i < k && o + 24 < sizeof(val); i++)
			o += (size_t)snprintf(val + o, sizeof(val) - o, "%s%s", i > 4 ? " " : "", w[i]);
		{
			char key[128];
			snprintf(key, sizeof(key), "%s%s", vocab_meta_key(VM_HOST_BUDDYINFO), var);
			if (sink_meta(s, key, val) < 0)
				return -1;
			n++;
		}
	}
	return read_error(in, s, rc) < 0 ? -1 : n;
}

/* ---- /proc/slabinfo ---- */

int slabinfo_sniff(const unsigned char *head, size_t n)
{
	return n > 19 && !memcmp(head, "slabinfo - version:", 19) ? 95 : 0;
}

struct slab {
	char name[64];
	long long bytes;
};

int slabinfo_parse(struct input *in, struct sink *s)
{
	struct slab top[SLAB_TOP];
	const char *l;
	size_t len;
	int rc, n = 0, ntop = 0, i;

	while ((rc = input_getline(in, &l, &len)) == 1) {
		char buf[512], *w[8];
		long long objs, size, bytes;
		int k = text_words(l, len, buf, sizeof(buf), w, 8), j;
		if (!k || w[0][0] == '#' || !strcmp(w[0], "slabinfo"))
			continue;
		/* name active_objs num_objs objsize objperslab pagesperslab : ... */
		if (k < 4 || (objs = text_whole(w[2])) < 0 || (size = text_whole(w[3])) < 0 ||
		    strlen(w[0]) >= sizeof(top[0].name) ||
		    (size && objs > INT64_MAX / size)) {   /* bytes past int64: no figure */
			if (sink_diagf(s, in->lineno, 0, OL_WARN, "line %llu: expected \"name"
				       " active_objs num_objs objsize ...\"; skipped",
				       (unsigned long long)in->lineno) < 0)
				return -1;
			continue;
		}
		bytes = objs * size;
		for (j = ntop; j > 0 && top[j - 1].bytes < bytes; j--)
			if (j < SLAB_TOP)
				top[j] = top[j - 1];
		if (j < SLAB_TOP) {
			snprintf(top[j].name, sizeof(top[j].name), "%s", w[0]);
			top[j].bytes = bytes;
			if (ntop < SLAB_TOP)
				ntop++;
		}
	}
	if (read_error(in, s, rc) < 0)
		return -1;
	for (i = 0; i < ntop; i++)
		if (put_num(s, VM_HOST_SLAB_BYTES, top[i].name, top[i].bytes, &n) < 0)
			return -1;
	return n;
}

/*
 * memsamples.c -- memory samples pasted as lines (see memsamples.h).
 *
 * Each line is split into tokens (whitespace, '=', ':', ',', '(', ')'
 * separate them). A labelled line has a label token (VmRSS, VmHWM,
 * RssAnon, RSS, RES, resident, memory, mem, used, memory.used) followed,
 * within the line, by the first unsigned number with a unit (B, K, KB,
 * KiB, M, MB, MiB, G, GB, Gb, GiB, T, TB, TiB; the unit may be its own
 * token). A table has a header line naming such a label as one of its
 * columns; its rows give the figure in that column (a bare number takes
 * the header's unit: "[MiB]", else KiB for ps/top's RSS and RES). A step
 * word (req, request, it, iter, iteration, step, epoch, batch) followed
 * by an integer, or a table's first column under such a word, numbers the
 * sample. A line with no figure of a unit whose label of unitless[] is
 * followed at once by a bare number gives that number in the unit the
 * line states as a word of its own ("(MB)"), else as printed, its unit
 * not stated (memsamples.h). Lines of any other shape are skipped.
 */
#include "parsers/host/memsamples.h"
#include "lib/vocab.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MS_TOK 48         /* tokens kept a line */
#define MS_LINE 512       /* bytes of a line read */
#define MS_MAX MEMSAMPLES_MAX
#define MS_DEV 16         /* a device's name: "gpu0", "rank3" */

struct ms_line {
	char buf[MS_LINE + 1];
	char *tok[MS_TOK];
	int n;
};

/* A table's column, once a header named it. */
struct ms_table {
	int col;               /* the figure's column, -1 none */
	int last;              /* it is the header's last column: a row's last figure */
	double unit;           /* a bare number's unit in bytes, 0 none */
	char per[16];          /* the first column's step word, "" none */
	char label[24];
};

static const char *const labels[] = {
	"vmrss", "vmhwm", "rssanon", "rss", "res", "resident", "memory", "mem", "used",
	"memory.used", NULL
};

/* Labels a script prints before a figure with no unit: TensorFlow's
 * tf.config.experimental.get_memory_info() dict keys "current" and
 * "peak" (tensorflow/python/framework/config.py@v2.17.0, bytes, which
 * scripts divide and print bare), PyTorch's torch.cuda.memory_allocated()
 * / memory_reserved() printed as "allocated: 1.23" (torch/cuda/memory.py),
 * and a plain "memory: 0.42". "peak" is not one: it is a running
 * maximum, not a sample. */
static const char *const unitless[] = {
	"current", "allocated", "reserved", "memory", "mem", "used",
	/* the function's own name printed as the label ("memory_allocated
	 * 7.16 memory_cached 19.1", pytorch/pytorch#31497's paste):
	 * memory_allocated, memory_reserved and its old name memory_cached,
	 * torch/cuda/memory.py@v2.5.0; max_memory_* is a running maximum */
	"memory_allocated", "memory_reserved", "memory_cached", NULL
};

static const char *const steps[][2] = {
	{ "req", "request" }, { "request", "request" }, { "requests", "request" },
	{ "it", "iteration" }, { "iter", "iteration" }, { "iteration", "iteration" },
	{ "step", "step" }, { "epoch", "epoch" }, { "batch", "batch" }, { NULL, NULL }
};

/* Split l (n bytes) into lower-cased tokens in t. */
static void split(const char *l, size_t n, struct ms_line *t)
{
	size_t i, o = 0;
	int in = 0;

	t->n = 0;
	if (n > MS_LINE)
		n = MS_LINE;
	for (i = 0; i < n; i++) {
		char ch = l[i];
		/* a clock's colons (10:00:00) stay inside their token */
		if (ch == ':' && i > 0 && i + 1 < n && isdigit((unsigned char)l[i - 1]) &&
		    isdigit((unsigned char)l[i + 1])) {
			if (!in) {
				if (t->n >= MS_TOK)
					break;
				t->tok[t->n++] = &t->buf[o];
				in = 1;
			}
			t->buf[o++] = ch;
			continue;
		}
		if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '=' || ch == ':' || ch == ',' ||
		    ch == '(' || ch == ')' || ch == '"' || ch == '|') {
			if (in)
				t->buf[o++] = 0;
			in = 0;
			continue;
		}
		if (!in) {
			if (t->n >= MS_TOK)
				break;
			t->tok[t->n++] = &t->buf[o];
			in = 1;
		}
		t->buf[o++] = (char)tolower((unsigned char)ch);
	}
	t->buf[o] = 0;
}

/* The label word tok is, or NULL. "memory.used [mib]" splits so the
 * label is "memory.used". A run's ordinal printed before the label with
 * a dot ("1.mem: 6.9Gi", a shell loop's "$i.mem: $(free -h ...)",
 * kaldi-asr/kaldi#4814) is skipped: the label is the word after it. */
static const char *label_of(const char *tok)
{
	int i;

	if (isdigit((unsigned char)tok[0])) {
		const char *p = tok;
		while (isdigit((unsigned char)*p))
			p++;
		if (*p != '.' || !isalpha((unsigned char)p[1]))
			return NULL;
		tok = p + 1;
	}
	for (i = 0; labels[i]; i++)
		if (!strcmp(tok, labels[i]))
			return labels[i];
	return NULL;
}

/* An integer token's value, or -1. */
static double whole(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	return end != s && (!*end || *end == '/') && v >= 0 ? (double)v : -1;
}

static const char *step_of(const char *tok)
{
	int i;

	for (i = 0; steps[i][0]; i++)
		if (!strcmp(tok, steps[i][0]))
			return steps[i][1];
	return NULL;
}

/* Units of work a count names after the number, as a script prints the
 * work done before a reading: "Memory usage after 3 prediction(s):
 * 349.023 MiB" (tensorflow/tensorflow#38598's memleak output, the "(s)"
 * split off), "RSS after 100 requests", "after 5 iterations". The
 * singular and the plural; a prediction or an inference is a request
 * served, named as printed. */
static const char *const counted[][2] = {
	{ "request", "request" }, { "requests", "request" }, { "call", "request" },
	{ "calls", "request" }, { "prediction", "prediction" },
	{ "predictions", "prediction" }, { "inference", "prediction" },
	{ "inferences", "prediction" }, { "iteration", "iteration" },
	{ "iterations", "iteration" }, { "step", "step" }, { "steps", "step" },
	{ "epoch", "epoch" }, { "epochs", "epoch" }, { "batch", "batch" },
	{ "batches", "batch" }, { NULL, NULL }
};

/* The work word of "after N <work>" at tok[k] ("after"), its count in
 * *v; NULL when tokens k.. are not of that shape. */
static const char *counted_at(const struct ms_line *t, int k, double *v)
{
	int i;

	if (k + 2 >= t->n || strcmp(t->tok[k], "after") || (*v = whole(t->tok[k + 1])) < 0 ||
	    strchr(t->tok[k + 1], '/'))
		return NULL;
	for (i = 0; counted[i][0]; i++)
		if (!strcmp(t->tok[k + 2], counted[i][0]))
			return counted[i][1];
	return NULL;
}

/* A unit's bytes (s whole), 0 when s is not one. */
static double unit_of(const char *s)
{
	static const struct { const char *u; double b; } u[] = {
		{ "b", 1 }, { "k", 1024.0 }, { "kb", 1024.0 }, { "kib", 1024.0 },
		{ "m", 1048576.0 }, { "mb", 1048576.0 }, { "mib", 1048576.0 },
		{ "g", 1073741824.0 }, { "gb", 1073741824.0 }, { "gib", 1073741824.0 },
		{ "t", 1099511627776.0 }, { "tb", 1099511627776.0 }, { "tib", 1099511627776.0 },
		/* IEC prefixes without the B: free -h, kubectl top, numfmt --to=iec
		 * ("6.9Gi", procps free.c@v4.0.4 scale_size) */
		{ "ki", 1024.0 }, { "mi", 1048576.0 }, { "gi", 1073741824.0 },
		{ "ti", 1099511627776.0 },
		{ NULL, 0 }
	};
	int i;

	for (i = 0; u[i].u; i++)
		if (!strcmp(s, u[i].u))
			return u[i].b;
	return 0;
}

/* A unit's bytes as a figure's unit token may close a bracketed group:
 * "[mem_usage =  3.41 GB]" (a script's f-string printing each epoch's
 * psutil RSS in brackets, tensorflow/tensorflow#62839), the bracket
 * dropped; 0 when s is not one. */
static double unit_closing(const char *s)
{
	char u[8];
	size_t m = strlen(s);

	if (m < 2 || m >= sizeof(u) || s[m - 1] != ']')
		return unit_of(s);
	memcpy(u, s, m - 1);
	u[m - 1] = 0;
	return unit_of(u);
}

/* The figure token k (and k + 1 as its unit) state, in bytes; dflt is a
 * bare number's unit (0: a unit is needed). Signed numbers are deltas.
 * Returns the bytes, or -1. */
static double figure(const struct ms_line *t, int k, double dflt)
{
	const char *s = t->tok[k];
	char *end;
	double v, u;

	if (!isdigit((unsigned char)s[0]))
		return -1;
	v = strtod(s, &end);
	if (end == s || v < 0)
		return -1;
	if (*end) {
		u = unit_closing(end);
	} else if (k + 1 < t->n && unit_closing(t->tok[k + 1]) > 0) {
		u = unit_closing(t->tok[k + 1]);
	} else {
		u = dflt;
	}
	return u > 0 ? v * u : -1;
}


/* Words before a label that make its figure something other than memory
 * held: a running maximum (max_memory_allocated, "peak memory"), a
 * capacity or a limit ("total memory", "memory limit" reads the other
 * way and is flat), or memory free, which falls as a leak grows. */
static const char *const not_held[] = {
	"max", "peak", "maximum", "total", "free", "available", "avail", "limit",
	"capacity", "reserved_max", NULL
};

static int is_not_held(const char *tok)
{
	int i;

	for (i = 0; not_held[i]; i++)
		if (!strcmp(tok, not_held[i]))
			return 1;
	return 0;
}

/* A column name that carries its label and its unit as parts joined by
 * '_' or '-', as a script's CSV header names them: "memory_usage_in_MiB"
 * (huggingface/sentence-transformers#1795's memleak.py output,
 * "iteration,memory_usage_in_MiB"), "rss_mb", "mem_used_mb". Returns the
 * label word of labels[] among its parts with the unit of the last part
 * that is one (two letters at least, or "bytes") in *unit; NULL when a
 * part is missing or a part of not_held[] ("max_rss_mb", "free_mb")
 * makes the column something other than memory held. */
static const char *compound_label(const char *tok, double *unit)
{
	char buf[64], *p, *next;
	const char *lab = NULL;
	double u = 0;

	if (!strchr(tok, '_') && !strchr(tok, '-'))
		return NULL;
	snprintf(buf, sizeof(buf), "%s", tok);
	for (p = buf; p; p = next) {
		size_t m = strcspn(p, "_-");
		next = p[m] ? p + m + 1 : NULL;
		p[m] = 0;
		if (is_not_held(p))
			return NULL;
		if (!lab && isalpha((unsigned char)p[0]) && label_of(p))
			lab = label_of(p);
		else if (strlen(p) >= 2 && unit_of(p) > 0)
			u = unit_of(p);
		else if (!strcmp(p, "bytes"))
			u = 1;
	}
	if (!lab || u <= 0)
		return NULL;
	*unit = u;
	return lab;
}

/* A header line: a label token among words, no figure. Fills tab. */
static int header(const struct ms_line *t, struct ms_table *tab)
{
	int k, col = -1;
	const char *lab = NULL;
	double named = 0;   /* the unit a compound column name states */

	if (t->n < 2)
		return 0;
	for (k = 0; k < t->n; k++) {
		if (isdigit((unsigned char)t->tok[k][0]))
			return 0;
		if (col < 0 && (lab = label_of(t->tok[k])) != NULL)
			col = k;
		else if (col < 0 && (lab = compound_label(t->tok[k], &named)) != NULL)
			col = k;
	}
	if (col < 0)
		return 0;
	tab->col = col;
	tab->unit = 0;
	tab->last = 1;
	for (k = col + 1; k < t->n; k++)
		if (t->tok[k][0] != '[')
			tab->last = 0;
	for (k = 0; k < t->n; k++)
		if (t->tok[k][0] == '[' && unit_of(t->tok[k] + 1) == 0) {
			char u[8];
			snprintf(u, sizeof(u), "%s", t->tok[k] + 1);
			u[strcspn(u, "]")] = 0;
			tab->unit = unit_of(u);
		}
	if (!tab->unit && named > 0)
		tab->unit = named;
	if (!tab->unit && (!strcmp(lab, "rss") || !strcmp(lab, "res")))
		tab->unit = 1024.0;   /* ps -o rss, top's RES: KiB */
	snprintf(tab->label, sizeof(tab->label), "%s", lab);
	snprintf(tab->per, sizeof(tab->per), "%s", step_of(t->tok[0]) ? step_of(t->tok[0]) : "");
	return 1;
}

/* The step a line numbers: the last step word followed by an integer
 * ("epoch 1/50 - it 6/100": iteration 6, the finest) or the last count
 * of work done ("after 3 prediction(s)", counted_at), its word in *per;
 * -1 and NULL when none. */
static double line_step(const struct ms_line *t, const char **per)
{
	double step = -1, v;
	const char *w;
	int k;

	*per = NULL;
	for (k = 0; k + 1 < t->n; k++)
		if ((w = step_of(t->tok[k])) != NULL && (v = whole(t->tok[k + 1])) >= 0) {
			step = v;
			*per = w;
		} else if ((w = counted_at(t, k, &v)) != NULL) {
			step = v;   /* "after 3 prediction(s)": the work done */
			*per = w;
		}
	return step;
}

/* The label of unitless[] that a line's token names when the next token
 * is a bare number (no unit after it, a step's "6/100" not one), its
 * value in *v; NULL when none. */
static const char *bare_figure(const struct ms_line *t, double *v)
{
	int k, i;

	for (k = 0; k + 1 < t->n; k++)
		for (i = 0; unitless[i]; i++) {
			const char *s = t->tok[k + 1];
			char *end;
			if (strcmp(t->tok[k], unitless[i]) || !isdigit((unsigned char)s[0]))
				continue;
			*v = strtod(s, &end);
			if (*end || (k + 2 < t->n && unit_of(t->tok[k + 2]) > 0))
				return NULL;
			return unitless[i];
		}
	return NULL;
}

/* The unit a line states for its bare figures as a word of its own, not
 * after a number: "Mem memory (MB) | allocated: 20.4 | ..." (a script's
 * header in the line, pytorch/pytorch#115255). 0 when none. */
static double line_unit(const struct ms_line *t)
{
	int k;

	for (k = 1; k < t->n; k++)
		if (strlen(t->tok[k]) >= 2 && unit_of(t->tok[k]) > 0 &&   /* not "b", "t" */
		    !isdigit((unsigned char)t->tok[k - 1][0]))
			return unit_of(t->tok[k]);
	return 0;
}

/* The device a label's figure belongs to, named within the two tokens
 * before it: "nvidia-smi GPU-0 memory (MB) 2796" (a script printing each
 * card per iteration, NVlabs/nvdiffrast#23), "GPU 1 memory", "cuda:0
 * mem", "rank3 memory". Written "gpu0" or "rank3" into out (size n);
 * 0 when none. One series a device, never a zig-zag of several merged. */
static int device_before(const struct ms_line *t, int k, char *out, size_t n)
{
	static const char *const dev[] = { "gpu", "cuda", "device", "rank", NULL };
	int j, i;

	for (j = k - 1; j >= 0 && j >= k - 2; j--)
		for (i = 0; dev[i]; i++) {
			size_t w = strlen(dev[i]);
			const char *p = t->tok[j], *num = NULL;
			if (strncmp(p, dev[i], w))
				continue;
			p += w;
			if (*p == '-' || *p == '_')
				p++;
			if (isdigit((unsigned char)*p))
				num = p;
			else if (!*p && j + 1 < k && isdigit((unsigned char)t->tok[j + 1][0]))
				num = t->tok[j + 1];
			if (!num || strspn(num, "0123456789") != strlen(num) || strlen(num) > 3)
				continue;
			snprintf(out, n, "%s%s", i == 3 ? "rank" : "gpu", num);
			return 1;
		}
	return 0;
}

/* One line's sample: its bytes (the number as printed when *bare: no
 * unit stated), its step (-1 none), its label and step word, the device
 * named before the label in dev (MS_DEV bytes, "" none). Returns 1 when
 * the line carries a figure, else 0. */
static int sample(const struct ms_line *t, const struct ms_table *tab, double *bytes,
		  double *step, const char **label, const char **per, int *bare, char *dev)
{
	int k;

	*label = NULL;
	*step = line_step(t, per);
	*bare = 0;
	dev[0] = 0;
	for (k = 0; k < t->n; k++) {
		int j;
		if (!(*label = label_of(t->tok[k])))
			continue;
		if (!device_before(t, k, dev, MS_DEV))
			dev[0] = 0;
		for (j = k + 1; j < t->n; j++)
			if ((*bytes = figure(t, j, 0)) >= 0)
				return 1;
		break;
	}
	*label = NULL;
	if (tab->col < 0 && (*label = bare_figure(t, bytes)) != NULL) {
		double u = line_unit(t);
		*bare = u == 0;
		if (u > 0)
			*bytes *= u;
		return 1;
	}
	if (tab->col >= 0 && tab->col < t->n && isdigit((unsigned char)t->tok[0][0])) {
		k = tab->col;
		if (tab->last) {   /* a row's date may take two tokens: from the end */
			k = t->n - 1;
			if (k > 0 && unit_of(t->tok[k]) > 0)
				k--;
		}
		if ((*bytes = figure(t, k, tab->unit)) < 0)
			return 0;
		*label = tab->label;
		if (tab->per[0] && tab->col > 0) {
			*per = tab->per;
			*step = whole(t->tok[0]);
		}
		return 1;
	}
	return 0;
}

int memsamples_line(const char *l, size_t n, struct memsamples_hit *h)
{
	static struct ms_line t;   /* large: not on the stack */
	const char *per;
	int k, j, i, lim, skip, cut = 0;

	split(l, n, &t);
	for (k = 0; k < t.n; k++) {
		const char *lab = label_of(t.tok[k]);
		if (!lab)
			continue;
		if ((k > 0 && is_not_held(t.tok[k - 1])) ||
		    (k + 1 < t.n && is_not_held(t.tok[k + 1])))
			return 0;
		/* the figure within three tokens of its label: "mem: 1234MB",
		 * "memory (MB) 2796" with its unit a word of its own */
		for (j = k + 1, lim = k + 3, skip = -1; j < t.n && j <= lim; j++) {
			double b, x;
			size_t o;
			if (counted_at(&t, j, &x)) {
				/* "memory usage after 2 prediction(s): 344 MiB":
				 * the count is the step, not part of the label */
				skip = j + 2 + (j + 3 < t.n && !strcmp(t.tok[j + 3], "s"));
				lim += skip - j + 1;
				cut = j;
				j = skip;
				continue;
			}
			b = figure(&t, j, 0);
			if (b < 0 && isdigit((unsigned char)t.tok[j][0]) && line_unit(&t) > 0 &&
			    (j + 1 >= t.n || unit_of(t.tok[j + 1]) == 0) && whole(t.tok[j]) >= 0)
				b = strtod(t.tok[j], NULL) * line_unit(&t);
			if (b < 0)
				continue;
			o = 0;
			if (device_before(&t, k, h->label, sizeof(h->label) - 12)) {
				o = strlen(h->label);
				h->label[o++] = ' ';
			}
			o += (size_t)snprintf(h->label + o, sizeof(h->label) - o, "%s", lab);
			for (i = k + 1; i < j && o + 1 < sizeof(h->label); i++)
				if (!unit_of(t.tok[i]) && !isdigit((unsigned char)t.tok[i][0]) &&
				    (skip < 0 || i < cut || i > skip))
					o += (size_t)snprintf(h->label + o, sizeof(h->label) - o,
							      " %s", t.tok[i]);
			if (o >= sizeof(h->label))
				h->label[sizeof(h->label) - 1] = 0;
			h->label[strcspn(h->label, "|")] = 0;
			h->bytes = b;
			h->step = line_step(&t, &per);
			h->per = per;
			return 1;
		}
	}
	return 0;
}

/* Whether a line is a reporter's elision mark and nothing else ("[...]",
 * "...", "[…]"): what was cut from a paste, no line of its own. */
static int elision(const struct ms_line *t)
{
	const char *p = t->tok[0];
	size_t dots;

	if (t->n != 1)
		return 0;
	p += *p == '[';
	if (!strncmp(p, "\xe2\x80\xa6", 3))   /* U+2026, the ellipsis */
		p += 3;
	else if ((dots = strspn(p, ".")) >= 2)
		p += dots;
	else
		return 0;
	p += *p == ']';
	return !*p;
}

int memsamples_counted(const double *st, int n)
{
	int i;

	if (n >= MEMSAMPLES_MIN)
		return 1;
	if (n < MEMSAMPLES_SHORT)
		return 0;
	for (i = 0; i < n; i++)
		if (st[i] < 0 || (i > 0 && st[i] <= st[i - 1]))
			return 0;
	return 1;
}

int memsamples_sniff(const unsigned char *head, size_t n)
{
	struct ms_table tab = { -1, 0, 0, "", "" };
	struct ms_line t;
	double steps[MEMSAMPLES_MIN];
	char dev[MS_DEV];
	size_t i = 0;
	int lines = 0, hits = 0;

	while (i < n && lines < 200) {
		const unsigned char *nl = memchr(head + i, '\n', n - i);
		size_t len = nl ? (size_t)(nl - (head + i)) : n - i;
		double b, st;
		const char *lab, *per;
		int bare;

		split((const char *)head + i, len, &t);
		i += len + 1;
		if (!t.n || elision(&t))
			continue;
		lines++;
		if (header(&t, &tab))
			continue;
		if (sample(&t, &tab, &b, &st, &lab, &per, &bare, dev)) {
			if (hits < MEMSAMPLES_MIN)   /* a first unnumbered: 0 */
				steps[hits] = st < 0 && !hits ? 0 : st;
			hits++;
		}
	}
	if (hits < MEMSAMPLES_MIN && !memsamples_counted(steps, hits))
		return 0;
	return hits * 3 >= lines * 2 ? 30 : 0;
}

/* Append "%s%.0f" (bytes) or "%s%.6g" (a figure as printed, when g) to
 * buf (size n) at *o; 0, or -1 when full. */
static int put(char *buf, size_t n, size_t *o, const char *sep, double v, int g)
{
	int w = snprintf(buf + *o, n - *o, g ? "%s%.6g" : "%s%.0f", sep, v);

	if (w < 0 || (size_t)w >= n - *o)
		return -1;
	*o += (size_t)w;
	return 0;
}

int memsamples_parse(struct input *in, struct sink *s)
{
	double v[MS_MAX], st[MS_MAX];
	struct ms_table tab = { -1, 0, 0, "", "" };
	struct ms_line t;
	const char *l, *lab0 = NULL, *per0 = NULL;
	char key[64], val[MS_MAX * 32 + 128], dev[MS_DEV], dev0[MS_DEV] = "";
	size_t len, o;
	int rc, n = 0, stepped = 1, i, bare0 = 0;
	double pend = -1;           /* a step a figure-less line numbered */
	const char *pend_per = NULL;

	while ((rc = input_getline(in, &l, &len)) == 1) {
		double b, step;
		const char *lab, *per;
		int bare;

		split(l, len, &t);
		if (!t.n || header(&t, &tab))
			continue;
		if (!sample(&t, &tab, &b, &step, &lab, &per, &bare, dev)) {
			/* a line that numbers a step and states no figure
			 * ("epoch 1/50 - it 6/100 - loss: 2.473") numbers the
			 * sample on the next line */
			pend = line_step(&t, &pend_per);
			continue;
		}
		if (step < 0 && pend >= 0) {
			step = pend;
			per = pend_per;
		}
		pend = -1;
		if (!lab0) {
			lab0 = lab;
			bare0 = bare;
			memcpy(dev0, dev, sizeof(dev0));
		}
		/* one series: the first label's, of the first device, in one
		 * kind of figure */
		if (lab != lab0 || bare != bare0 || strcmp(dev, dev0) || n >= MS_MAX)
			continue;
		if (!per0 && per)
			per0 = per;
		/* a first line without a step ("start", a baseline) is step 0 */
		if (step < 0 && n == 0)
			step = 0;
		else if (step < 0 || per != per0)
			stepped = 0;
		v[n] = b;
		st[n++] = step;
	}
	if (!per0)
		stepped = 0;
	/* three readings against a counted x-axis, or four of any kind */
	if (rc < 0 || (n < MEMSAMPLES_MIN && (!stepped || !memsamples_counted(st, n))))
		return 0;
	o = (size_t)snprintf(val, sizeof(val), "%s%s%s|%s|", dev0, dev0[0] ? " " : "", lab0,
			     stepped ? per0 : "sample");
	for (i = 0; stepped && i < n; i++)
		if (put(val, sizeof(val), &o, i ? "," : "", st[i], 0) < 0)
			return 0;
	if (o + 2 >= sizeof(val))
		return 0;
	val[o++] = '|';
	val[o] = 0;
	for (i = 0; i < n; i++)
		if (put(val, sizeof(val), &o, i ? "," : "", v[i], bare0) < 0)
			return 0;
	if (bare0 && o + 18 >= sizeof(val))
		return 0;
	if (bare0) {
		memcpy(val + o, "|unit-not-stated", 17);
		o += 16;
	}
	snprintf(key, sizeof(key), "%s0", vocab_meta_key(VM_SAMPLES_SERIES));
	if (sink_meta(s, key, val) < 0)
		return -1;
	return 1;
}

/* Comma-separated numbers of s (up to '|' or the end) into v (max);
 * returns the count and sets *rest past the '|' (at the end: the end). */
static int numbers(const char *s, double *v, int max, const char **rest)
{
	int n = 0;
	char *end;

	while (*s && *s != '|') {
		double x = strtod(s, &end);
		if (end == s)
			break;
		if (n < max)
			v[n++] = x;
		s = end;
		if (*s == ',')
			s++;
	}
	*rest = *s == '|' ? s + 1 : s;
	return n;
}

int memsamples_decode(const char *val, struct memsamples_series *out)
{
	const char *p = val, *bar;
	int ns;

	memset(out->label, 0, sizeof(out->label));
	memset(out->per, 0, sizeof(out->per));
	if (!(bar = strchr(p, '|')) || (size_t)(bar - p) >= sizeof(out->label))
		return -1;
	memcpy(out->label, p, (size_t)(bar - p));
	p = bar + 1;
	if (!(bar = strchr(p, '|')) || (size_t)(bar - p) >= sizeof(out->per))
		return -1;
	memcpy(out->per, p, (size_t)(bar - p));
	ns = numbers(bar + 1, out->st, MEMSAMPLES_MAX, &p);
	out->n = numbers(p, out->v, MEMSAMPLES_MAX, &p);
	out->stepped = ns == out->n && out->n > 0;
	out->unitless = !strcmp(p, "unit-not-stated");
	return out->n > 0 ? 0 : -1;
}

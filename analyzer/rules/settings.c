/*
 * settings.c -- an allocator setting asked for but not in effect.
 *
 * Users set PYTORCH_CUDA_ALLOC_CONF to ward off fragmentation and trust it
 * is on. Two artifacts can show it is not:
 *
 *  - a PyTorch snapshot records both the string the allocator read
 *    (allocator_settings.PYTORCH_CUDA_ALLOC_CONF) and what it made of it
 *    (expandable_segments, max_split_size, garbage_collection_threshold):
 *    a key the string sets that the settings do not show was not applied;
 *  - PyTorch's own warning "expandable_segments not supported on this
 *    platform" (a build without the CUDA driver API, ROCm's HIP
 *    allocator, Windows): the option was read and ignored;
 *  - the process's environment (env.* meta: /proc/PID/environ, kubectl
 *    describe's Environment) against the snapshot's settings: a variable
 *    the allocator never read (PYTORCH_ALLOC_CONF, the new name, on a
 *    release that applies only PYTORCH_CUDA_ALLOC_CONF to CUDA).
 *
 * Cause setting_not_in_effect, misconfig: 0.45, contributing, on its own
 * (what was asked for did not happen, which may or may not be why the
 * card ran out); 0.6 when the fragmentation rule found the cache a real
 * share of the card, the very thing the setting was meant to prevent.
 * Runs after fragmentation, whose finding it reads.
 */
#include "analyzer/rules/rulelib.h"
#include "analyzer/derive/allocator_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define SET_SCORE 0.45
#define SET_SCORE_FRAG 0.6

/* What was asked and what took effect, one line per key that differs. */
struct mismatch {
	char asked[200];            /* the string, as recorded */
	char what[400];             /* "expandable_segments:True asked, False in effect; ..." */
	int expandable;             /* expandable_segments read and ignored (the platform) */
	const char *env_name;       /* from the environment: the variable; NULL none */
	char recorded[200];         /* ... and what the allocator read instead */
	int64_t ev;                 /* the warning's event row, 0 none */
	const char *source;         /* who says so */
};

static void add(struct mismatch *m, const char *fmt, const char *a, const char *b)
{
	size_t l = strlen(m->what);

	snprintf(m->what + l, sizeof(m->what) - l, "%s", l ? "; " : "");
	l = strlen(m->what);
	snprintf(m->what + l, sizeof(m->what) - l, fmt, a, b);
}

/* Allocator configuration conf against the settings the snapshot shows
 * in effect, each key that differs added to m. 2 when expandable_segments
 * differs, 1 another key, 0 none, -1 failed. */
static int compare(struct rule_ctx *c, struct mismatch *m, const char *conf)
{
	struct am_settings want;
	char err[160], in_effect[64], buf[64];
	double v;
	int r = 0;

	am_settings_default(&want);
	if (am_settings_parse(&want, conf, err, sizeof(err)) < 0)
		return 0;
	if (want.expandable && rl_meta_text(c, "torch.allocator.expandable_segments", in_effect,
					    sizeof(in_effect)) == 0 &&
	    (!strcasecmp(in_effect, "false") || !strcmp(in_effect, "0"))) {
		add(m, "expandable_segments:True asked, %s%s in effect", "False", "");
		r = 2;
	}
	if (want.max_split_size != AM_UNLIMITED &&
	    rl_meta_num(c, "torch.allocator.max_split_size", &v) == 0 &&
	    (v < 0 || (uint64_t)v != want.max_split_size)) {
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)(want.max_split_size >> 20));
		snprintf(in_effect, sizeof(in_effect), v < 0 ? "unlimited" : "%.0f MiB",
			 v / 1048576.0);
		add(m, "max_split_size_mb:%s asked, %s in effect", buf, in_effect);
		r = r ? r : 1;
	}
	if (want.gc_threshold > 0 && rl_meta_num(c, "torch.allocator.garbage_collection_threshold",
						 &v) == 0 && v != want.gc_threshold) {
		snprintf(buf, sizeof(buf), "%g", want.gc_threshold);
		snprintf(in_effect, sizeof(in_effect), "%g", v);
		add(m, "garbage_collection_threshold:%s asked, %s in effect", buf, in_effect);
		r = r ? r : 1;
	}
	return c->failed ? -1 : r;
}

/* The snapshot's string against its settings. 1 when a key differs, 0,
 * -1 failed. */
static int from_snapshot(struct rule_ctx *c, struct mismatch *m)
{
	int r;

	if (rl_meta_text(c, "torch.allocator.PYTORCH_CUDA_ALLOC_CONF", m->asked,
			 sizeof(m->asked)) < 0 || !m->asked[0])
		return c->failed ? -1 : 0;
	if ((r = compare(c, m, m->asked)) <= 0)
		return r;
	m->expandable = r == 2;
	m->source = "the PyTorch snapshot's allocator_settings";
	return 1;
}

/* The process's environment (a copy of /proc/PID/environ, kubectl
 * describe's Environment) against the settings its snapshot shows in
 * effect: a variable the allocator did not read (the new name
 * PYTORCH_ALLOC_CONF on a release that reads only the old one, a value
 * set after the process started). 1 when a key differs, 0, -1 failed. */
static int from_env(struct rule_ctx *c, struct mismatch *m)
{
	static const char *const names[] = { "PYTORCH_ALLOC_CONF", "PYTORCH_CUDA_ALLOC_CONF", NULL };
	char key[64], probe[16];
	int i, r;

	if (rl_meta_text(c, "torch.allocator.expandable_segments", probe, sizeof(probe)) < 0)
		return c->failed ? -1 : 0;             /* no snapshot settings to hold it against */
	for (i = 0; names[i]; i++) {
		snprintf(key, sizeof(key), "env.%s", names[i]);
		if (rl_meta_text(c, key, m->asked, sizeof(m->asked)) < 0 || !m->asked[0])
			continue;
		if ((r = compare(c, m, m->asked)) < 0)
			return -1;
		if (!r)
			continue;
		m->env_name = names[i];
		if (rl_meta_text(c, "torch.allocator.PYTORCH_CUDA_ALLOC_CONF", m->recorded,
				 sizeof(m->recorded)) < 0)
			m->recorded[0] = 0;
		m->source = "the process's environment against its snapshot's allocator_settings";
		return 1;
	}
	return c->failed ? -1 : 0;
}

/* PyTorch's warning. 1 found, 0, -1 failed. */
static int from_warning(struct rule_ctx *c, struct mismatch *m)
{
	double id;
	int r = rl_num(c, &id, "SELECT id FROM event WHERE kind = 'engine_error' AND"
		       " json_extract(data, '$.error') = 'expandable_unsupported'"
		       " ORDER BY id LIMIT 1");

	if (r < 0)
		return c->failed ? -1 : 0;
	m->ev = (int64_t)id;
	if (!m->expandable) {
		add(m, "expandable_segments:True asked, %s%s in effect", "False", "");
		m->expandable = 1;
	}
	if (!m->source)
		m->source = "PyTorch's warning \"expandable_segments not supported on this platform\"";
	return 1;
}

/* What the environment asked and what the allocator read, and why. */
static void env_advice(struct rl_finding *f, const struct mismatch *m)
{
	rl_advice(f, "The environment set %s=\"%s\"; the allocator read \"%s\".", m->env_name,
		  m->asked, m->recorded);
	if (!strcmp(m->env_name, "PYTORCH_ALLOC_CONF") && !strstr(m->recorded, m->asked))
		rl_advice(f, "Some PyTorch releases (2.9.1 on CUDA) do not apply the new name"
			  " PYTORCH_ALLOC_CONF to the CUDA allocator; set the old name too:"
			  " PYTORCH_CUDA_ALLOC_CONF=%s.", m->asked);
	else
		rl_advice(f, "The process did not start with this value: set it where the process"
			  " starts (the container's env, before `import torch`), not after.");
}

int rule_settings(struct rule_ctx *c)
{
	struct rl_finding f;
	struct mismatch m;
	double frag = 0, split = 0;
	int64_t fid;
	int s, w;

	memset(&m, 0, sizeof(m));
	if ((s = from_snapshot(c, &m)) < 0 || (!s && (s = from_env(c, &m)) < 0) ||
	    (w = from_warning(c, &m)) < 0)
		return -1;
	if (!s && !w)
		return 0;
	rl_num(c, &frag, "SELECT max(score) FROM finding WHERE cause = 'fragmentation'");
	rl_num(c, &split, "SELECT json_extract(figures, '$.whatif_max_split_size_mb') FROM"
	       " finding WHERE cause = 'fragmentation' ORDER BY score DESC LIMIT 1");
	if (c->failed)
		return -1;
	rl_finding_init(&f, "settings", "misconfig", "setting_not_in_effect");
	f.score = frag >= VERDICT_MIN_SCORE ? SET_SCORE_FRAG : SET_SCORE;
	snprintf(f.title, sizeof(f.title), "An allocator setting asked for was not in effect: %.160s"
		 " (%.80s)", m.what, m.source);
	if (m.env_name)
		env_advice(&f, &m);
	else if (m.asked[0])
		rl_advice(&f, "PYTORCH_CUDA_ALLOC_CONF was \"%s\".", m.asked);
	if (frag >= VERDICT_MIN_SCORE)
		rl_advice(&f, "The fragmentation it was meant to prevent is what the fragmentation"
			  " finding shows.");
	if (m.expandable)
		rl_advice(&f, "expandable_segments needs a PyTorch built with the CUDA driver API on"
			  " Linux (not ROCm's HIP allocator, not Windows): on this build it is read and"
			  " ignored. Do not count on it;%s", split > 0 ? "" :
			  " max_split_size_mb (PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:N) keeps large"
			  " cached blocks from being split, which is what it can do here.");
	if (m.expandable && split > 0)
		rl_knob(&f, "max_split_size_mb", "PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb", split,
			" the what-if replay found max_split_size_mb:%.0f the best value tried on this"
			" trace.", split);
	if ((fid = rl_finding_write(c, &f)) < 0 ||
	    (m.ev && rl_evidence(c, fid, "event", m.ev, "PyTorch's warning") < 0))
		return -1;
	return 1;
}

/*
 * fallback.c -- an OOM the program caught on one batch of its input and
 * went on from with a smaller one (oom.survival_by batch_fallback,
 * analyzer/derive/oom_fate.c, by the program's own words in
 * lib/fallback_words.c). The program held the batches before it with
 * the same configuration and survives this one: the failure is this
 * batch's load (long inputs, or more of them than the others), a spike,
 * not a configuration that cannot fit. A start-up OOM is never one (its
 * class is its phase's). The batch's item count, where the words give
 * it, is shown; what to change is where the batch is made, so that one
 * batch of the longest inputs fits.
 */
#include "analyzer/rules/rulelib.h"
#include "lib/fallback_words.h"

#include <stdio.h>
#include <string.h>

#define FALLBACK_SCORE 0.6   /* above capacity's figures: the program's own words */

int rule_fallback(struct rule_ctx *c)
{
	sqlite3_stmt *st;
	const struct fallback_word *w;
	struct rl_finding f;
	char phase[32] = "", text[2048] = "";
	int64_t ev = 0, line = 0, fid;
	double n;

	if (!c->has_oom)
		return 0;
	if (rl_first_row(c, "SELECT o.event_id, o.survival_line, o.phase, CASE WHEN"
			 " json_valid(e.data) THEN coalesce(json_extract(e.data, '$.exception'),"
			 " json_extract(e.data, '$.text')) END FROM oom o JOIN event e ON e.id = o.event_id"
			 " WHERE o.id = 1 AND o.survival = 'survived' AND o.survival_by = 'batch_fallback'",
			 &st) <= 0)
		return c->failed ? -1 : 0;
	ev = sqlite3_column_int64(st, 0);
	line = sqlite3_column_int64(st, 1);
	snprintf(phase, sizeof(phase), "%s", sqlite3_column_text(st, 2) ?
		 (const char *)sqlite3_column_text(st, 2) : "unknown");
	snprintf(text, sizeof(text), "%s", sqlite3_column_text(st, 3) ?
		 (const char *)sqlite3_column_text(st, 3) : "");
	sqlite3_finalize(st);
	if (c->failed)
		return -1;
	if (!ev || !(w = fallback_word_in(text)))
		return 0;
	/* a start-up OOM's class is its phase's (startup.c) */
	if (strcmp(phase, "unknown") && strcmp(phase, "serving") && strcmp(phase, "training_step") &&
	    strcmp(phase, "eval"))
		return 0;
	n = fallback_count(w, text);
	rl_finding_init(&f, "fallback", "spike", "batch_fallback");
	f.phase = phase;
	f.score = FALLBACK_SCORE;
	if (n >= 0)
		rl_fig(&f, "batch_items", n);
	if (line > 0)
		rl_fig(&f, "fallback_line", (double)line);
	if (n >= 0)
		snprintf(f.title, sizeof(f.title), "%s ran out of memory on one batch (%.0f %s) and"
			 " goes on with less (line %lld, its own words): the load of that batch,"
			 " not a configuration that cannot fit", w->program, n, w->items,
			 (long long)line);
	else
		snprintf(f.title, sizeof(f.title), "%s ran out of memory on one batch and goes on"
			 " with less (line %lld, its own words): the load of that batch, not a"
			 " configuration that cannot fit", w->program, (long long)line);
	rl_advice(&f, "The run survives it, slower: %s retries the batch's items one at a time."
		  " To avoid it, make the batch of the longest inputs fit: lower the batch's size"
		  " limit where %s builds batches, or split or truncate the longest inputs.",
		  w->program, w->program);
	fid = rl_finding_write(c, &f);
	if (fid < 0 || rl_evidence(c, fid, "event", ev, "the program's words that it goes on") < 0)
		return -1;
	return 1;
}

/*
 * answer_render.c -- the answer's first screen written out: one walk over
 * the model load_answer built (answer.c, the JSON's "answer" key), with
 * the markup of the format given, so that Markdown (hence the text) and
 * HTML say the same thing in the same order: what happened, the evidence
 * with its sources, what to change, how sure, what would settle it, the
 * other failures and the damaged artifacts.
 */
#include "reports/section.h"
#include "reports/md_util.h"
#include "reports/html_util.h"
#include "lib/common.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
struct markup {
	void (*text)(struct strbuf *, const char *, size_t);
	const char *open, *close, *label_open, *label_close, *sub_open, *sub_close;
	const char *fix_open;       /* open of the fix's item (the HTML's id=fix) */
};

static void put(struct strbuf *sb, const struct markup *m, const char *s)
{
	if (s)
		m->text(sb, s, strlen(s));
}

static void item_open(struct strbuf *sb, const struct markup *m, const char *label)
{
	strbuf_addstr(sb, m->open);
	strbuf_addstr(sb, m->label_open);
	strbuf_addstr(sb, label);
	strbuf_addstr(sb, m->label_close);
}

static void answer_items(struct strbuf *sb, const json_t *a, const struct markup *m)
{
	const json_t *ev = json_object_get(a, "evidence"), *f, *x;
	const char *cls = json_string_value(json_object_get(a, "class"));
	double conf = json_number_value(json_object_get(a, "confidence"));
	size_t i;
	int64_t nf = jv_int_or_null(a, "failures_total");

	item_open(sb, m, "What happened:");
	put(sb, m, json_string_value(json_object_get(a, "what")));
	strbuf_addstr(sb, m->close);
	if ((x = json_object_get(a, "warning")) && json_is_string(x)) {
		item_open(sb, m, "Warning:");
		put(sb, m, json_string_value(x));
		strbuf_addstr(sb, m->close);
	}
	if (json_array_size(ev)) {
		item_open(sb, m, "Evidence:");
		json_array_foreach(ev, i, f) {
			/* figures of one source share its parenthesis */
			const char *src = json_string_value(json_object_get(f, "source"));
			const char *next = json_string_value(json_object_get(
				json_array_get(ev, i + 1), "source"));
			put(sb, m, json_string_value(json_object_get(f, "figure")));
			if (next && src && !strcmp(next, src)) {
				strbuf_addstr(sb, ", ");
				continue;
			}
			strbuf_addstr(sb, " (");
			put(sb, m, src);
			strbuf_addstr(sb, next ? "); " : ")");
		}
		strbuf_addstr(sb, m->close);
	}
	strbuf_addstr(sb, m->fix_open);
	strbuf_addstr(sb, m->label_open);
	strbuf_addstr(sb, "What to change:");
	strbuf_addstr(sb, m->label_close);
	if ((x = json_object_get(a, "fix")) && json_is_string(x))
		put(sb, m, json_string_value(x));
	else if (cls && !strcmp(cls, "no_oom") && json_array_size(json_object_get(a, "failures")))
		put(sb, m, "no memory setting: act on the failures below.");
	else if (cls && !strcmp(cls, "no_oom"))
		put(sb, m, "nothing ran out; the memory profile below says how close each account came.");
	else if ((x = json_object_get(json_object_get(a, "try_first"), "advice")) && json_is_string(x))
		put(sb, m, json_string_value(x));   /* labelled "To try first ... not a finding" */
	else
		put(sb, m, "no fix can be named from this evidence (see what would settle it).");
	strbuf_addstr(sb, m->close);
	/* with a fix named, the phase's knobs still follow it, as their own
	 * item: the figures judged the class, not why the step outgrew the card */
	if (json_is_string(json_object_get(a, "fix")) &&
	    (x = json_object_get(json_object_get(a, "try_first"), "advice")) && json_is_string(x)) {
		const char *ph = json_string_value(json_object_get(a, "phase"));
		/* the phase's knobs only where the evidence names the phase */
		item_open(sb, m, ph && *ph && strcmp(ph, "unknown") ? "Also, for this phase:"
								      : "Also, to try first:");
		put(sb, m, json_string_value(x));
		strbuf_addstr(sb, m->close);
	}
	item_open(sb, m, "How sure:");
	if (cls) {
		static const char *const words[][2] = {
			{ "leak", "a leak" }, { "spike", "a concurrency spike" },
			{ "misconfig", "a configuration that does not fit" },
			{ "inconclusive", "not decided" }, { "no_oom", "no OOM" },
		};
		const char *w = NULL;
		size_t k;
		for (k = 0; k < sizeof(words) / sizeof(words[0]); k++)
			if (!strcmp(cls, words[k][0]))
				w = words[k][1];
		/* the words, then the class's key as every format names it */
		if (w)
			strbuf_addf(sb, "%s (", w);
		put(sb, m, cls);
		if (w)
			strbuf_addstr(sb, ")");
		if (json_is_number(json_object_get(a, "confidence")))
			strbuf_addf(sb, ", confidence %.0f %%", conf * 100);
		/* "not decided" once: the class's words say it for inconclusive;
		 * "weigh the figures" only where the answer shows some */
		if (!strcmp(cls, "inconclusive"))
			put(sb, m, ".");
		else if (json_is_string(json_object_get(a, "basis")) &&
			 !strcmp(json_string_value(json_object_get(a, "basis")), "phase"))
			put(sb, m, " (inferred from the phase, not shown by figures: nothing in the"
			    " files shows memory growing or load rising).");
		else if (conf >= 0.7)
			put(sb, m, " (the evidence decides it).");
		else if (json_array_size(json_object_get(a, "evidence")))
			put(sb, m, " (not decided: weigh the figures above).");
		else
			put(sb, m, " (not decided: no figure of the evidence sizes it).");
	} else {
		put(sb, m, "no verdict (the rules have not run on this database).");
	}
	strbuf_addstr(sb, m->close);
	if ((x = json_object_get(a, "settle")) && json_is_string(x)) {
		item_open(sb, m, "What would settle it:");
		put(sb, m, json_string_value(x));
		strbuf_addstr(sb, m->close);
	}
	if (json_array_size(json_object_get(a, "failures"))) {
		item_open(sb, m, cls && !strcmp(cls, "no_oom") ? "Failures recorded:"
							  : "Failures also recorded:");
		json_array_foreach(json_object_get(a, "failures"), i, f) {
			strbuf_addstr(sb, m->sub_open);
			put(sb, m, json_string_value(json_object_get(f, "what")));
			strbuf_addstr(sb, " (");
			put(sb, m, json_string_value(json_object_get(f, "source")));
			strbuf_addstr(sb, "): ");
			put(sb, m, json_string_value(json_object_get(f, "meaning")));
			strbuf_addstr(sb, m->sub_close);
		}
		if (nf > (int64_t)i)
			strbuf_addf(sb, "%s%lld more in the events%s", m->sub_open,
				    (long long)(nf - (int64_t)i), m->sub_close);
		strbuf_addstr(sb, m->close);
	}
	if (json_array_size(json_object_get(a, "damaged"))) {
		item_open(sb, m, "Damaged artifacts:");
		json_array_foreach(json_object_get(a, "damaged"), i, f) {
			int64_t rd = jv_int_or_null(f, "bytes_read");
			const char *st = json_string_value(json_object_get(f, "status"));
			char b1[40];
			strbuf_addstr(sb, m->sub_open);
			put(sb, m, json_string_value(json_object_get(f, "path")));
			put(sb, m, st && !strcmp(st, "failed") ? ": unreadable, nothing kept"
								: ": damaged, read in part");
			if (rd != OL_NULL && rd > 0) {
				fmt_bytes(b1, sizeof(b1), (double)rd);
				strbuf_addf(sb, " (%s of its content read before the damage, %lld"
					    " events kept)", b1, (long long)jv_int_or_null(f, "events"));
			}
			if (json_is_string(json_object_get(f, "problem"))) {
				strbuf_addstr(sb, ": ");
				put(sb, m, json_string_value(json_object_get(f, "problem")));
			}
			strbuf_addstr(sb, m->sub_close);
		}
		strbuf_addstr(sb, m->close);
	}
}

static void md_put(struct strbuf *sb, const char *s, size_t n)
{
	md_text(sb, s, n);
}

static void h_put(struct strbuf *sb, const char *s, size_t n)
{
	h_text(sb, s, n);
}

void md_answer(struct strbuf *sb, const json_t *a)
{
	static const struct markup m = { md_put, "- ", "\n", "**", "** ", "\n  - ", "", "- " };

	if (!json_is_object(a) || !json_object_get(a, "what"))
		return;
	answer_items(sb, a, &m);
	strbuf_addstr(sb, "\n");
}

void html_answer(struct strbuf *sb, const json_t *a)
{
	static const struct markup m = { h_put, "<li>", "</li>\n", "<b>", "</b> ",
					 "<br>&bull; ", "", "<li id=fix>" };

	if (!json_is_object(a) || !json_object_get(a, "what"))
		return;
	strbuf_addstr(sb, "<ul class=answer id=answer>\n");
	answer_items(sb, a, &m);
	strbuf_addstr(sb, "</ul>\n");
}

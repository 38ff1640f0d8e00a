/*
 * partial.c -- what the run's memory budget (--max-memory, lib/budget.h)
 * left out of a report. A section's loader keeps its rows in memory (a
 * JSON model) only while the budget is not low; the rows after that are
 * counted (q_rows_cut) and the report context records, per section, how
 * many its loader left out (sections.c). Here those counts become the
 * JSON key "partial", the note at the top of the HTML and Markdown (and
 * so the text) reports, and the line on stderr.
 */
#include "reports/section.h"
#include "lib/budget.h"

#include <inttypes.h>

uint64_t report_cut_total(const struct report_ctx *c)
{
	uint64_t n = 0;
	int i;

	for (i = 0; report_sections[i].id; i++)
		n += c->cut[i];
	return n;
}

json_t *load_partial(struct report_ctx *c)
{
	uint64_t n = report_cut_total(c);
	json_t *o, *by;
	int i;

	if (!n)
		return json_null();
	by = json_object();
	for (i = 0; report_sections[i].id; i++)
		if (c->cut[i])
			json_object_set_new(by, report_sections[i].id,
					    json_integer((json_int_t)c->cut[i]));
	o = json_pack("{s:s, s:I, s:I, s:o}",
		      "note", "partial: " OL_BUDGET_HINT "; the rows counted here were left out",
		      "budget_bytes", (json_int_t)ol_budget(), "rows_left_out", (json_int_t)n,
		      "sections", by);
	return o;
}

/* "events 120, series 4000" into sb. */
static void cut_list(struct strbuf *sb, const struct report_ctx *c)
{
	int i, k = 0;

	for (i = 0; report_sections[i].id; i++)
		if (c->cut[i])
			strbuf_addf(sb, "%s%s %" PRIu64, k++ ? ", " : "", report_sections[i].id,
				    c->cut[i]);
}

void report_cut_note(struct strbuf *sb, const struct report_ctx *c, int html)
{
	uint64_t n = report_cut_total(c);

	if (!n)
		return;
	strbuf_addstr(sb, html ? "<p class=warn><strong>Partial report</strong>: "
			       : "> **Partial report**: ");
	strbuf_addf(sb, "%s (%" PRIu64 " MiB): %" PRIu64 " rows were left out (by section: ",
		    OL_BUDGET_HINT, ol_budget() >> 20, n);
	cut_list(sb, c);
	strbuf_addstr(sb, "). Every row is in the incident database; a larger --max-memory"
		      " shows them.");
	strbuf_addstr(sb, html ? "</p>\n" : "\n\n");
}

void report_cut_say(struct strbuf *sb, const struct report_ctx *c)
{
	uint64_t n = report_cut_total(c);

	if (!n)
		return;
	strbuf_addf(sb, "%sreport partial: %s (%" PRIu64 " MiB): %" PRIu64
		    " rows left out (", sb->len ? "; " : "", OL_BUDGET_HINT, ol_budget() >> 20, n);
	cut_list(sb, c);
	strbuf_addstr(sb, ")");
}

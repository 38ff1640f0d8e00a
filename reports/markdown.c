/*
 * markdown.c -- the short summary to paste into a GitHub or Jira ticket:
 * the verdict and the key figures (from the report's summary), then the
 * Markdown sections of the table in sections.c, in its order: the top
 * findings with their advice, the processes killed, the artifacts read,
 * what could not be determined. Every string from the database goes
 * through md_text() (md_util.h), so an artifact cannot inject links, images or
 * HTML into the ticket.
 */
#include "reports/section.h"
#include "reports/md_util.h"
#include "reports/summary.h"
#include "reports/ledger.h"
#include "lib/common.h"
#include "lib/strbuf.h"

#include <math.h>
#include <string.h>

/* "## OOM incident: class (cause)", or "## Memory profile: no OOM
 * recorded" when there was none, and the verdict's line. */
static void md_verdict(struct strbuf *sb, const struct report_summary *s,
		       const json_t *answer)
{
	strbuf_addstr(sb, summary_is_profile(s) ? "## Memory profile: no OOM recorded\n\n"
						: "## OOM incident: ");
	if (summary_is_profile(s)) {
		md_answer(sb, answer);
		strbuf_addstr(sb, "**Verdict:** ");
		goto verdict;
	}
	if (!s->has_verdict) {
		strbuf_addstr(sb, "no verdict\n\n");
		return;
	}
	md_text(sb, s->vclass.buf, s->vclass.len);
	if (s->cause.len) {
		strbuf_addstr(sb, " (");
		md_text(sb, s->cause.buf, s->cause.len);
		strbuf_addstr(sb, ")");
	}
	strbuf_addstr(sb, "\n\n");
	md_answer(sb, answer);
	strbuf_addstr(sb, "**Verdict:** ");
verdict:
	md_text(sb, s->vclass.buf, s->vclass.len);
	if (isfinite(s->confidence))
		strbuf_addf(sb, ", confidence %.0f %%", s->confidence * 100);
	if (s->vsummary.len) {
		strbuf_addstr(sb, ". ");
		md_text(sb, s->vsummary.buf, s->vsummary.len);
	}
	strbuf_addstr(sb, "\n\n");
}

/* The failed allocation of a PyTorch OOM, or the process killed. */
static void md_victim(struct strbuf *sb, const struct report_summary *s)
{
	char buf[64];

	if (s->has_victim && !strcmp(s->victim_kind.buf, "torch_oom") &&
	    s->victim_bytes != OL_NULL) {
		fmt_bytes(buf, sizeof(buf), (double)s->victim_bytes);
		strbuf_addf(sb, "- **Failed allocation:** %s, %s (torch_oom)", buf, s->torch_said);
		if (s->victim_pid != OL_NULL)
			strbuf_addf(sb, ", pid %lld", (long long)s->victim_pid);
		return;
	}
	if (summary_own_failure(s)) {
		/* the process's own allocation failed: it raised, nothing was killed */
		if (s->oom_req != OL_NULL && s->oom_req > 0)
			fmt_bytes(buf, sizeof(buf), (double)s->oom_req);
		strbuf_addf(sb, "- **Failed allocation:** %s (",
			    s->oom_req != OL_NULL && s->oom_req > 0 ? buf : "size not stated");
		md_text(sb, s->oom_kind.buf, s->oom_kind.len);
		strbuf_addstr(sb, ")");
		if (s->has_victim && s->victim_pid != OL_NULL)
			strbuf_addf(sb, ", pid %lld", (long long)s->victim_pid);
		strbuf_addstr(sb, "; nothing was killed");
		return;
	}
	if (!s->has_victim) {
		strbuf_addstr(sb, "- **Killed:** unknown (no kill recorded)");
		return;
	}
	strbuf_addstr(sb, "- **Killed:** ");
	if (s->victim_comm.len)
		md_text(sb, s->victim_comm.buf, s->victim_comm.len);
	else
		strbuf_addstr(sb, "name unknown");
	if (s->victim_pid != OL_NULL)
		strbuf_addf(sb, " (pid %lld)", (long long)s->victim_pid);
	strbuf_addstr(sb, ", ");
	md_text(sb, s->victim_kind.buf, s->victim_kind.len);
	if (s->victim_bytes != OL_NULL) {
		fmt_bytes(buf, sizeof(buf), (double)s->victim_bytes);
		strbuf_addf(sb, ", %s freed", buf);
	}
}

/* The peak of the memory that ran out, against its limit. */
static void md_peak(struct strbuf *sb, const struct report_summary *s)
{
	char buf[64], buf2[64];
	double pct;
	size_t at;

	strbuf_addstr(sb, "\n- **Peak memory:** ");
	if (!s->has_peak) {
		strbuf_addstr(sb, "unknown (no memory-in-use figure in bytes)\n");
		return;
	}
	fmt_bytes(buf, sizeof(buf), s->peak_bytes);
	strbuf_addf(sb, "%s (", buf);
	md_text(sb, s->peak_series.buf, s->peak_series.len);
	if (s->peak_file.len) {
		strbuf_addstr(sb, ", from ");
		md_text(sb, s->peak_file.buf, s->peak_file.len);
	}
	strbuf_addstr(sb, ")");
	if (peak_share(s, &pct, buf2, sizeof(buf2))) {
		strbuf_addf(sb, ", %.1f %% of %s (", pct, buf2);
		md_text(sb, s->limit_what.buf, s->limit_what.len);
		strbuf_addstr(sb, ")");
	}
	/* the account's other measures: what each counts, not more peaks */
	at = sb->len;
	strbuf_addstr(sb, "; ");
	if (!peaks_side_by_side(s, sb))
		strbuf_setlen(sb, at);
	strbuf_addstr(sb, "\n");
	at = sb->len;
	strbuf_addstr(sb, "- **Other accounts:** ");
	if (!peaks_other_accounts(s, sb, strbuf_add_md))
		strbuf_setlen(sb, at);
	else
		strbuf_addstr(sb, "\n");
}

/* What the kernel's OOM report says, and what filled the card at a
 * PyTorch OOM (reading.c). */
static void md_reading(struct strbuf *sb, const struct report_summary *s)
{
	struct bar_seg g[8];
	char b[32];
	int i, n;

	if (s->n_kernel)
		strbuf_addstr(sb, "- **What the kernel's OOM report says:**\n");
	for (i = 0; i < s->n_kernel; i++) {
		strbuf_addstr(sb, "  - ");
		md_text(sb, s->kernel[i].buf, s->kernel[i].len);
		strbuf_addstr(sb, "\n");
	}
	if (!s->has_card || !(s->card_total > 0) || !(n = summary_card_slices(s, g)))
		return;
	fmt_bytes(b, sizeof(b), s->card_total);
	strbuf_addf(sb, "- **What filled the %s card** (PyTorch's out-of-memory message", b);
	if (isfinite(s->card_req)) {
		fmt_bytes(b, sizeof(b), s->card_req);
		strbuf_addf(sb, "; %s could not be allocated", b);
	}
	strbuf_addstr(sb, "):");
	for (i = 0; i < n; i++) {
		fmt_bytes(b, sizeof(b), g[i].bytes);
		strbuf_addf(sb, "%s %s %s", i ? "," : "", g[i].name, b);
	}
	strbuf_addstr(sb, "\n");
}

/* The head: verdict, first OOM, victim, peak, the lead figure. */
static void md_head(struct strbuf *sb, const struct report_summary *s, const json_t *answer)
{
	char buf[64];

	md_verdict(sb, s, answer);
	if (s->has_oom) {
		fmt_oom_time(buf, sizeof(buf), s->oom_ns, s->oom_boot_ns);
		strbuf_addstr(sb, "- **OOM:** ");
		strbuf_addstr(sb, buf);
		strbuf_addstr(sb, " (");
		md_text(sb, s->oom_kind.buf, s->oom_kind.len);
		strbuf_addstr(sb, ")\n");
		md_victim(sb, s);
	} else {
		/* a kill of unknown cause, if any, is named above (answer.c):
		 * this line says only what is absent */
		strbuf_addstr(sb, "- **OOM:** none recorded: no artifact records an OOM or a memory"
				  " failure (a memory profile follows)");
	}
	md_peak(sb, s);
	if (summary_is_profile(s)) {
		size_t at = sb->len;
		strbuf_addstr(sb, "- **Memory profile**, per account:\n");
		if (!profile_lines(s, sb, strbuf_add_md, "  - ", "\n"))
			strbuf_setlen(sb, at);
	}
	md_reading(sb, s);
	if (s->top_key.len && !figure_hidden(s->top_key.buf)) {
		struct strbuf lab = STRBUF_INIT;
		figure_label(&lab, s->top_key.buf);
		strbuf_addstr(sb, "- **");
		md_text(sb, lab.buf, lab.len);
		strbuf_inherit(sb, &lab);
		strbuf_release(&lab);
		strbuf_addstr(sb, ":** ");
		md_text(sb, s->top_value.buf, s->top_value.len);
		strbuf_addstr(sb, "\n");
	}
	strbuf_addstr(sb, "\n");
}

/* The head, the memory budget's note when the report is partial, then
 * each Markdown section of the table, then a footer. */
int report_md_build(struct report_ctx *c, struct strbuf *sb)
{
	int i;

	struct strbuf note = STRBUF_INIT;
	size_t at;

	md_head(sb, &c->sum, report_model(c, "answer"));
	at = sb->len;
	for (i = 0; report_sections[i].id; i++)
		if (report_sections[i].md)
			report_sections[i].md(sb, c, report_model(c, report_sections[i].id));
	strbuf_addf(sb, "_oomlens %s: the full HTML report and the incident database hold the"
		    " timeline and every row behind these figures._\n", OOMLENS_VERSION);
	/* the budget's note under the head, once every section is read */
	report_cut_note(&note, c, 0);
	if (note.len && strbuf_grow(sb, note.len) == 0) {
		memmove(sb->buf + at + note.len, sb->buf + at, sb->len - at + 1);
		memcpy(sb->buf + at, note.buf, note.len);
		sb->len += note.len;
	}
	i = strbuf_failed(sb) || strbuf_failed(&note) ? -1 : 0;
	strbuf_release(&note);
	return i;
}

int report_md_write(struct report_ctx *c, FILE *out)
{
	struct strbuf sb = STRBUF_INIT;
	int r = report_md_build(c, &sb);

	if (r == 0 && (report_summary_failed(&c->sum) || fwrite(sb.buf, 1, sb.len, out) != sb.len))
		r = -1;
	strbuf_release(&sb);
	return r;
}

/*
 * kernel_oom.c -- kernel OOM-killer reports from any kernel log source:
 * the entry points, the per-line filter and the dispatch of each message.
 *
 * parsers/kernel/kernel_prefix.c strips each line's log-source wrapper (dmesg,
 * syslog, journalctl text and JSON, /dev/kmsg) and hands back the kernel
 * text with its time. The message layer over that text is one state
 * machine (docs/formats.md, spec linux-oom-artifacts.md sections 1-2):
 * header -> context -> Mem-Info or memcg block -> task table -> victim
 * selection -> Killed line(s), with the oom_reaper, allocation failures
 * and userspace killers recognised on their own. This file feeds it one
 * message at a time; the matchers and the report live in the
 * kernel_oom_*.c files listed in kernel_oom_report.h.
 *
 * Speed: outside an OOM report only lines holding one of a few byte
 * patterns can matter; every other line is rejected by one SIMD pass over
 * its bytes (kernel_hot.h), before any prefix work and without building a
 * string. That pass is the hot loop: keep nothing per line before it.
 *
 * Memory: one report at a time; its task table is capped (kernel_oom_tasks.c).
 */
#include "parsers/kernel/kernel_oom.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parsers/kernel/kernel_hot.h"
#include "parsers/kernel/kernel_oom_report.h"
#include "parsers/kernel/kernel_scan.h"
#include "parsers/common/textclean.h"
#include "lib/strbuf.h"
#include "lib/timeutil.h"
#include "lib/vocab.h"

/* One kernel (or daemon) message, prefix already stripped. */
static int message(struct kparse *kp, const struct krec *r, const char *p, const char *e)
{
	int rc;

	p = skip_ws(p, e);
	while (e > p && is_space((unsigned char)e[-1]))
		e--;
	if (p >= e)
		return 0;
	if (r->has_ident && strcmp(r->ident, "kernel"))
		return m_userspace(kp, r, p, e);
	if ((rc = m_nvrm(kp, r, p, e)))
		return rc;
	if ((rc = m_header(kp, r, p, e)))
		return rc;
	if ((rc = m_killed(kp, r, p, e)))
		return rc;
	if ((rc = m_oomkill_tool(kp, r, p, e)))
		return rc;
	if ((rc = m_reaper(kp, r, p, e)))
		return rc;
	if ((rc = m_kill_select(kp, r, p, e)))
		return rc;
	if ((rc = m_oomkill_summary(kp, r, p, e)))
		return rc;
	if ((rc = m_alloc_failure(kp, r, p, e)))
		return rc;
	if (find(p, e, "Manual OOM execution")) {
		kp->sysrq_pending = 1;
		return 1;
	}
	if (find(p, e, "oom_kill_process") && find(p, e, "callbacks suppressed")) {
		kp->rate_limited = 1;
		return 1;
	}
	if (!r->has_ident && (rc = m_userspace(kp, r, p, e)))
		return rc;
	if (report_in_body(&kp->ev))
		return m_context(kp, p, e);
	if ((rc = m_fragment(kp, r, p, e)))
		return rc;
	if (kp->ev.open && kp->ev.nkills)
		return m_group(kp, p, e);
	return 0;
}

/* A record's message, split at rsyslog "#012" and journal "\n". */
static int record(struct kparse *kp, const struct krec *r)
{
	const char *p = r->msg, *e = r->end, *c;

	/* Text logs carry no boot id: a kernel stamp going back by more than
	 * 10 s means the machine rebooted; later boots get "boot-N". */
	if (r->t.boot_ns != OL_NULL && !r->from_json) {
		if (kp->max_boot_ns != 0 && r->t.boot_ns + 10 * NS_PER_S < kp->max_boot_ns) {
			if (report_close(kp) < 0)
				return -1;
			snprintf(kp->boot_id, sizeof(kp->boot_id), "boot-%d", ++kp->boots + 1);
			kp->max_boot_ns = r->t.boot_ns;
		}
		if (r->t.boot_ns > kp->max_boot_ns)
			kp->max_boot_ns = r->t.boot_ns;
	}
	/* a header that found no kill in GAP_NS is over (a report without
	 * its header, PARTIAL_LINES lines when there is no time to tell) */
	if (report_in_body(&kp->ev) && (ns_between(&kp->ev.t, &r->t) > GAP_NS ||
					(kp->ev.partial && kp->in->lineno - kp->ev.line >
							   PARTIAL_LINES)) &&
	    report_close(kp) < 0)
		return -1;
	while (p < e) {
		const char *nl = memchr(p, '\n', (size_t)(e - p));
		const char *h = find(p, nl ? nl : e, "#012");
		c = h ? h : nl ? nl : e;
		if (message(kp, r, p, c) < 0)
			return -1;
		p = c + (h ? 4 : 1);
	}
	return 0;
}

/* One journalctl -o json line: its boot id becomes the current one (even
 * without a message), the first record of each boot id with both clocks
 * anchors them, and its message is read as any other record's. Returns -1
 * when the sink failed. */
static int journal_record(struct kparse *kp, const char *l, size_t n)
{
	struct krec r;
	int has_msg = kprefix_journal_json(&kp->px, l, n, &r);

	if (r.has_boot_id)
		snprintf(kp->boot_id, sizeof(kp->boot_id), "%s", r.boot_id);
	if (!has_msg)
		return 0;
	if (r.t.utc_ns != OL_NULL && r.t.boot_ns != OL_NULL && kp->boot_id[0] &&
	    strcmp(kp->boot_id, kp->last_boot_id)) {
		snprintf(kp->last_boot_id, sizeof(kp->last_boot_id), "%s", kp->boot_id);
		if (kp_emit(kp, sink_anchor(kp->s, kp->boot_id, r.t.boot_ns, r.t.utc_ns,
					 "journal __REALTIME_TIMESTAMP + _SOURCE_MONOTONIC_TIMESTAMP")) < 0)
			return -1;
	}
	return record(kp, &r);
}

/* ---------------------------------------------------------------------
 * Entry points.
 */

int kernel_oom_sniff(const unsigned char *head, size_t n)
{
	static const char *strong[] = { "invoked oom-killer", "Killed process ", "oom_reaper: ",
					"oom-kill:constraint=", "Out of memory: Kill", "NVRM: Xid (",
					"has fallen off the bus", "fallen off the bus and",
					"earlyoom[", "systemd-oomd[", "sending SIGTERM to process ",
					"oom-kill event", "oom_kill event", "killed by the OOM killer",
					"Tasks state (memory values in pages)", "Memory cgroup stats for ",
					"\"), OOM kill of PID " };
	static const char *weak[] = { "kernel: ", "\"_TRANSPORT\":\"kernel\"", "\"_TRANSPORT\" : \"kernel\"", "] Linux version ",
				      "Mem-Info:", "page allocation failure", "NVRM: ",
				      "mem avail: ", "memory: usage ", " from warn_alloc+",
				      " warn_alloc+0x" };
	size_t i;

	for (i = 0; i < sizeof(strong) / sizeof(strong[0]); i++)
		if (memmem(head, n, strong[i], strlen(strong[i])))
			return 80;
	/* Slurm's jobacct_gather killing a job at its memory limit
	 * (kernel_slurm.c slurm_exceeded): its words under slurmstepd's */
	if (memmem(head, n, "slurmstepd", 10) && memmem(head, n, " exceeded memory limit (", 24))
		return 80;
	for (i = 0; i < sizeof(weak) / sizeof(weak[0]); i++)
		if (memmem(head, n, weak[i], strlen(weak[i])))
			return 30;
	return task_table_head((const char *)head, n) ? 60 : 0;
}

/* A new parse of in into s, or NULL when out of memory; kparse_free frees it. */
static struct kparse *kparse_new(struct input *in, struct sink *s)
{
	struct kparse *kp = calloc(1, sizeof(*kp));

	if (!kp)
		return NULL;
	kp->s = s;
	kp->in = in;
	if (!(kp->clean = malloc(CLEAN_MAX))) {
		free(kp);
		return NULL;
	}
	kp->hot_way = khot_best_way();
	kprefix_init(&kp->px, in, s);
	strbuf_init(&kp->ev.names);
	report_reset(&kp->ev);
	userspace_init(kp);
	return kp;
}

/* Free kp and what its report and prefix layer hold. */
static void kparse_free(struct kparse *kp)
{
	userspace_release(kp);
	json_decref(kp->ev.mi_pages);
	json_decref(kp->ev.memcg_stats);
	free(kp->clean);
	kprefix_release(&kp->px);
	strbuf_release(&kp->ev.names);
	free(kp->ev.tasks);
	free(kp);
}

/* Read the held report line (kernel_oom_wrap.h), if any, as a record of
 * the input line it started on. -1 when the sink failed. */
static int wrap_flush(struct kparse *kp)
{
	uint64_t line = kp->in->lineno;
	int rc;

	if (!kp->wrap.held)
		return 0;
	/* its events name the line the report line started on */
	kp->in->lineno = kp->wrap.line;
	rc = record(kp, kwrap_record(&kp->wrap));
	kp->in->lineno = line;
	return rc < 0 || kp->failed ? -1 : 0;
}

/* One line [l, l + len) that passed the filter: a journal JSON object or
 * a wrapped text line. A victim, summary or header line cut before its
 * last field is held (not read yet) while the next line may be its
 * continuation, which is joined to it; any other line reads it first.
 * -1 when the sink failed. */
static int read_line(struct kparse *kp, const char *l, size_t len)
{
	struct krec r;
	int kind;

	if (!len || *l == '{') {
		if (wrap_flush(kp) < 0)
			return -1;
		return len ? journal_record(kp, l, len) : 0;
	}
	/* colours, and a terminal's wrap padding inside the line */
	if (kp->clean && text_dirty(l, len, TC_ANSI | TC_WRAP)) {
		len = text_clean(l, len, kp->clean, CLEAN_MAX, TC_ANSI | TC_WRAP);
		l = kp->clean;
	}
	kprefix_strip(&kp->px, l, l + len, &r);
	if (kp->wrap.held) {
		/* a task row's piece keeps the blanks an indented line's
		 * message loses: the figures are cut where the fold fell */
		if (kp->wrap.held == KW_TASK && r.continuation && r.bare && r.msg > l &&
		    r.msg <= l + len && skip_ws(l, r.msg) == r.msg)
			r.msg = l;
		if (kwrap_joins(&kp->wrap, &r))
			return kwrap_still_open(&kp->wrap) ? 0 : wrap_flush(kp);
		if (wrap_flush(kp) < 0)
			return -1;
	}
	if ((kind = kwrap_open_ended(r.msg, r.end)) &&
	    kwrap_take(&kp->wrap, &r, kind, kp->in->lineno) == 0)
		return 0;
	if (record(kp, &r) < 0 || kp->failed)
		return -1;
	return 0;
}

/* The end of the log: close the open report, store the page size found
 * (or assumed) and say when the kernel rate-limited its reports. -1 when
 * the sink failed. */
static int finish(struct kparse *kp)
{
	if (wrap_flush(kp) < 0 || report_close(kp) < 0 || userspace_finish(kp) < 0 || kp->failed)
		return -1;
	if (kp->reports) {
		char v[16];
		snprintf(v, sizeof(v), "%d", (kp->page_kb ? kp->page_kb : 4) * 1024);
		if (kp_emit(kp, sink_meta(kp->s, vocab_meta_key(VM_KERNEL_PAGE_SIZE), v)) < 0 ||
		    kp_emit(kp, sink_meta(kp->s, vocab_meta_key(VM_KERNEL_PAGE_SIZE_ASSUMED),
					  kp->page_kb ? "0" : "1")) < 0)
			return -1;
	}
	if (kp->rate_limited && sink_diagf(kp->s, 0, 0, OL_INFO,
			"the kernel suppressed OOM reports (ratelimit): some kills have no header") < 0)
		return -1;
	return 0;
}

struct kparse *kernel_feed_new(struct input *in, struct sink *s)
{
	return kparse_new(in, s);
}

int kernel_feed_line(struct kparse *kp, const char *line, size_t len)
{
	/* cheap reject: outside a report's body only hot lines matter
	 * (every line while a wrapped report line is held; and journal
	 * lines whose MESSAGE is a byte array, which the filter cannot
	 * read) */
	if (!kp->wrap.held && !report_in_body(&kp->ev) && !kp->table_only &&
	    !khot_line(line, len, kp->hot_way) &&
	    !(len >= 6 && khot_bare_first[(unsigned char)*line] &&
	      userspace_bare_start(line, len)) &&
	    !(len && *line == '{' && kprefix_json_message_is_array(line, line + len)))
		return 0;
	return read_line(kp, line, len);
}

int kernel_feed_end(struct kparse *kp)
{
	int result = finish(kp) == 0 ? kp->n : -1;

	kparse_free(kp);
	return result;
}

int kernel_oom_parse(struct input *in, struct sink *s)
{
	struct kparse *kp = kparse_new(in, s);
	const char *line;
	size_t len;
	int rc;

	if (!kp)
		return -1;
	{   /* a task dump pasted alone: read every line (issue 27); a file
	     * not buffered yet is told by its first line */
		size_t n;
		const unsigned char *p = input_unread(in, &n);
		kp->table_only = n ? task_table_head((const char *)p, n) : -1;
	}
	for (;;) {
		/* outside a report's body, pass over the buffered lines the
		 * filter would drop, with no call per line (none while a wrapped
	 * report line waits for its next piece) */
		if (!kp->wrap.held && !report_in_body(&kp->ev) && !kp->table_only &&
		    !in->line_cut) {
			size_t n, last, k;
			uint64_t lines;
			const unsigned char *p = input_unread(in, &n);
			if ((k = khot_skip((const char *)p, n, kp->hot_way, &lines, &last)))
				input_consume_lines(in, k, lines, last);
		}
		if ((rc = input_getline(in, &line, &len)) != 1)
			break;
		if (kp->table_only < 0 && len)
			kp->table_only = task_row_line(line, len);
		if (in->line_cut)
			sink_diagf(s, in->lineno, 0, OL_WARN,
				   "line longer than %u bytes: read its start only", INPUT_MAX_LINE);
		if (kernel_feed_line(kp, line, len) < 0) {
			kparse_free(kp);
			return -1;
		}
	}
	if (rc < 0)
		sink_diagf(s, in->lineno, 0, OL_ERROR, "read error after line %llu",
			   (unsigned long long)in->lineno);
	return kernel_feed_end(kp);
}

/*
 * html.c -- the self-contained HTML report: one file, inline CSS and
 * inline SVG, no script, no external request (the Content-Security-Policy
 * forbids any), readable offline and printable.
 *
 * Layout: the header says the verdict, its confidence and three key
 * figures (peak memory against its limit, the process killed, the lead
 * figure of the strongest finding) and the navigation; then the sections
 * of the table in sections.c, each in its <section> (the chart first:
 * chart_svg.c). Every string from an artifact goes through
 * h_text()/h_val() (html_util.c).
 */
#include "reports/section.h"
#include "reports/html_util.h"
#include "reports/summary.h"
#include "reports/ledger.h"
#include "lib/common.h"

#include <math.h>
#include <string.h>

const char report_html_css[] =
	":root{--ink:#1d2430;--mute:#667085;--line:#e3e6eb;--accent:#3b5b92}"
	"*{box-sizing:border-box}"
	"body{font:14px/1.5 system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;"
	"margin:0 auto;padding:24px 28px 60px;max-width:1120px;color:var(--ink);background:#fff;"
	"-webkit-print-color-adjust:exact;print-color-adjust:exact}"
	"h1{font-size:22px;margin:0 0 2px}h2{font-size:17px;margin:34px 0 10px;padding-bottom:4px;"
	"border-bottom:2px solid var(--line)}h3{font-size:14.5px;margin:18px 0 6px}"
	"a{color:var(--accent)}code{font:12px/1.4 ui-monospace,'DejaVu Sans Mono',Menlo,monospace}"
	"table{border-collapse:collapse;width:100%;font-size:12.5px;margin:4px 0}"
	"th,td{padding:4px 8px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}"
	"td{overflow-wrap:anywhere}td.t{white-space:nowrap;overflow-wrap:normal}"
	"th{font-weight:600;color:#3a4352;background:#f6f7f9}"
	"td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}"
	".muted{color:var(--mute)}.err{color:#b3261e}.warn{color:#9a5b00}"
	".na{color:var(--mute);font-style:italic;margin:6px 0}.more{color:var(--mute);font-size:12.5px}"
	".sub{margin:8px 0 2px;font-weight:600;font-size:12.5px;color:#3a4352}"
	"nav{font-size:12.5px;color:var(--mute);margin:6px 0 0}nav a{margin-right:10px}"
	/* verdict and key figures */
	".verdict{margin:16px 0 12px;padding:14px 18px;border:1px solid var(--line);"
	"border-left:6px solid #7b8494;border-radius:4px;background:#f8f9fb}"
	".v-leak{border-left-color:#c0392b}.v-spike{border-left-color:#d9822b}"
	".v-misconfig{border-left-color:#3b5b92}"
	".vhead{display:flex;align-items:baseline;gap:14px;flex-wrap:wrap}"
	".vclass{font-size:21px;font-weight:700}.vcause{font-size:15px;color:#3a4352}"
	".conf{margin-left:auto;font-size:13px;color:#3a4352;white-space:nowrap}"
	".cbar{display:inline-block;width:90px;height:8px;background:#e3e6eb;border-radius:4px;"
	"vertical-align:middle;margin-left:6px;overflow:hidden}"
	".cbar span{display:block;height:100%;background:#3b5b92}"
	".vsum{margin:8px 0 0;font-size:14.5px}"
	/* the answer: what happened, evidence, the fix, how sure (answer.c) */
	".answer{margin:0 0 12px;padding:10px 18px 10px 34px;border:1px solid var(--line);"
	"border-radius:4px;font-size:14px}.answer li{margin:3px 0;overflow-wrap:break-word}"
	"#fix{background:#f3f7ee;border-left:3px solid #58a04b;padding:2px 8px}"
	".keys{display:grid;grid-template-columns:repeat(3,1fr);gap:12px;margin:0 0 8px}"
	".key{border:1px solid var(--line);border-radius:4px;padding:10px 14px;min-width:0}"
	".kl{font-size:11.5px;text-transform:uppercase;letter-spacing:.04em;color:var(--mute)}"
	".kv{font-size:22px;font-weight:700;margin:2px 0;overflow-wrap:anywhere}"
	".ks{font-size:12.5px;color:#3a4352;overflow-wrap:anywhere}"
	/* chart */
	"figure{margin:8px 0}svg{display:block;width:100%;height:auto}"
	"svg text{font-family:system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif}"
	".plot{fill:#fff;stroke:#c9ced6}.grid{stroke:#eceef1;stroke-width:1}.tick{stroke:#8a929e}"
	".yl{font-size:11px;fill:#5b6472;text-anchor:end}.xl{font-size:11px;fill:#5b6472;"
	"text-anchor:middle}.axt{font-size:11.5px;fill:#3a4352;text-anchor:middle}"
	".pt{font-size:11.5px;font-weight:600;fill:#3a4352}"
	".s{fill:none;stroke-width:1.6;stroke-linejoin:round}"
	".al{font-size:11px;text-anchor:end;font-weight:600}.als{font-size:11px;font-weight:600}"
	".ml{font-size:10.5px;font-weight:600}.mr{text-anchor:end}"
	".al,.als,.ml{paint-order:stroke;stroke:#fff;stroke-width:3px;stroke-linejoin:round}"
	".spike rect{fill:#f5b041;fill-opacity:.18}.spike text{fill:#a05a00}"
	".headroom rect{fill:#58b368;fill-opacity:.10}.headroom line{stroke:#2e7d32;"
	"stroke-dasharray:3 3}.headroom text{fill:#2e7d32}"
	".leak line,.leakl{stroke:#b3261e;stroke-width:2.2;stroke-dasharray:10 4}"
	".leak text{fill:#b3261e}.spiker{fill:#f5b041;fill-opacity:.35}"
	".headr{fill:#58b368;fill-opacity:.25}"
	".legend{list-style:none;padding:0;margin:6px 0 0;display:flex;flex-wrap:wrap;"
	"gap:4px 18px;font-size:12.5px}.legend li{display:flex;align-items:center;gap:6px}"
	".legend svg{display:inline;width:auto}.ent{font:11.5px ui-monospace,'DejaVu Sans Mono',"
	"monospace;color:#3a4352}"
	/* sections */
	".finding{border:1px solid var(--line);border-radius:4px;padding:4px 16px 10px;"
	"margin:10px 0;break-inside:avoid}"
	".tags{margin:0 0 6px;font-size:12.5px;color:var(--mute)}"
	".tag{display:inline-block;padding:0 7px;border-radius:9px;background:#eef1f6;"
	"color:#3a4352;font-weight:600}"
	"table.figs{width:auto;min-width:360px}table.figs th{background:none;font-weight:500;"
	"color:#3a4352}"
	".ev{margin:2px 0;padding-left:20px;font-size:12.5px}"
	".advice{background:#f3f7ee;border-left:3px solid #58a04b;padding:6px 10px;margin:8px 0 0}"
	"tr.victim td{background:#fdecea}.killed{color:#b3261e}"
	".bar{display:inline-block;width:80px;height:8px;background:#eef1f6;margin-right:6px;"
	"vertical-align:middle}.bar span{display:block;height:100%;background:#7a3fa0}"
	".frames code{font-size:11.5px}.frames{line-height:1.35}"
	".segs .free{fill:#e6e9ee}.segs .used{fill:#3b5b92}.sl{font-size:11px;fill:#3a4352}"
	".sw-used,.sw-free{display:inline-block;width:12px;height:10px;margin:0 4px 0 10px;"
	"vertical-align:middle}.sw-used{background:#3b5b92}.sw-free{background:#e6e9ee}"
	".reading{border:1px solid var(--line);border-radius:4px;padding:8px 14px;margin:0 0 8px}"
	".reading ul{margin:4px 0 0;padding-left:18px}.reading li{margin:2px 0}"
	/* the memory ledger's bars and tables */
	".lbar{margin:6px 0 4px}.lbl{font-size:12px;fill:#1d2430}.lbd{fill:#fff}"
	".sw{display:inline-block;width:11px;height:11px;margin-right:6px;vertical-align:-1px;"
	"border:1px solid #c9ced6}table.ledger tr.note td{color:var(--mute);font-style:italic}"
	"figcaption{font-size:12px;color:var(--mute)}"
	"tr.diag td{background:#fbfbfc;font-size:12px}tr.diag ul{margin:0;padding-left:18px}"
	"details summary{cursor:pointer;color:var(--accent);font-size:12.5px}"
	"footer{margin-top:40px;font-size:12px;color:var(--mute)}"
	"nav a{display:inline-block;white-space:nowrap}section{overflow-x:auto}"
	/* narrow screens: a table scrolls sideways in its own box rather than
	 * wrapping its cells letter by letter (issue 26) */
	"@media (max-width:760px){.keys{grid-template-columns:1fr}"
	"table{display:block;overflow-x:auto;max-width:100%;width:auto}"
	"td,th{overflow-wrap:normal;word-break:normal;min-width:4.5em}"
	"td.n,th.n{min-width:0}body{padding:16px 12px 40px}}"
	"@media print{body{padding:0;max-width:none;font-size:12px}nav{display:none}"
	"h2{break-after:avoid}figure,table{break-inside:auto}"
	"details::details-content{content-visibility:visible;display:contents}"
	"a{color:inherit;text-decoration:none}}";

static const char *class_label(const char *c)
{
	if (!strcmp(c, "leak"))
		return "Memory leak";
	if (!strcmp(c, "spike"))
		return "Concurrency spike";
	if (!strcmp(c, "misconfig"))
		return "Misconfiguration";
	if (!strcmp(c, "inconclusive"))
		return "Inconclusive";
	if (!strcmp(c, "no_oom"))
		return "No OOM: memory profile";
	return NULL;
}

/* The OOM (row 1 of table oom) and where the report comes from. */
static void header_oom(struct strbuf *sb, const struct report_summary *s)
{
	char buf[64];

	strbuf_addf(sb, "<header><h1>%s</h1>\n<p class=muted>", summary_is_profile(s)
		    ? "Memory profile: no OOM recorded" : "OOM incident report");
	if (s->has_oom) {
		strbuf_addstr(sb, "OOM: <b>");
		h_text(sb, s->oom_kind.buf, s->oom_kind.len);
		if (s->oom_ns == OL_NULL && s->oom_boot_ns == OL_NULL) {
			strbuf_addstr(sb, "</b>, time not recorded");
		} else {
			fmt_time(buf, sizeof(buf), s->oom_ns, s->oom_boot_ns);
			strbuf_addstr(sb, "</b> at <b>");
			h_text(sb, buf, (size_t)-1);
			strbuf_addstr(sb, "</b>");
		}
		strbuf_addstr(sb, " &middot; ");
	} else {
		strbuf_addstr(sb, "No OOM recorded: a memory profile &middot; ");
	}
	strbuf_addf(sb, "written by oomlens %s from the incident database alone</p>\n",
		    OOMLENS_VERSION);
}

/* The verdict: class, cause, confidence bar and summary. */
static void header_verdict(struct strbuf *sb, const struct report_summary *s)
{
	const char *cl = s->has_verdict ? class_label(s->vclass.buf) : NULL;

	strbuf_addstr(sb, "<div class=\"verdict");
	if (cl) {
		strbuf_addstr(sb, " v-");
		h_text(sb, s->vclass.buf, s->vclass.len);
	}
	strbuf_addstr(sb, "\"><div class=vhead><span class=vclass>");
	if (!s->has_verdict)
		strbuf_addstr(sb, "No verdict");
	else if (cl)
		strbuf_addstr(sb, cl);
	else
		h_text(sb, s->vclass.buf, s->vclass.len);
	strbuf_addstr(sb, "</span>");
	if (cl) {
		/* the class as the JSON and the Markdown spell it */
		strbuf_addstr(sb, "<code class=vkey>");
		h_text(sb, s->vclass.buf, s->vclass.len);
		strbuf_addstr(sb, "</code>");
	}
	if (s->cause.len) {
		strbuf_addstr(sb, "<span class=vcause>cause: <b>");
		h_text(sb, s->cause.buf, s->cause.len);
		strbuf_addstr(sb, "</b></span>");
	}
	if (isfinite(s->confidence)) {
		double c = s->confidence;
		strbuf_addf(sb, "<span class=conf>confidence <b>%.0f %%</b><span class=cbar>"
			    "<span style=\"width:%.0f%%\"></span></span></span>", c * 100, c * 100);
	}
	strbuf_addstr(sb, "</div>\n<p class=vsum>");
	if (s->vsummary.len)
		h_text(sb, s->vsummary.buf, s->vsummary.len);
	else if (!s->has_verdict)
		strbuf_addstr(sb, "The rules have not been run on this database.");
	strbuf_addstr(sb, "</p></div>\n");
}

/* Key figure 1: the peak of the memory that ran out against its limit. */
static void card_peak(struct strbuf *sb, const struct report_summary *s)
{
	char buf[64], buf2[64];
	double pct;
	size_t at;

	strbuf_addstr(sb, "<div class=key><div class=kl>Peak memory</div><div class=kv>");
	if (!s->has_peak) {
		strbuf_addstr(sb, "unknown</div><div class=ks>no memory-in-use figure in bytes in the artifacts"
				  "</div></div>\n");
		return;
	}
	fmt_bytes(buf, sizeof(buf), s->peak_bytes);
	strbuf_addstr(sb, buf);
	strbuf_addstr(sb, "</div><div class=ks>");
	if (peak_share(s, &pct, buf2, sizeof(buf2))) {
		strbuf_addf(sb, "<b>%.1f %%</b> of %s (", pct, buf2);
		h_text(sb, s->limit_what.buf, s->limit_what.len);
		strbuf_addstr(sb, ")<br>");
	}
	h_text(sb, s->peak_series.buf, s->peak_series.len);
	if (s->peak_file.len) {
		strbuf_addstr(sb, ", from ");
		h_text(sb, s->peak_file.buf, s->peak_file.len);
	}
	if (s->peak_ns != OL_NULL) {
		fmt_time(buf, sizeof(buf), s->peak_ns, OL_NULL);
		strbuf_addf(sb, " at %s", buf);
	} else if (s->peak_untimed) {
		strbuf_addstr(sb, ", time unknown (<a href=\"#time-unknown\">not on the chart</a>)");
	}
	/* the account's other measures: what each counts, not more peaks */
	at = sb->len;
	strbuf_addstr(sb, "<br>");
	if (!peaks_side_by_side(s, sb))
		strbuf_setlen(sb, at);
	at = sb->len;
	strbuf_addstr(sb, "<br>Other accounts: ");
	if (!peaks_other_accounts(s, sb, strbuf_add_html))
		strbuf_setlen(sb, at);
	strbuf_addstr(sb, "</div></div>\n");
}

/* Key figure 2, when the OOM was PyTorch's: the allocation that failed
 * (nothing was killed: the process raised). */
static void card_failed_allocation(struct strbuf *sb, const struct report_summary *s)
{
	char buf[64];

	fmt_bytes(buf, sizeof(buf), (double)s->victim_bytes);
	strbuf_addf(sb, "<div class=key><div class=kl>Failed allocation</div>"
		    "<div class=kv>%s</div><div class=ks>%s (torch_oom)", buf, s->torch_said);
	if (s->victim_comm.len) {
		strbuf_addstr(sb, " in ");
		h_text(sb, s->victim_comm.buf, s->victim_comm.len);
	}
	if (s->victim_pid != OL_NULL)
		strbuf_addf(sb, ", pid %lld", (long long)s->victim_pid);
	strbuf_addstr(sb, "</div></div>\n");
}

/* Key figure 2, when a process's own allocation failed on another stack
 * (mem_failure, engine_oom...): the allocation, and that nothing was
 * killed. */
static void card_own_failure(struct strbuf *sb, const struct report_summary *s)
{
	char buf[64] = "size not stated";

	if (s->oom_req != OL_NULL && s->oom_req > 0)
		fmt_bytes(buf, sizeof(buf), (double)s->oom_req);
	strbuf_addf(sb, "<div class=key><div class=kl>Failed allocation</div><div class=kv>%s"
		    "</div><div class=ks>", buf);
	h_text(sb, s->oom_kind.buf, s->oom_kind.len);
	if (s->has_victim && s->victim_pid != OL_NULL)
		strbuf_addf(sb, ", pid %lld", (long long)s->victim_pid);
	strbuf_addstr(sb, "; nothing was killed</div></div>\n");
}

/* Key figure 2: the process the OOM took. */
static void card_killed(struct strbuf *sb, const struct report_summary *s)
{
	char buf[64];

	strbuf_addstr(sb, "<div class=key><div class=kl>Killed</div><div class=kv>");
	if (!s->has_victim) {
		strbuf_addstr(sb, "unknown</div><div class=ks>no kill recorded in the artifacts"
				  "</div></div>\n");
		return;
	}
	if (s->victim_comm.len)
		h_text(sb, s->victim_comm.buf, s->victim_comm.len);
	else
		strbuf_addstr(sb, "name unknown");
	strbuf_addstr(sb, "</div><div class=ks>");
	if (s->victim_pid != OL_NULL)
		strbuf_addf(sb, "pid %lld, ", (long long)s->victim_pid);
	h_text(sb, s->victim_kind.buf, s->victim_kind.len);
	if (s->victim_bytes != OL_NULL) {
		fmt_bytes(buf, sizeof(buf), (double)s->victim_bytes);
		strbuf_addf(sb, ", %s %s", buf,
			    !strcmp(s->victim_kind.buf, "torch_oom") ? "requested" : "freed");
	}
	strbuf_addstr(sb, "</div></div>\n");
}

/* Key figure 3: the strongest finding's lead figure. */
static void card_finding(struct strbuf *sb, const struct report_summary *s)
{
	strbuf_addstr(sb, "<div class=key><div class=kl>");
	if (s->top_key.len) {
		struct strbuf lab = STRBUF_INIT;
		figure_label(&lab, s->top_key.buf);
		h_text(sb, lab.buf, lab.len);
		strbuf_inherit(sb, &lab);
		strbuf_release(&lab);
		strbuf_addstr(sb, "</div><div class=kv>");
		h_text(sb, s->top_value.buf, s->top_value.len);
		strbuf_addstr(sb, "</div><div class=ks>");
		h_text(sb, s->top_title.buf, s->top_title.len);
	} else if (s->n_findings) {
		strbuf_addstr(sb, "Top finding</div><div class=kv>");
		h_text(sb, s->top_title.buf, s->top_title.len);
		strbuf_addstr(sb, "</div><div class=ks>");
	} else {
		strbuf_addstr(sb, "Findings</div><div class=kv>none</div><div class=ks>"
				  "no rule found enough evidence");
	}
	if (s->n_findings > 1)
		strbuf_addf(sb, " <span class=muted>(+%d more findings)</span>", s->n_findings - 1);
	strbuf_addstr(sb, "</div></div>\n");
}

/* What the kernel's OOM report says, in plain words (reading.c). */
static void header_reading(struct strbuf *sb, const struct report_summary *s)
{
	int i;

	if (!s->n_kernel)
		return;
	strbuf_addstr(sb, "<div class=reading><div class=kl>What the kernel's OOM report says"
			  "</div><ul>");
	for (i = 0; i < s->n_kernel; i++) {
		strbuf_addstr(sb, "<li>");
		h_text(sb, s->kernel[i].buf, s->kernel[i].len);
		strbuf_addstr(sb, "</li>");
	}
	strbuf_addstr(sb, "</ul></div>\n");
}

/* What filled the card when PyTorch ran out: a strip and its legend. */
static void header_card(struct strbuf *sb, const struct report_summary *s)
{
	struct bar_seg g[8];
	char b[32];
	int n, i;

	if (!s->has_card || !(s->card_total > 0) || !(n = summary_card_slices(s, g)))
		return;
	fmt_bytes(b, sizeof(b), s->card_total);
	strbuf_addf(sb, "<div class=reading><div class=kl>What filled the %s card", b);
	if (isfinite(s->card_req)) {
		fmt_bytes(b, sizeof(b), s->card_req);
		strbuf_addf(sb, " when %s could not be allocated", b);
	}
	strbuf_addstr(sb, " (PyTorch's out-of-memory message)</div>");
	ledger_bar(sb, g, n, s->card_total);
	strbuf_addstr(sb, "<div class=ks>");
	for (i = 0; i < n; i++) {
		fmt_bytes(b, sizeof(b), g[i].bytes);
		strbuf_addf(sb, "%s<span class=sw style=\"background:%s\"></span>%s %s",
			    i ? " &middot; " : "", ledger_color(g[i].line), g[i].name, b);
	}
	strbuf_addstr(sb, "</div></div>\n");
}

/* The memory profile when no OOM was recorded (profile.c). */
static void header_profile(struct strbuf *sb, const struct report_summary *s)
{
	size_t at = sb->len;

	if (!summary_is_profile(s))
		return;
	strbuf_addstr(sb, "<div class=reading><div class=kl>Memory profile, per account</div><ul>");
	if (!profile_lines(s, sb, strbuf_add_html, "<li>", "</li>"))
		strbuf_setlen(sb, at);
	else
		strbuf_addstr(sb, "</ul></div>\n");
}

/* The navigation: one link per HTML section of the table, in its order. */
static void nav(struct strbuf *sb)
{
	int i;

	strbuf_addstr(sb, "<nav>");
	for (i = 0; report_sections[i].id; i++)
		if (report_sections[i].html)
			strbuf_addf(sb, "<a href=\"#%s\">%s</a>", section_anchor(&report_sections[i]),
				    report_sections[i].nav);
	strbuf_addstr(sb, "</nav>");
}

/* The page's header: first OOM, verdict, three key figures, navigation. */
static void header(struct strbuf *sb, const struct report_summary *s, const json_t *answer)
{
	header_oom(sb, s);
	header_verdict(sb, s);
	html_answer(sb, answer);
	strbuf_addstr(sb, "<div class=keys>\n");
	card_peak(sb, s);
	if (s->has_victim && !strcmp(s->victim_kind.buf, "torch_oom") &&
	    s->victim_bytes != OL_NULL)
		card_failed_allocation(sb, s);
	else if (summary_own_failure(s))
		card_own_failure(sb, s);
	else
		card_killed(sb, s);
	card_finding(sb, s);
	strbuf_addstr(sb, "</div>\n");
	header_profile(sb, s);
	header_reading(sb, s);
	header_card(sb, s);
	nav(sb);
	strbuf_addstr(sb, "</header>\n");
}

/* The page: head and style, header, the memory budget's note when the
 * report is partial, each HTML section of the table in its <section>,
 * footer; written at once, complete or not at all. */
int report_html_write(struct report_ctx *c, FILE *out)
{
	struct strbuf sb = STRBUF_INIT, note = STRBUF_INIT;
	size_t at;
	int i, r;

	strbuf_addf(&sb, "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
		    OOMLENS_HTML_GENERATOR OOMLENS_VERSION "\">"
		    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none';"
		    " style-src 'unsafe-inline'; img-src data:\">"
		    "<meta name=viewport content=\"width=device-width,initial-scale=1\">"
		    "<title>%s</title><style>%s</style></head><body>\n",
		    summary_is_profile(&c->sum) ? "Memory profile: no OOM recorded"
						: "OOM incident report", report_html_css);
	header(&sb, &c->sum, report_model(c, "answer"));
	at = sb.len;
	for (i = 0; report_sections[i].id; i++) {
		const struct section *s = &report_sections[i];
		if (!s->html)
			continue;
		strbuf_addf(&sb, "<section id=%s><h2>%s</h2>\n", section_anchor(s), s->heading);
		s->html(&sb, c, s->load ? report_model(c, s->id) : NULL);
		strbuf_addstr(&sb, "</section>\n");
	}
	strbuf_addf(&sb, "<footer>oomlens %s &middot; schema %lld &middot; every row behind this"
		    " report is in the incident database (<code>sqlite3 incident.db</code>).</footer>\n"
		    "</body></html>\n", OOMLENS_VERSION,
		    (long long)json_integer_value(report_model(c, "schema")));
	/* the budget's note under the header, once every section is read */
	report_cut_note(&note, c, 1);
	r = !strbuf_failed(&sb) && !strbuf_failed(&note) && !report_summary_failed(&c->sum) &&
	    fwrite(sb.buf, 1, at, out) == at &&
	    fwrite(note.buf, 1, note.len, out) == note.len &&
	    fwrite(sb.buf + at, 1, sb.len - at, out) == sb.len - at ? 0 : -1;
	strbuf_release(&sb);
	strbuf_release(&note);
	return r;
}

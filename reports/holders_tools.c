/*
 * holders_tools.c -- what held the memory as the diagnostic tools tell it
 * (memray's top allocating locations and modules, the PyTorch profiler's
 * operators by each memory column), next to the snapshot's holders in the
 * holders section: one table per tool, report and list, in the tool's own
 * order, each location with the Python frame the tool named. Read from
 * the holder table's tool rows (docs/schema.md "Diagnostic tools").
 */
#include "reports/holders.h"
#include "reports/html_util.h"
#include "reports/md_util.h"
#include "reports/summary.h"
#include "analyzer/store/query.h"
#include "lib/common.h"

#include <stdio.h>
#include <string.h>

#define TOOL_ROWS 10         /* rows shown per list */
#define TOOL_READ 600        /* rows read in all */
#define MD_TOOL_ROWS 5

/* The heading of the list a tool row belongs to into buf. */
static void list_title(const json_t *r, char *buf, size_t n)
{
	const char *tool = json_string_value(json_object_get(r, "tool"));
	const json_t *info = json_object_get(r, "info");
	const char *kind = json_string_value(json_object_get(info, "kind"));
	const char *column = json_string_value(json_object_get(info, "column"));
	int by_count = jv_null(r, "bytes");

	if (tool && !strcmp(tool, "memray"))
		snprintf(buf, n, "memray: top allocating %s by %s",
			 kind && !strcmp(kind, "module") ? "modules" : "locations",
			 by_count ? "number of allocations" : "size");
	else if (tool && !strcmp(tool, "torch_profiler"))
		snprintf(buf, n, "PyTorch profiler: operators by %s", column ? column : "memory");
	else
		snprintf(buf, n, "%s: %s", tool ? tool : "tool",
			 json_string_value(json_object_get(r, "scope")) ?
			 json_string_value(json_object_get(r, "scope")) : "holders");
}

json_t *holders_tools_load(struct report_ctx *c)
{
	sqlite3_stmt *frames = r_has_table(c, "frame") ? r_prepare(c, "SELECT name, file, line"
		" FROM frame WHERE stack_id = ? ORDER BY idx LIMIT 8") : NULL;
	json_t *rows, *lists = json_array(), *cur = NULL, *r;
	char title[160], last[160] = "";
	int64_t art = OL_NULL;
	size_t i;

	if (!r_has_table(c, "holder")) {
		sqlite3_finalize(frames);
		return lists;
	}
	rows = r_rows(c, "SELECT h.tool, h.scope, h.space, h.device, h.bytes, h.allocations,"
		      " h.rank, h.label, h.stack_id, h.data AS info_json, h.artifact_id, a.path AS"
		      " artifact FROM holder h LEFT JOIN artifact a ON a.id = h.artifact_id WHERE"
		      " h.tool <> 'torch_snapshot' ORDER BY h.artifact_id, h.tool,"
		      " json_extract(h.data, '$.column'), json_extract(h.data, '$.kind'),"
		      " h.bytes IS NULL, h.rank LIMIT 600", TOOL_READ);
	json_array_foreach(rows, i, r) {
		list_title(r, title, sizeof(title));
		if (!cur || jv_int(json_object_get(r, "artifact_id")) != art || strcmp(title, last)) {
			cur = json_pack("{s:s, s:O?, s:O?, s:O?, s:[], s:I}", "title", title, "tool",
					json_object_get(r, "tool"), "artifact",
					json_object_get(r, "artifact"), "space",
					json_object_get(r, "space"), "rows", "total", (json_int_t)0);
			json_array_append_new(lists, cur);
			art = jv_int(json_object_get(r, "artifact_id"));
			snprintf(last, sizeof(last), "%s", title);
		}
		json_object_set_new(cur, "total", json_integer(jv_int(json_object_get(cur, "total")) + 1));
		if (json_array_size(json_object_get(cur, "rows")) >= TOOL_ROWS)
			continue;
		if (frames && !jv_null(r, "stack_id")) {
			sqlite3_bind_int64(frames, 1, jv_int(json_object_get(r, "stack_id")));
			json_object_set_new(r, "frames", q_rows_next(frames, -1));
		}
		json_array_append(json_object_get(cur, "rows"), r);
	}
	json_decref(rows);
	sqlite3_finalize(frames);
	return lists;
}

/* The frame a tool named for row r (innermost), or its label. */
static void html_tool_frame(struct strbuf *sb, const json_t *r)
{
	const json_t *f = json_array_get(json_object_get(r, "frames"), 0);

	if (!f) {
		strbuf_addstr(sb, jv_null(r, "stack_id") ? "<span class=muted>" : "<span>");
		h_key(sb, r, "label");
		strbuf_addstr(sb, "</span>");
		return;
	}
	strbuf_addstr(sb, "<code>");
	h_key(sb, f, "name");
	strbuf_addstr(sb, "</code> <span class=muted>");
	h_key(sb, f, "file");
	if (!jv_null(f, "line"))
		strbuf_addf(sb, ":%lld", (long long)jv_int(json_object_get(f, "line")));
	strbuf_addstr(sb, "</span>");
}

void html_holders_tools(struct strbuf *sb, const json_t *lists)
{
	const json_t *l, *r;
	size_t i, j;

	if (!json_array_size(lists))
		return;
	strbuf_addstr(sb, "<h3>As the diagnostic tools tell it</h3>\n<p class=muted>Each tool's own"
			  " list, in its order: memray counts what each location allocated over the"
			  " whole run (host memory), the profiler what each operator allocated"
			  " (self: its own; otherwise with its children). Not the memory live at"
			  " one moment.</p>\n");
	json_array_foreach(lists, i, l) {
		strbuf_addstr(sb, "<p class=sub>");
		h_key(sb, l, "title");
		strbuf_addstr(sb, " <span class=muted>(");
		h_key(sb, l, "artifact");
		strbuf_addstr(sb, ")</span></p>\n<table class=stacks><tr><th class=n>#</th>"
				  "<th class=n>bytes</th><th class=n>allocations</th>"
				  "<th>location (the frame the tool named)</th></tr>\n");
		json_array_foreach(json_object_get(l, "rows"), j, r) {
			strbuf_addf(sb, "<tr><td class=n>%lld</td>",
				    (long long)jv_int(json_object_get(r, "rank")));
			h_bytes_td(sb, json_object_get(r, "bytes"));
			h_num_td(sb, json_object_get(r, "allocations"));
			strbuf_addstr(sb, "<td>");
			html_tool_frame(sb, r);
			strbuf_addstr(sb, "</td></tr>\n");
		}
		strbuf_addstr(sb, "</table>\n");
		h_more(sb, jv_int(json_object_get(l, "total")),
		       (int64_t)json_array_size(json_object_get(l, "rows")), "rows");
	}
}

void md_holders_tools(struct strbuf *sb, const json_t *lists)
{
	const json_t *l, *r;
	size_t i, j;
	char b[32];

	if (!json_array_size(lists))
		return;
	strbuf_addstr(sb, "### What held the memory, as the diagnostic tools tell it\n\n");
	json_array_foreach(lists, i, l) {
		strbuf_addstr(sb, "- **");
		md_key(sb, l, "title");
		strbuf_addstr(sb, "** (");
		md_key(sb, l, "artifact");
		strbuf_addstr(sb, "):\n");
		json_array_foreach(json_object_get(l, "rows"), j, r) {
			if (j == MD_TOOL_ROWS)
				break;
			strbuf_addf(sb, "  %lld. ", (long long)jv_int(json_object_get(r, "rank")));
			if (!jv_null(r, "bytes")) {
				fmt_bytes(b, sizeof(b), jv_real(json_object_get(r, "bytes")));
				strbuf_addf(sb, "%s", b);
			} else {
				strbuf_addf(sb, "%lld allocations",
					    (long long)jv_int(json_object_get(r, "allocations")));
			}
			strbuf_addstr(sb, ": ");
			md_key(sb, r, "label");
			strbuf_addstr(sb, "\n");
		}
	}
	strbuf_addstr(sb, "\n");
}

/*
 * gpu_core.c -- what the CUDA and host core dumps hold (HTML only):
 * devices, contexts per device, the kernels running, the device memory
 * recorded, CUDA exceptions and the host core's threads, each a table of
 * its domain table when that table has rows.
 */
#include "reports/section.h"
#include "reports/html_util.h"

#include <stdio.h>

/* The tables, in the order shown: a domain table (NULL: the event table),
 * the rows it must have (count), the rows shown, at most cap; counted
 * again past the cap when more. */
static const struct {
	const char *title;
	const char *table;
	const char *count;
	const char *sql;
	int cap;
	int counted;    /* say "N more" past the cap */
} gpu_tables[] = {
	{ "Devices", "gpu_device", "SELECT count(*) FROM gpu_device",
	  "SELECT device, name, sm_type, num_sms, warps_per_sm, lanes_per_warp, contexts"
	  " FROM gpu_device ORDER BY artifact_id, device LIMIT 16", 16, 1 },
	{ "Contexts per device", "gpu_context", "SELECT count(*) FROM gpu_context",
	  "SELECT device, count(*) AS contexts, count(DISTINCT tid) AS threads FROM gpu_context"
	  " GROUP BY device ORDER BY device LIMIT 64", 64, 0 },
	{ "Kernels running", "gpu_grid", "SELECT count(*) FROM gpu_grid",
	  "SELECT device, grid_id, function, grid_x || 'x' || grid_y || 'x' || grid_z AS grid,"
	  " block_x || 'x' || block_y || 'x' || block_z AS block, status, exception"
	  " FROM gpu_grid ORDER BY exception IS NULL, device, grid_id LIMIT 50", 50, 1 },
	{ "Device memory recorded", "gpu_region", "SELECT count(*) FROM gpu_region",
	  "SELECT device, kind, count(*) AS regions, sum(size) AS total_size FROM gpu_region"
	  " GROUP BY device, kind ORDER BY device, total_size DESC LIMIT 64", 64, 0 },
	{ "Exceptions", NULL, "SELECT count(*) FROM event WHERE kind = 'cuda_exception'",
	  "SELECT time_ns, pid, comm, summary FROM event WHERE kind = 'cuda_exception'"
	  " ORDER BY time_ns, id LIMIT 20", 20, 1 },
	{ "Host core threads", "thread", "SELECT count(*) FROM thread",
	  "SELECT t.tid, t.crashed, t.signal,"
	  " (SELECT group_concat(coalesce(f.name, f.file || '+' || f.line), ' < ')"
	  "  FROM (SELECT * FROM frame WHERE stack_id = t.stack_id ORDER BY idx LIMIT 6) f)"
	  " AS top_frames FROM thread t ORDER BY t.crashed DESC, t.tid LIMIT 30", 30, 1 },
};
#define NTABLES (sizeof(gpu_tables) / sizeof(gpu_tables[0]))

/* An array of {"title", "table"} (table: an r_table model, or absent when
 * its query does not compile), one per domain table with rows. */
json_t *load_gpu_core(struct report_ctx *c)
{
	json_t *shown = json_array();
	size_t i;

	for (i = 0; i < NTABLES; i++) {
		int64_t n;
		json_t *t, *o;
		if (gpu_tables[i].table && !r_has_table(c, gpu_tables[i].table))
			continue;
		n = r_int(c, gpu_tables[i].count, 0);
		if (n <= 0)
			continue;
		t = r_table(c, gpu_tables[i].sql, gpu_tables[i].counted ? n : -1, gpu_tables[i].cap);
		o = json_pack("{s:s}", "title", gpu_tables[i].title);
		if (t)
			json_object_set_new(o, "table", t);
		json_array_append_new(shown, o);
	}
	return shown;
}

void html_gpu_core(struct strbuf *sb, struct report_ctx *c, const json_t *m)
{
	const json_t *t;
	size_t i;

	(void)c;
	json_array_foreach(m, i, t) {
		strbuf_addf(sb, "<h3>%s</h3>\n", json_string_value(json_object_get(t, "title")));
		h_table(sb, json_object_get(t, "table"));
	}
	if (!json_array_size(m))
		h_na(sb, "Not available: no CUDA or host core dump was ingested.");
}

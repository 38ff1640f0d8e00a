/*
 * victim.c -- misconfiguration: the kernel's OOM killer picked a victim
 * that is not the largest process of its task dump, because oom_score_adj
 * protected the largest (< 0) or exposed the victim (> 0); or, with equal
 * adjustments, it killed the wrong process anyway (wrong_victim). The
 * victim's adjustment comes from its task row, else from the oom_kill
 * event's data (the 5.4+ kill line prints it). Kernels to 5.0 chose a
 * process ("Kill process N (c) score S or sacrifice child") and killed its
 * child instead when it had one with its own memory (mm/oom_kill.c
 * oom_kill_process, v4.19): the choice is the kernel's decision, so the
 * chosen process is the one weighed against the largest, and the title
 * names the child it killed.
 */
#include "analyzer/rules/rulelib.h"

#include <stdio.h>

int rule_victim(struct rule_ctx *c)
{
	sqlite3_stmt *st;
	struct rl_finding f;
	double page = 4096;
	int r = 0;

	rl_meta_num(c, "kernel.page_size", &page);
	/* the victim of each kernel OOM report (table oom: its kill, and its
	 * header, the report's main event) and the largest task of its dump */
	st = rl_prepare(c,
		"WITH k AS (SELECT o.victim_event AS kid, coalesce(CASE WHEN json_valid(e.data) THEN"
		"  json_extract(e.data, '$.selected_pid') END, o.victim_pid) AS vpid, e.data AS kdata,"
		"  o.event_id AS inv, o.victim_pid AS killed, o.victim_comm AS kcomm"
		"  FROM oom o JOIN event e ON e.id = o.victim_event"
		"  WHERE o.kind IN ('kernel_oom', 'memcg_oom') AND e.kind = 'oom_kill'"
		"  AND o.victim_pid IS NOT NULL)"
		" SELECT k.kid, k.inv, v.pid, v.name, v.rss_pages,"
		"  coalesce(v.oom_score_adj, CASE WHEN json_valid(k.kdata) THEN"
		"   json_extract(k.kdata, '$.oom_score_adj') END, 0),"
		"  b.pid, b.name, b.rss_pages, coalesce(b.oom_score_adj, 0), b.id,"
		"  CASE WHEN k.killed != k.vpid THEN k.kcomm END, k.killed"
		" FROM k JOIN task v ON v.event_id = k.inv AND v.pid = k.vpid"
		" JOIN task b ON b.id = (SELECT id FROM task WHERE event_id = k.inv"
		"  ORDER BY rss_pages DESC LIMIT 1)"
		" WHERE b.pid != v.pid AND b.rss_pages > v.rss_pages ORDER BY k.kid LIMIT 1");
	if (!st)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW) {
		int64_t vadj = sqlite3_column_int64(st, 5), badj = sqlite3_column_int64(st, 9), fid;
		double vr = sqlite3_column_double(st, 4) * page, br = sqlite3_column_double(st, 8) * page;
		int adj = vadj > badj;
		char b1[32], b2[32];

		rl_finding_init(&f, "victim", "misconfig", adj ? "oom_score_adj" : "wrong_victim");
		f.score = adj ? 0.6 : 0.4;
		if (sqlite3_column_type(st, 11) != SQLITE_NULL) {   /* a child sacrificed */
			rl_fig(&f, "victim_pid", sqlite3_column_double(st, 12));
			rl_fig(&f, "chosen_pid", sqlite3_column_double(st, 2));
			rl_fig(&f, "chosen_rss_bytes", vr);
			rl_fig(&f, "chosen_oom_score_adj", (double)vadj);
		} else {
			rl_fig(&f, "victim_pid", sqlite3_column_double(st, 2));
			rl_fig(&f, "victim_rss_bytes", vr);
			rl_fig(&f, "victim_oom_score_adj", (double)vadj);
		}
		rl_fig(&f, "largest_pid", sqlite3_column_double(st, 6));
		rl_fig(&f, "largest_rss_bytes", br);
		rl_fig(&f, "largest_oom_score_adj", (double)badj);
		if (sqlite3_column_type(st, 11) != SQLITE_NULL)   /* a child sacrificed */
			snprintf(f.title, sizeof(f.title), "The OOM killer chose %s (%s, oom_score_adj"
				 " %lld) and killed its child %s (pid %lld) while %s held %s"
				 " (oom_score_adj %lld)", q_text(st, 3), rl_bytes(vr, b1, sizeof(b1)),
				 (long long)vadj, q_text(st, 11), (long long)sqlite3_column_int64(st, 12),
				 q_text(st, 7), rl_bytes(br, b2, sizeof(b2)), (long long)badj);
		else
			snprintf(f.title, sizeof(f.title), "The OOM killer killed %s (%s, oom_score_adj"
				 " %lld) while %s held %s (oom_score_adj %lld)", q_text(st, 3),
				 rl_bytes(vr, b1, sizeof(b1)), (long long)vadj, q_text(st, 7),
				 rl_bytes(br, b2, sizeof(b2)), (long long)badj);
		if (adj)
			rl_advice(&f, "oom_score_adj %s: set it to 0 for both (or protect the victim,"
				  " not the process that grows) so the kernel kills the process that"
				  " caused the pressure.", badj < 0 ? "protects the largest process" :
				  "exposes the victim");
		else
			rl_advice(&f, "Give each service its own cgroup limit (memory.max) so the one"
				  " that grows is the one limited.");
		fid = rl_finding_write(c, &f);
		if (fid < 0 || rl_evidence(c, fid, "event", sqlite3_column_int64(st, 0), "oom_kill") < 0 ||
		    rl_evidence(c, fid, "task", sqlite3_column_int64(st, 10), "largest task") < 0)
			r = -1;
		else
			r = 1;
	}
	sqlite3_finalize(st);
	return r;
}

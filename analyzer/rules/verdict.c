/*
 * verdict.c -- run the rules and combine their findings into one verdict:
 * the class with the strongest evidence, its contributing causes, and a
 * confidence; "inconclusive" with the missing evidence named otherwise.
 *
 * Combination: each class scores its best finding (>= VERDICT_MIN_SCORE).
 * The primary class is the best-scoring one, except that a leak and a
 * spike found together make a leak (the leak ate the headroom, the spike
 * only tipped it over; the spike is named as contributing). Confidence =
 * the primary's score, raised a little by each further finding of the
 * same class and lowered by the strength of the strongest other class.
 */
#include "analyzer/rules/rules.h"
#include "analyzer/rules/rulelib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct rule rules[] = {
	{ "leak", "memory in use that keeps growing; allocation stacks that never free",
	  rule_leak },
	{ "spike", "a sharp rise over a stable baseline just before the OOM", rule_spike },
	{ "headroom", "baseline leaving less room than one request needs", rule_headroom },
	{ "limits", "configured limits larger than the device", rule_limits },
	{ "fragmentation", "memory reserved but not in one piece", rule_fragmentation },
	{ "contexts", "more CUDA contexts per device than processes", rule_contexts },
	{ "victim", "OOM killer victim chosen by oom_score_adj", rule_victim },
	{ NULL, NULL, NULL }
};

static const char *const classes[] = { "misconfig", "leak", "spike", NULL };

struct class_score {
	double best;
	int n;
	char cause[64];
	char title[300];
};

/* What is absent from the timeline, for the verdict's missing column. */
static void missing_evidence(struct rule_ctx *c, char *buf, size_t n)
{
	double v;

	buf[0] = 0;
	if (rl_query_num(c, "SELECT 1 FROM series s WHERE s.name IN ('torch.allocated_bytes',"
			 " 'gpu.used_bytes', 'proc.rss_bytes', 'proc.anon_bytes', 'cgroup.current_bytes',"
			 " 'cgroup.anon_bytes') AND (SELECT count(*) FROM (SELECT 1 FROM sample p"
			 " WHERE p.series_id = s.id LIMIT 8)) >= 8 LIMIT 1", &v) < 0)
		strncat(buf, "memory in use over time before the OOM (nvidia-smi/DCGM log,"
			" smaps_rollup or cgroup captures); ", n - strlen(buf) - 1);
	if (!rl_table_exists(c, "snapshot") ||
	    rl_query_num(c, "SELECT 1 FROM snapshot LIMIT 1", &v) < 0)
		strncat(buf, "an allocator snapshot (torch.cuda.memory._snapshot() pickle); ",
			n - strlen(buf) - 1);
	if (rl_query_num(c, "SELECT 1 FROM series WHERE name = 'server.running' LIMIT 1", &v) < 0)
		strncat(buf, "server load (vLLM/TGI engine statistics); ", n - strlen(buf) - 1);
	if (rl_query_num(c, "SELECT 1 FROM event WHERE kind IN ('torch_oom', 'oom_kill',"
			 " 'oom_invoked', 'userspace_kill', 'cuda_exception') LIMIT 1", &v) < 0)
		strncat(buf, "the OOM event itself (kernel log or the OutOfMemoryError); ",
			n - strlen(buf) - 1);
	if (strlen(buf) >= 2)
		buf[strlen(buf) - 2] = 0;
}

static int write_verdict(struct rule_ctx *c)
{
	struct class_score cs[3];
	sqlite3_stmt *st;
	char summary[1600], missing[600], contrib[600] = "", lead[300] = "";
	double conf, other = 0;
	int i, p = -1, r = -1;

	memset(cs, 0, sizeof(cs));
	if (sqlite3_prepare_v2(c->tl->db, "SELECT class, cause, score, title FROM finding"
			       " WHERE score >= ? ORDER BY score DESC, id", -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_double(st, 1, VERDICT_MIN_SCORE);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *c = (const char *)sqlite3_column_text(st, 0);
		for (i = 0; classes[i]; i++)
			if (c && !strcmp(c, classes[i]))
				break;
		if (!classes[i])
			continue;
		if (!cs[i].n++) {
			cs[i].best = sqlite3_column_double(st, 2);
			snprintf(cs[i].cause, sizeof(cs[i].cause), "%s",
				 sqlite3_column_text(st, 1) ? (const char *)sqlite3_column_text(st, 1) : "");
			snprintf(cs[i].title, sizeof(cs[i].title), "%s",
				 sqlite3_column_text(st, 3) ? (const char *)sqlite3_column_text(st, 3) : "");
		} else {
			char one[100];
			snprintf(one, sizeof(one), "%s%s (%s)", contrib[0] ? ", " : "",
				 rl_col_text(st, 1), c);
			if (strlen(contrib) + strlen(one) + 1 < sizeof(contrib))
				strcat(contrib, one);
		}
	}
	sqlite3_finalize(st);
	/* classes in tie-break order: misconfig, leak, spike */
	for (i = 0; classes[i]; i++)
		if (cs[i].n && (p < 0 || cs[i].best > cs[p].best))
			p = i;
	if (p == 2 && cs[1].n && cs[1].best >= 0.5)
		p = 1;   /* a leak tipped over by a spike */
	missing_evidence(c, missing, sizeof(missing));
	if (p < 0) {
		snprintf(summary, sizeof(summary), "No rule found enough evidence to classify the"
			 " incident%s", missing[0] ? "; missing evidence is listed" : "");
		st = NULL;
		if (sqlite3_prepare_v2(c->tl->db, "INSERT INTO verdict(class, cause, confidence, summary,"
				       " missing) VALUES('inconclusive', NULL, 0.0, ?, ?)", -1, &st,
				       NULL) != SQLITE_OK)
			return -1;
		sqlite3_bind_text(st, 1, summary, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, missing[0] ? missing : "no memory pressure found in the"
				  " evidence given", -1, SQLITE_STATIC);
		r = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
		sqlite3_finalize(st);
		return r;
	}
	for (i = 0; classes[i]; i++)
		if (i != p && cs[i].n) {
			size_t len = strlen(lead);
			if (cs[i].best > other)
				other = cs[i].best;
			/* the other classes' best causes lead the list */
			snprintf(lead + len, sizeof(lead) - len, "%s%s (%s)", len ? ", " : "",
				 cs[i].cause, classes[i]);
		}
	conf = cs[p].best * (0.85 + 0.075 * (cs[p].n > 3 ? 2 : cs[p].n - 1));
	conf *= 1 - 0.3 * other;
	if (p == 1 && cs[2].n)
		conf = cs[p].best * 0.9;   /* leak + spike agree on the story */
	conf = rl_clamp01(conf);
	snprintf(summary, sizeof(summary), "%s: %s.%s%s%s%s", classes[p], cs[p].title,
		 lead[0] || contrib[0] ? " Contributing: " : "", lead,
		 lead[0] && contrib[0] ? ", " : "", contrib);
	if (sqlite3_prepare_v2(c->tl->db, "INSERT INTO verdict(class, cause, confidence, summary,"
			       " missing) VALUES(?,?,?,?,?)", -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, classes[p], -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, cs[p].cause, -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 3, (double)(int)(conf * 1000 + 0.5) / 1000);
	sqlite3_bind_text(st, 4, summary, -1, SQLITE_STATIC);
	if (missing[0])
		sqlite3_bind_text(st, 5, missing, -1, SQLITE_STATIC);
	r = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
	sqlite3_finalize(st);
	return r;
}

int analyze_timeline(struct timeline *tl)
{
	struct rule_ctx *c = calloc(1, sizeof(*c));   /* large: the series cache */
	const struct rule *r;
	int ret = -1;

	if (!c)
		return -1;
	c->tl = tl;
	if (timeline_exec(tl, "BEGIN; DELETE FROM evidence; DELETE FROM finding;"
			  " DELETE FROM verdict") < 0)
		goto done;
	c->oom_ns = rl_oom_time(c);
	for (r = rules; r->name; r++)
		if (r->run(c) < 0) {
			fprintf(stderr, "oomlens: rule %s failed\n", r->name);
			timeline_exec(tl, "ROLLBACK");
			goto done;
		}
	if (write_verdict(c) < 0) {
		timeline_exec(tl, "ROLLBACK");
		goto done;
	}
	ret = timeline_exec(tl, "COMMIT");
done:
	free(c);
	return ret;
}

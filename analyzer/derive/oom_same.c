/*
 * oom_same.c -- one Kubernetes kill told by two pastes is one OOM; one
 * line read by two readers is one failure (below).
 *
 * A folder of pastes of one incident often holds both `kubectl get pods`
 * (a row whose STATUS is OOMKilled, with its RESTARTS) and `kubectl
 * describe pod` of the same pod (Last State: Terminated, Reason:
 * OOMKilled, Exit Code 137, Restart Count, Started/Finished). Each reader
 * keeps its record, one k8s_oom_kill event each (parsers/k8s/k8s.c only
 * folds the two when they are in one file); here, before the rows of
 * table `oom` are numbered, candidates of temp.oom_cand that tell the
 * same kill become one row whose evidence lists every record, so both
 * sources stay named.
 *
 * Two records are the same kill when they come from different files and
 * nothing they state disagrees: the pod, the namespace and the container
 * (each equal, or unknown on either side), the restart count (the kubelet
 * raises it at each restart, so two records of one termination carry the
 * same count: kubernetes pkg/printers/internalversion/printers.go
 * @v1.28.0 prints it in RESTARTS, describe.go @v1.28.0 as Restart Count)
 * and the time (describe's Finished; `get pods` prints none). Two
 * records with different counts or times are two kills and stay two.
 * The row kept is the one that says most: timed, then naming its
 * container, then the earlier record.
 */
#include "analyzer/derive/oom.h"
#include "lib/strbuf.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define SAME_MAX 64   /* k8s kill candidates weighed; past it: each stays a row */

/* One k8s_oom_kill candidate and what its event states (NULL fields: ""
 * or INT64_MIN). */
struct kk {
	int64_t rowid, artifact, time_ns, restarts;
	char pod[128], ns[64], container[128];
	int kept;        /* 1: a row of its own; 0: folded into another */
	int64_t arts[8]; /* kept: the files of the records folded into it */
	int narts;
};

static const char kills_sql[] =
	"SELECT c.rowid, coalesce(c.artifact_id, 0), c.time_ns,"
	" json_extract(e.data, '$.restart_count'), coalesce(json_extract(e.data, '$.pod'), ''),"
	" coalesce(json_extract(e.data, '$.namespace'), ''),"
	" coalesce(json_extract(e.data, '$.container'), '')"
	" FROM temp.oom_cand c JOIN event e ON e.id = c.event_id"
	" WHERE c.kind = 'k8s_oom_kill' AND json_valid(e.data)"
	" ORDER BY c.time_ns IS NULL, json_extract(e.data, '$.container') IS NULL, c.event_id";

/* Fold candidate `drop` into `keep`: its evidence joins keep's, the
 * victim's name and the time fill what keep lacks; drop is deleted. */
static const char fold_sql[] =
	"UPDATE temp.oom_cand SET evidence = (SELECT json_group_array(v) FROM (SELECT j.value AS v"
	"  FROM temp.oom_cand o, json_each(o.evidence) j WHERE o.rowid IN (?1, ?2)"
	"  AND json_valid(o.evidence) GROUP BY j.value ORDER BY j.value)),"
	" victim_comm = coalesce(victim_comm, (SELECT victim_comm FROM temp.oom_cand WHERE rowid = ?2)),"
	" time_ns = coalesce(time_ns, (SELECT time_ns FROM temp.oom_cand WHERE rowid = ?2)),"
	" clock = CASE WHEN time_ns IS NULL THEN (SELECT clock FROM temp.oom_cand WHERE rowid = ?2)"
	"  ELSE clock END WHERE rowid = ?1;"
	"DELETE FROM temp.oom_cand WHERE rowid = ?2";

static int agree_text(const char *a, const char *b)
{
	return !*a || !*b || !strcmp(a, b);
}

static int agree_int(int64_t a, int64_t b, int64_t slack)
{
	return a == INT64_MIN || b == INT64_MIN || (a > b ? a - b : b - a) <= slack;
}

/* Whether b can be the kill kept row a tells (see the file's comment):
 * never a second record of a file a's records came from. */
static int same_kill(const struct kk *a, const struct kk *b)
{
	int i;

	for (i = 0; i < a->narts; i++)
		if (a->arts[i] == b->artifact)
			return 0;
	return a->narts < (int)(sizeof(a->arts) / sizeof(a->arts[0])) && agree_text(a->pod, b->pod) && agree_text(a->ns, b->ns) &&
	       agree_text(a->container, b->container) && agree_int(a->restarts, b->restarts, 0) &&
	       agree_int(a->time_ns, b->time_ns, 1000000000);
}

static int64_t col_int(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? INT64_MIN : sqlite3_column_int64(st, i);
}

/* Run fold_sql's two statements for (keep, drop). 0 or -1. */
static int fold(sqlite3 *db, int64_t keep, int64_t drop)
{
	const char *sql = fold_sql, *tail;
	sqlite3_stmt *st;
	int rc = 0;

	while (rc == 0 && sql && *sql) {
		if (sqlite3_prepare_v2(db, sql, -1, &st, &tail) != SQLITE_OK)
			return -1;
		if (!st)
			break;
		sqlite3_bind_int64(st, 1, keep);
		sqlite3_bind_int64(st, 2, drop);
		rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
		sqlite3_finalize(st);
		sql = tail;
	}
	return rc;
}

/* Fold the k8s_oom_kill candidates of temp.oom_cand that tell one kill
 * (see the file's comment). Each candidate, best first, joins the first
 * kept one it agrees with, when exactly one agrees (two would make it
 * ambiguous: it stays a row). 0, or -1 with why in err. */
int derive_oom_same_kill(sqlite3 *db, struct strbuf *err)
{
	struct kk k[SAME_MAX];
	sqlite3_stmt *st;
	int n = 0, i, j;

	if (sqlite3_prepare_v2(db, kills_sql, -1, &st, NULL) != SQLITE_OK)
		goto failed;
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (n == SAME_MAX) {   /* too many to weigh: each stays a row */
			sqlite3_finalize(st);
			return 0;
		}
		memset(&k[n], 0, sizeof(k[n]));
		k[n].rowid = sqlite3_column_int64(st, 0);
		k[n].artifact = sqlite3_column_int64(st, 1);
		k[n].time_ns = col_int(st, 2);
		k[n].restarts = col_int(st, 3);
		snprintf(k[n].pod, sizeof(k[n].pod), "%s", (const char *)sqlite3_column_text(st, 4));
		snprintf(k[n].ns, sizeof(k[n].ns), "%s", (const char *)sqlite3_column_text(st, 5));
		snprintf(k[n].container, sizeof(k[n].container), "%s",
			 (const char *)sqlite3_column_text(st, 6));
		n++;
	}
	sqlite3_finalize(st);
	for (i = 0; i < n; i++) {
		int match = -1, matches = 0;
		for (j = 0; j < i; j++)
			if (k[j].kept && same_kill(&k[j], &k[i])) {
				matches++;
				if (match < 0)
					match = j;
			}
		if (matches != 1) {
			k[i].kept = 1;
			k[i].arts[k[i].narts++] = k[i].artifact;
			continue;
		}
		if (fold(db, k[match].rowid, k[i].rowid) < 0)
			goto failed;
		/* what the folded record stated now belongs to the kept one */
		k[match].arts[k[match].narts++] = k[i].artifact;
		if (!k[match].pod[0])
			snprintf(k[match].pod, sizeof(k[match].pod), "%s", k[i].pod);
		if (!k[match].ns[0])
			snprintf(k[match].ns, sizeof(k[match].ns), "%s", k[i].ns);
		if (!k[match].container[0])
			snprintf(k[match].container, sizeof(k[match].container), "%s", k[i].container);
		if (k[match].restarts == INT64_MIN)
			k[match].restarts = k[i].restarts;
		if (k[match].time_ns == INT64_MIN)
			k[match].time_ns = k[i].time_ns;
	}
	return 0;
failed:
	if (err)
		strbuf_addstr(err, sqlite3_errmsg(db));
	return -1;
}

/* ---- one line read by two readers is one failure ----
 *
 * A file that holds lines of two kinds is read once by each line reader
 * that claims it (analyzer/ingest: a syslog by the kernel and the server
 * reader, a job's output with slurmstepd's kill by the kernel reader's
 * Slurm row and by the generic memory-failure recogniser), each into an
 * artifact row of its own (one path, one container). The generic
 * recogniser's mem_failure of a line that a specific reader also made a
 * candidate of (same path and container, same line, another artifact
 * row) is that failure once more: it folds into the specific reader's
 * row, which keeps its own fields (the job, the limit, the victim) and
 * takes from the generic one what it lacks: the phase the server reader
 * placed it in (with its source), the wording family, the bytes asked,
 * the device, the totals; the evidence lists both events. Two specific
 * readers' candidates of one line are left as they are (each reader
 * already folds its own lines). Runs after each candidate took its own
 * phase and family, before another paste's phase (derive_oom_paste). */
#define SAME_LINE_KEEP "(SELECT min(k.id) FROM temp.oom_same_spec k" \
	" WHERE k.line = de.line AND k.path = da.path AND k.container IS da.container" \
	" AND k.artifact <> d.artifact_id)"
#define FOLDED(c) "(SELECT d." c " FROM temp.oom_cand d JOIN temp.oom_same_line s" \
	" ON s.dropped = d.rowid WHERE s.kept = temp.oom_cand.rowid AND d." c " IS NOT NULL" \
	" ORDER BY d.rowid LIMIT 1)"

static const char same_line_sql[] =
	/* the specific readers' candidates by file and line, indexed: each
	 * generic failure looks up its own line, not every candidate */
	"DROP TABLE IF EXISTS temp.oom_same_spec;"
	"CREATE TEMP TABLE oom_same_spec AS SELECT k.rowid AS id, k.artifact_id AS artifact,"
	" ka.path AS path, ka.container AS container, ke.line AS line FROM temp.oom_cand k"
	" JOIN event ke ON ke.id = k.event_id JOIN artifact ka ON ka.id = k.artifact_id"
	" WHERE k.kind <> 'mem_failure' AND ke.line IS NOT NULL;"
	"CREATE INDEX temp.oom_same_spec_at ON oom_same_spec(line, path);"
	"DROP TABLE IF EXISTS temp.oom_same_line;"
	"CREATE TEMP TABLE oom_same_line AS SELECT d.rowid AS dropped, " SAME_LINE_KEEP " AS kept"
	" FROM temp.oom_cand d JOIN event de ON de.id = d.event_id"
	" JOIN artifact da ON da.id = d.artifact_id"
	" WHERE d.kind = 'mem_failure' AND de.line IS NOT NULL;"
	"DELETE FROM temp.oom_same_line WHERE kept IS NULL;"
	"DROP TABLE temp.oom_same_spec;"
	"CREATE INDEX temp.oom_same_line_kept ON oom_same_line(kept);";

static const char same_line_fold_sql[] =
	"UPDATE temp.oom_cand SET"
	" evidence = (SELECT json_group_array(v) FROM (SELECT j.value AS v"
	"  FROM temp.oom_cand o, json_each(o.evidence) j WHERE (o.rowid = temp.oom_cand.rowid"
	"  OR o.rowid IN (SELECT dropped FROM temp.oom_same_line WHERE kept = temp.oom_cand.rowid))"
	"  AND json_valid(o.evidence) GROUP BY j.value ORDER BY j.value)),"
	" phase_source = CASE WHEN coalesce(phase, 'unknown') IN ('unknown', '') THEN"
	"  (SELECT d.phase_source FROM temp.oom_cand d JOIN temp.oom_same_line s ON s.dropped = d.rowid"
	"   WHERE s.kept = temp.oom_cand.rowid AND coalesce(d.phase, 'unknown') NOT IN ('unknown', '')"
	"   ORDER BY d.rowid LIMIT 1) ELSE phase_source END,"
	" phase = CASE WHEN coalesce(phase, 'unknown') IN ('unknown', '') THEN coalesce((SELECT d.phase"
	"  FROM temp.oom_cand d JOIN temp.oom_same_line s ON s.dropped = d.rowid"
	"  WHERE s.kept = temp.oom_cand.rowid AND coalesce(d.phase, 'unknown') NOT IN ('unknown', '')"
	"  ORDER BY d.rowid LIMIT 1), phase) ELSE phase END,"
	" family = coalesce(family, " FOLDED("family") "),"
	" requested_bytes = coalesce(requested_bytes, " FOLDED("requested_bytes") "),"
	" device = coalesce(device, " FOLDED("device") "),"
	" total_bytes = coalesce(total_bytes, " FOLDED("total_bytes") "),"
	" free_bytes = coalesce(free_bytes, " FOLDED("free_bytes") ")"
	" WHERE rowid IN (SELECT kept FROM temp.oom_same_line);"
	"DELETE FROM temp.oom_cand WHERE rowid IN (SELECT dropped FROM temp.oom_same_line);"
	"DROP TABLE temp.oom_same_line;";

int derive_oom_same_line(sqlite3 *db, struct strbuf *err)
{
	char *msg = NULL;

	if (sqlite3_exec(db, same_line_sql, NULL, NULL, &msg) == SQLITE_OK
	    && sqlite3_exec(db, same_line_fold_sql, NULL, NULL, &msg) == SQLITE_OK)
		return 0;
	if (err)
		strbuf_addstr(err, msg ? msg : sqlite3_errmsg(db));
	sqlite3_free(msg);
	return -1;
}

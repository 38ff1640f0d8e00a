/*
 * oom_paste.c -- cross-paste placement: the phase of a failure its own
 * file leaves `unknown`, read from another paste of the same incident.
 *
 * An incident often arrives as a folder of pastes, one file each: the
 * engine's log in one (01-server.log), the failure in another (an untimed
 * systemd "killed by the OOM killer" notice, a pasted PyTorch OOM). Each
 * server log leaves its last stage as meta server.last_stage (the phase
 * its last stage line or first request served put it in, that line's
 * number and time: parsers/serving/server_memfail.c). A candidate of
 * temp.oom_cand whose phase is unknown takes, from the server logs of
 * its own folder (same container, same directory):
 *   1. by time, when both sides are timed on one clock: the phase of the
 *      latest stage at or before the failure (phase_source
 *      `other_paste_time`); never when a log's last stage is after it
 *      (that log was then in an earlier stage nobody recorded);
 *   2. else by order, only when the file names number the pastes (`01-`,
 *      `2_`...) and a log numbered before the failure's file holds a
 *      stage: that stage (`other_paste_order`, an inferred order: the
 *      reports say so);
 *   3. else, by order too, a log numbered after the failure's file that
 *      ends in a start-up stage (load_weights..warmup), holds no failure
 *      of its own and never reached serving: a start-up that did not
 *      finish, pasted whole after its error was quoted ("01-error.txt",
 *      then "02-run.log" cut in the load); the first such log. Likewise
 *      (set 9 spent, w-spent9b) one that ends in `training_step` whose
 *      training loop stopped short of its total (its train_progress:
 *      steps done past the first, fewer than the total, or no total): a
 *      run that did not finish, pasted after the kill notice that ended
 *      it ("01-job-stderr.txt" with Slurm's oom-kill line, then
 *      "02-output.txt" cut at "Epoch: [0][511/1736]"). Likewise (set 12
 *      spent, w-spend12d) one that ends in `eval` and shows no training
 *      loop at all: an inference pass (a translation pipeline's warnings
 *      over its inputs) that held no failure, pasted after the error
 *      that ended it. A finished loop, or a log that only ever served,
 *      places nothing.
 * Never when it is ambiguous: the failure's own file left a stage of its
 * own (it placed the failure as it could), or the folder's logs end in
 * different stages. phase_artifact names the paste that placed it.
 *
 * Last (set 12 spent, w-spend12d), a failure no log placed takes the
 * phase of the launch command pasted in its folder (its own file
 * included) when that command runs an inference-only program whose whole
 * run is one phase (meta launch.phase, parsers/serving/launch_table.c:
 * OpenNMT-py's translate.py, fairseq-generate): phase_source
 * `launch_command`. Never when two commands disagree.
 */
#include "analyzer/derive/oom.h"
#include "lib/strbuf.h"

#include <ctype.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PASTE_LOGS 16   /* server logs of one folder weighed; past it: ambiguous */

/* One server log's last stage. */
struct paste_stage {
	int64_t artifact, time_ns;   /* time_ns: INT64_MIN when untimed */
	long num;                    /* its file name's paste number, -1 none */
	int own_failure;             /* the log holds a failure of its own */
	int loop_cut;                /* its training loop stopped short of its total */
	int trained;                 /* it shows a training loop's progress at all */
	char phase[32], clock[8];
};

long oom_paste_number(const char *path)
{
	const char *b = path ? strrchr(path, '/') : NULL;
	const char *p;
	long n = 0;

	b = b ? b + 1 : path;
	if (!b || !isdigit((unsigned char)*b))
		return -1;
	for (p = b; isdigit((unsigned char)*p) && p - b < 6; p++)
		n = n * 10 + (*p - '0');
	return *p == '-' || *p == '_' || *p == '.' || *p == ' ' ? n : -1;
}

/* why into err (may be NULL); returns -1. */
static int paste_failed(struct strbuf *err, const char *why)
{
	if (err)
		strbuf_addstr(err, why);
	return -1;
}

static const char stages_sql[] =
	"SELECT a.id, a.path, json_extract(m.value, '$.phase'), json_extract(m.value, '$.time_ns'),"
	" json_extract(m.value, '$.clock'),"
	" EXISTS (SELECT 1 FROM temp.oom_cand o WHERE o.artifact_id = a.id),"
	" EXISTS (SELECT 1 FROM event e WHERE e.artifact_id = a.id AND e.kind = 'train_progress'"
	"  AND json_valid(e.data) AND json_extract(e.data, '$.steps_done') > 0"
	"  AND (json_extract(e.data, '$.steps_total') IS NULL"
	"   OR json_extract(e.data, '$.steps_done') < json_extract(e.data, '$.steps_total'))),"
	" EXISTS (SELECT 1 FROM event e WHERE e.artifact_id = a.id AND e.kind = 'train_progress')"
	" FROM meta m JOIN artifact a ON a.id = m.artifact_id"
	" JOIN artifact f ON f.id = ?1 WHERE m.key = 'server.last_stage' AND json_valid(m.value)"
	" AND a.id <> f.id AND a.container IS f.container"
	" AND rtrim(a.path, replace(a.path, '/', '')) = rtrim(f.path, replace(f.path, '/', ''))"
	" ORDER BY a.id";

/* The server logs beside artifact fa, at most PASTE_LOGS into s; their
 * count (PASTE_LOGS + 1 when more), or -1. */
static int paste_stages(sqlite3 *db, int64_t fa, struct paste_stage *s, struct strbuf *err)
{
	sqlite3_stmt *st;
	int n = 0;

	if (sqlite3_prepare_v2(db, stages_sql, -1, &st, NULL) != SQLITE_OK)
		return paste_failed(err, sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, fa);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *ph = (const char *)sqlite3_column_text(st, 2);
		const char *ck = (const char *)sqlite3_column_text(st, 4);

		if (!ph || !strcmp(ph, "unknown"))
			continue;
		if (n == PASTE_LOGS) {
			n++;
			break;
		}
		s[n].artifact = sqlite3_column_int64(st, 0);
		s[n].num = oom_paste_number((const char *)sqlite3_column_text(st, 1));
		s[n].time_ns = sqlite3_column_type(st, 3) == SQLITE_INTEGER
			       ? sqlite3_column_int64(st, 3) : INT64_MIN;
		snprintf(s[n].phase, sizeof(s[n].phase), "%s", ph);
		snprintf(s[n].clock, sizeof(s[n].clock), "%s", ck ? ck : "none");
		s[n].own_failure = sqlite3_column_int(st, 5) != 0;
		s[n].loop_cut = sqlite3_column_int(st, 6) != 0;
		s[n].trained = sqlite3_column_int(st, 7) != 0;
		n++;
	}
	sqlite3_finalize(st);
	return n;
}

/* 1 when phase names a start-up stage (lib/vocab.h's load_weights ..
 * warmup): the program had not finished starting. */
static int startup_stage(const char *phase)
{
	static const char *const st[] = { "load_weights", "profile", "kv_alloc", "graph_capture",
		"warmup", NULL };
	int i;

	for (i = 0; st[i]; i++)
		if (!strcmp(phase, st[i]))
			return 1;
	return 0;
}

/* The stage that places a failure of file number fnum at time t (clock
 * ck; t INT64_MIN: untimed) among the n logs s, and how into *src; -1
 * when none may. */
static int pick(const struct paste_stage *s, int n, long fnum, int64_t t, const char *ck,
		const char **src)
{
	int i, best = -1, later = 0, same = 1;

	if (n < 1 || n > PASTE_LOGS)
		return -1;
	for (i = 0; i < n; i++) {
		if (strcmp(s[i].phase, s[0].phase))
			same = 0;
		if (t == INT64_MIN || s[i].time_ns == INT64_MIN || strcmp(s[i].clock, ck))
			continue;
		if (s[i].time_ns > t)
			later = 1;   /* that log was in an earlier stage then */
		else if (best < 0 || s[i].time_ns >= s[best].time_ns)
			best = i;
	}
	if (later)
		return -1;
	if (best >= 0) {
		*src = "other_paste_time";
		return best;
	}
	if (!same || fnum < 0)
		return -1;
	for (i = 0; i < n; i++)
		if (s[i].num >= 0 && s[i].num < fnum && (best < 0 || s[i].num > s[best].num))
			best = i;
	if (best < 0)   /* 3. a start-up or a training cut short, pasted after its error */
		for (i = 0; i < n; i++)
			if (s[i].num > fnum && !s[i].own_failure &&
			    (startup_stage(s[i].phase) ||
			     (!strcmp(s[i].phase, "training_step") && s[i].loop_cut) ||
			     (!strcmp(s[i].phase, "eval") && !s[i].trained)) &&
			    (best < 0 || s[i].num < s[best].num))
				best = i;
	if (best >= 0)
		*src = "other_paste_order";
	return best;
}

static const char launch_sql[] =
	"SELECT a.id, m.value FROM meta m JOIN artifact a ON a.id = m.artifact_id"
	" JOIN artifact f ON f.id = ?1 WHERE m.key = 'launch.phase'"
	" AND a.container IS f.container"
	" AND rtrim(a.path, replace(a.path, '/', '')) = rtrim(f.path, replace(f.path, '/', ''))"
	" ORDER BY a.id";

/* The whole-run phase that the launch commands beside artifact fa (or in
 * it) state, into phase (and the first such artifact into *by): 1, 0
 * when none or they disagree, -1 on error. */
static int launch_phase(sqlite3 *db, int64_t fa, char *phase, size_t cap, int64_t *by,
			struct strbuf *err)
{
	sqlite3_stmt *st;
	int found = 0;

	if (sqlite3_prepare_v2(db, launch_sql, -1, &st, NULL) != SQLITE_OK)
		return paste_failed(err, sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, fa);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *ph = (const char *)sqlite3_column_text(st, 1);

		if (!ph || !*ph)
			continue;
		if (found && strcmp(ph, phase)) {
			found = 0;   /* two commands, two phases: ambiguous */
			break;
		}
		if (!found) {
			snprintf(phase, cap, "%s", ph);
			*by = sqlite3_column_int64(st, 0);
			found = 1;
		}
	}
	sqlite3_finalize(st);
	return found;
}

static const char cands_sql[] =
	"SELECT c.rowid, c.artifact_id, c.time_ns, c.clock, f.path FROM temp.oom_cand c"
	" JOIN artifact f ON f.id = c.artifact_id"
	" WHERE coalesce(c.phase, 'unknown') IN ('unknown', '') AND NOT EXISTS (SELECT 1 FROM meta m"
	"  WHERE m.artifact_id = c.artifact_id AND m.key = 'server.last_stage')";

/* One placement decided, applied once the candidates' query is done (the
 * table it reads is not written while it is stepped). */
struct placed {
	int64_t rowid, artifact;
	const char *src;
	char phase[32];
};

/* Write the n placements p into temp.oom_cand. 0 or -1. */
static int apply(sqlite3 *db, const struct placed *p, size_t n, struct strbuf *err)
{
	sqlite3_stmt *up;
	size_t i;
	int rc = 0;

	if (sqlite3_prepare_v2(db, "UPDATE temp.oom_cand SET phase = ?2, phase_source = ?3,"
			       " phase_artifact = ?4 WHERE rowid = ?1", -1, &up, NULL) != SQLITE_OK)
		return paste_failed(err, sqlite3_errmsg(db));
	for (i = 0; rc == 0 && i < n; i++) {
		sqlite3_bind_int64(up, 1, p[i].rowid);
		sqlite3_bind_text(up, 2, p[i].phase, -1, SQLITE_STATIC);
		sqlite3_bind_text(up, 3, p[i].src, -1, SQLITE_STATIC);
		sqlite3_bind_int64(up, 4, p[i].artifact);
		if (sqlite3_step(up) != SQLITE_DONE)
			rc = paste_failed(err, sqlite3_errmsg(db));
		sqlite3_reset(up);
	}
	sqlite3_finalize(up);
	return rc;
}

int derive_oom_paste(sqlite3 *db, struct strbuf *err)
{
	sqlite3_stmt *st;
	struct paste_stage s[PASTE_LOGS];
	struct placed *p = NULL, *grown;
	size_t np = 0, cap = 0;
	int rc = 0, any_launch;

	/* launch commands of a whole-run phase are rare: look for them per
	 * failure only when the database holds one (20,000 kernel reports
	 * must not each scan meta again, tests/t_scale.sh) */
	if (sqlite3_prepare_v2(db, "SELECT EXISTS (SELECT 1 FROM meta WHERE key = 'launch.phase')",
			       -1, &st, NULL) != SQLITE_OK)
		return paste_failed(err, sqlite3_errmsg(db));
	any_launch = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) != 0;
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(db, cands_sql, -1, &st, NULL) != SQLITE_OK)
		return paste_failed(err, sqlite3_errmsg(db));
	while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
		const char *ck = (const char *)sqlite3_column_text(st, 3);
		int64_t t = sqlite3_column_type(st, 2) == SQLITE_INTEGER
			    ? sqlite3_column_int64(st, 2) : INT64_MIN;
		const char *src = NULL;
		char lph[32];
		int64_t lby = 0;
		int n = paste_stages(db, sqlite3_column_int64(st, 1), s, err), i, lp = 0;

		if (n < 0) {
			rc = -1;
			break;
		}
		if (!ck || (strcmp(ck, "utc") && strcmp(ck, "local")))
			t = INT64_MIN;
		i = pick(s, n, oom_paste_number((const char *)sqlite3_column_text(st, 4)), t,
			 ck ? ck : "none", &src);
		if (i < 0 && n == 0 && any_launch) {   /* no log beside it: a launch command's run */
			lp = launch_phase(db, sqlite3_column_int64(st, 1), lph, sizeof(lph), &lby, err);
			if (lp < 0) {
				rc = -1;
				break;
			}
		}
		if (i < 0 && lp != 1)
			continue;
		if (np == cap) {
			cap = cap ? cap * 2 : 8;
			if (!(grown = realloc(p, cap * sizeof(*p)))) {
				rc = paste_failed(err, "out of memory");
				break;
			}
			p = grown;
		}
		p[np].rowid = sqlite3_column_int64(st, 0);
		p[np].artifact = i >= 0 ? s[i].artifact : lby;
		p[np].src = i >= 0 ? src : "launch_command";
		snprintf(p[np].phase, sizeof(p[np].phase), "%s", i >= 0 ? s[i].phase : lph);
		np++;
	}
	sqlite3_finalize(st);
	if (rc == 0)
		rc = apply(db, p, np, err);
	free(p);
	return rc;
}

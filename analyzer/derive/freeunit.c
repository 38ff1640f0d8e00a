/*
 * freeunit.c -- the derive step that checks a free(1) paste's guessed
 * unit against a RAM total another artifact of the same incident states,
 * and rescales that paste's figures once when the guess was wrong.
 *
 * free prints bare numbers; with no command line in the paste the reader
 * (parsers/host/procmem.c) guesses their unit from the Mem total and
 * records it as meta host.free_unit with host.free_unit_by = guess. The
 * incident's other artifacts may state the host's RAM outright: a copy of
 * /proc/meminfo (MemTotal, host.meminfo.MemTotal), a kernel OOM report's
 * Mem-Info ("N pages RAM" x the page size, event data ram_kb), a bundle's
 * or earlyoom's total (host.mem_total_bytes), a free table whose command
 * line or suffixes state its unit. smaps_rollup is no total and is not
 * read. When the guessed total and the stated one differ by a power of
 * 1024 (1024^k, k = -3..3, not 0) and agree within RAM_TOLERANCE (or one
 * printed unit: free -g rounds) after rescaling, the paste's samples
 * (host.mem_used_bytes blocks it wrote, sample_block.artifact_id) and its
 * meta figures (host.free.*, host.mem_total_bytes) are multiplied by
 * 1024^k; when they agree as read (k = 0) the guess is confirmed. Either
 * way host.free_unit_by becomes `artifact` and host.free_unit_from names
 * the artifact that gave the unit, so a second run changes nothing (the
 * rescale happens once). Nothing stated, or nothing that agrees: the
 * guess stays, and reports keep saying "unit guessed".
 */
#include "analyzer/derive/derive.h"
#include "analyzer/store/samples.h"
#include "analyzer/store/timeline.h"
#include "lib/strbuf.h"
#include "lib/vocab.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#define RAM_TOLERANCE 0.06   /* MemTotal vs pages RAM x page size: reserved pages */

/* The RAM totals other artifacts state, best first: MemTotal is what free
 * itself prints as total (procps-ng reads /proc/meminfo), pages RAM
 * counts reserved pages too. ?1 is the free paste's artifact. */
static const char stated_sql[] =
	"SELECT a.path, t.what, t.bytes FROM ("
	" SELECT 1 AS pref, artifact_id, 'MemTotal' AS what, CAST(value AS INTEGER) AS bytes"
	"  FROM meta WHERE key = 'host.meminfo.MemTotal'"
	" UNION ALL SELECT 2, artifact_id, 'pages RAM', json_extract(data, '$.ram_kb') * 1024"
	"  FROM event WHERE kind = 'oom_invoked' AND json_valid(data)"
	"  AND json_extract(data, '$.ram_kb') > 0"
	" UNION ALL SELECT 3, m.artifact_id, 'free total, unit stated', CAST(m.value AS INTEGER)"
	"  FROM meta m WHERE m.key = 'host.mem_total_bytes' AND EXISTS (SELECT 1 FROM meta u"
	"  WHERE u.artifact_id = m.artifact_id AND u.key = 'host.free_unit_by'"
	"  AND u.value IN ('command_line', 'suffix'))"
	" UNION ALL SELECT 4, m.artifact_id, 'RAM total', CAST(m.value AS INTEGER)"
	"  FROM meta m WHERE m.key = 'host.mem_total_bytes' AND NOT EXISTS (SELECT 1 FROM meta u"
	"  WHERE u.artifact_id = m.artifact_id AND u.key IN ('host.free_unit_by',"
	"  'host.meminfo.MemTotal'))"
	") t JOIN artifact a ON a.id = t.artifact_id"
	" WHERE t.artifact_id IS NOT ?1 AND t.bytes > 0 ORDER BY t.pref, t.artifact_id";

/* The power k of 1024 that makes guessed (bytes as read, mult bytes a
 * printed figure) agree with stated, in *k; 1 found, 0 none. */
static int unit_power(double guessed, double mult, double stated, int *k)
{
	int i;

	for (i = -3; i <= 3; i++) {
		double f = pow(1024.0, i), g = guessed * f, unit = mult * f;
		double tol = RAM_TOLERANCE * stated;
		if (unit < 1 || unit > stated / 4)
			continue;   /* a unit under a byte, or one that rounds a host away */
		if (fabs(stated - g) <= (unit > tol ? unit : tol)) {
			*k = i;
			return 1;
		}
	}
	return 0;
}

/* The unit named after k steps of 1024 from unit; "" when off the list. */
static const char *unit_step(const char *unit, int k)
{
	static const char *const u[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	int i;

	for (i = 0; i < 6; i++)
		if (!strcmp(u[i], unit))
			return i + k >= 0 && i + k < 6 ? u[i + k] : "";
	return "";
}

static int fail(struct strbuf *err, sqlite3 *db)
{
	strbuf_addf(err, "freeunit: %s", sqlite3_errmsg(db));
	return -1;
}

/* Run SQL with the artifact ?1 and the texts ?2, ?3 and the real ?4 that
 * it names (a parameter it lacks is not bound). 0 or -1 (err). */
static int exec4(sqlite3 *db, const char *sql, int64_t aid, const char *t2, const char *t3,
		 double r4, struct strbuf *err)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return fail(err, db);
	sqlite3_bind_int64(st, 1, aid);
	if (t2 && sqlite3_bind_parameter_count(st) >= 2)
		sqlite3_bind_text(st, 2, t2, -1, SQLITE_TRANSIENT);
	if (t3 && sqlite3_bind_parameter_count(st) >= 3)
		sqlite3_bind_text(st, 3, t3, -1, SQLITE_TRANSIENT);
	if (sqlite3_bind_parameter_count(st) >= 4)
		sqlite3_bind_double(st, 4, r4);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : fail(err, db);
}

/* Check one guessed paste aid (unit as read, total bytes as read) against
 * the first stated total that agrees; rescale and record. 0 or -1. */
static int check_paste(struct timeline *tl, int64_t aid, const char *unit, double total,
		       struct strbuf *err)
{
	sqlite3 *db = tl->db;
	sqlite3_stmt *st;
	char from[300] = "", said[80] = "", now[8] = "", msg[600];
	int k = 0, found = 0, rc;
	double mult = 0, stated = 0;
	const char *u = unit_step(unit, 0);

	if (!u[0])
		return 0;   /* kB, MB...: a stated SI unit is never guessed */
	for (mult = 1, rc = 0; rc < 6 && strcmp(unit_step("B", rc), u); rc++)
		mult *= 1024;
	if (sqlite3_prepare_v2(db, stated_sql, -1, &st, NULL) != SQLITE_OK)
		return fail(err, db);
	sqlite3_bind_int64(st, 1, aid);
	while (!found && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *path = (const char *)sqlite3_column_text(st, 0);
		const char *what = (const char *)sqlite3_column_text(st, 1);
		const char *slash = path ? strrchr(path, '/') : NULL;
		stated = sqlite3_column_double(st, 2);
		if (!path || !unit_power(total, mult, stated, &k) || !unit_step(unit, k)[0])
			continue;
		found = 1;
		snprintf(now, sizeof(now), "%s", unit_step(unit, k));
		snprintf(from, sizeof(from), "%s", slash && slash[1] ? slash + 1 : path);
		snprintf(said, sizeof(said), "%s %.0f bytes", what ? what : "RAM total", stated);
	}
	sqlite3_finalize(st);
	if (!found)
		return 0;
	if (k) {
		double f = pow(1024.0, k);
		sqlite3_stmt *sid;
		if (exec4(db, "UPDATE meta SET value = CAST(CAST(value AS REAL) * ?4 AS INTEGER)"
			  " WHERE artifact_id = ?1 AND (key GLOB 'host.free.*'"
			  " OR key = 'host.mem_total_bytes') AND value GLOB '[0-9]*'",
			  aid, NULL, NULL, f, err) < 0)
			return -1;
		if (sqlite3_prepare_v2(db, "SELECT id FROM series WHERE name = ?1 AND entity = 'host'",
				       -1, &sid, NULL) != SQLITE_OK)
			return fail(err, db);
		sqlite3_bind_text(sid, 1, vocab_series_name(VS_HOST_MEM_USED_BYTES), -1,
				  SQLITE_STATIC);
		while ((rc = sqlite3_step(sid)) == SQLITE_ROW)
			if (samples_scale(tl, sqlite3_column_int64(sid, 0), aid, f) < 0) {
				sqlite3_finalize(sid);
				strbuf_addf(err, "freeunit: %s", tl->errmsg[0] ? tl->errmsg : "samples");
				return -1;
			}
		sqlite3_finalize(sid);
		snprintf(msg, sizeof(msg), "free's figures are in %s, not %s as guessed: %s states"
			 " the host's RAM (%s), %.0f bytes as read; the paste's figures were"
			 " rescaled by 1024^%d (unit from %s)", now, unit, from, said, total, k, from);
	} else {
		snprintf(msg, sizeof(msg), "free's guessed unit %s agrees with the host's RAM"
			 " that %s states (%s) (unit from %s)", unit, from, said, from);
	}
	if (exec4(db, "UPDATE meta SET value = ?2 WHERE artifact_id = ?1"
		  " AND key = 'host.free_unit'", aid, now, NULL, 0, err) < 0 ||
	    exec4(db, "UPDATE meta SET value = 'artifact' WHERE artifact_id = ?1"
		  " AND key = 'host.free_unit_by'", aid, NULL, NULL, 0, err) < 0 ||
	    exec4(db, "INSERT INTO meta(artifact_id, key, value) VALUES (?1, ?2, ?3)",
		  aid, vocab_meta_key(VM_HOST_FREE_UNIT_FROM), from, 0, err) < 0 ||
	    exec4(db, "INSERT INTO diagnostic(artifact_id, severity, message)"
		  " VALUES (?1, 'info', ?2)", aid, msg, NULL, 0, err) < 0)
		return -1;
	return 0;
}

int derive_freeunit(struct timeline *tl, struct strbuf *err)
{
	struct { int64_t aid; char unit[8]; double total; } p[64];
	sqlite3 *db = tl->db;
	sqlite3_stmt *st;
	int rc, r = 0, n = 0, i;

	/* every paste whose unit is still a guess, with its Mem total as read;
	 * collected first: check_paste changes meta */
	if (sqlite3_prepare_v2(db, "SELECT b.artifact_id, u.value, CAST(t.value AS REAL)"
			       " FROM meta b JOIN meta u ON u.artifact_id = b.artifact_id"
			       " AND u.key = 'host.free_unit' JOIN meta t ON t.artifact_id ="
			       " b.artifact_id AND t.key = 'host.free.Mem.total'"
			       " WHERE b.key = 'host.free_unit_by' AND b.value = 'guess'"
			       " AND t.value GLOB '[0-9]*' GROUP BY b.artifact_id ORDER BY b.artifact_id"
			       " LIMIT 64", -1, &st, NULL) != SQLITE_OK)
		return fail(err, db);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *u = (const char *)sqlite3_column_text(st, 1);
		p[n].aid = sqlite3_column_int64(st, 0);
		snprintf(p[n].unit, sizeof(p[n].unit), "%s", u ? u : "");
		p[n++].total = sqlite3_column_double(st, 2);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return fail(err, db);
	for (i = 0; r == 0 && i < n; i++)
		r = check_paste(tl, p[i].aid, p[i].unit, p[i].total, err);
	return r;
}

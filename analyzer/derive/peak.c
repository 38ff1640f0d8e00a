/*
 * peak.c -- the derive pass `peak`: per account, the highest memory in use
 * for each measure the evidence has, and the one figure reports call "the
 * peak" (docs/schema.md, "Derived facts").
 *
 * An account is a card (`gpuN`, a MIG instance `gpuN/mig:ID`), a memory
 * cgroup (`memcg:<path or container>`) or the host (`host`). A measure is
 * what a figure counts: `card_used` (the driver's memory in use on the
 * card: nvidia-smi, DCGM), `reserved` (PyTorch's caching allocator's
 * segments: torch.reserved_bytes, a snapshot's segments), `allocated`
 * (live tensors: torch.allocated_bytes, Nsight's CUDA allocations, a
 * snapshot's live bytes at the peak of its trace), `cgroup_usage` (a
 * cgroup's or container's usage) and `rss` (a process's resident memory).
 * Each (account, measure) row keeps the highest value of any source of
 * that measure, where and when it was seen, the file it was read in (a
 * series is one row across the pastes of an incident: the file is the
 * one whose block holds the highest sample, sample_block.artifact_id),
 * and the account's capacity or limit where known.
 *
 * The headline rule: an account's headline row is its highest figure;
 * between equal figures, the measure closest to what runs out (card_used,
 * reserved, allocated; cgroup_usage, rss). At one moment a card's in-use
 * figure holds its reserved one, which holds its allocated one, so the
 * card's own figure leads when it was sampled; a lower figure of another
 * measure (taken at another moment, or by a coarser sampler) is shown
 * beside it as what it measures, never as a second peak.
 *
 * Memory samples pasted as lines (parsers/host/memsamples.c, meta
 * samples.series.N) give a row too when no timed figure does: the highest
 * sample, which sample (and request or step) it was, with no time -- its
 * source says "untimed, order from the paste", which every report prints
 * with the figure. A series whose unit is not stated gives none (its
 * figures are not bytes). Where any timed series or figure exists it wins
 * and the pasted samples give no row.
 */
#include "analyzer/derive/derive.h"
#include "lib/strbuf.h"
#include "parsers/host/memsamples.h"

#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

/* The series that measure memory in use, by account scope and measure.
 * unit: bytes per unit of the series (DCGM's framebuffer field is MiB). */
static const struct {
	const char *series;
	const char *scope;      /* card, memcg, host */
	const char *measure;
	double unit;
} peak_series[] = {
	{ "gpu.used_bytes", "card", "card_used", 1 },
	{ "DCGM_FI_DEV_FB_USED", "card", "card_used", 1048576 },
	{ "torch.reserved_bytes", "card", "reserved", 1 },
	{ "torch.allocated_bytes", "card", "allocated", 1 },
	{ "cuda.allocated_bytes", "card", "allocated", 1 },
	{ "cgroup.current_bytes", "memcg", "cgroup_usage", 1 },
	{ "container_memory_working_set_bytes", "memcg", "cgroup_usage", 1 },
	{ "container_memory_rss", "memcg", "rss", 1 },
	{ "proc.rss_bytes", "host", "rss", 1 },
	{ "process_resident_memory_bytes", "host", "rss", 1 },
};

#define PEAK_TABLE \
	"DROP TABLE IF EXISTS peak;\n" \
	"CREATE TABLE peak(\n" \
	"  id INTEGER PRIMARY KEY,\n" \
	"  account TEXT NOT NULL,\n" \
	"  scope TEXT NOT NULL,\n" \
	"  device INTEGER,\n" \
	"  measure TEXT NOT NULL,\n" \
	"  bytes REAL NOT NULL,\n" \
	"  time_ns INTEGER,\n" \
	"  boot_ns INTEGER,\n" \
	"  series_id INTEGER,\n" \
	"  artifact_id INTEGER,\n" \
	"  source TEXT NOT NULL,\n" \
	"  file TEXT,\n" \
	"  limit_bytes REAL,\n" \
	"  limit_source TEXT,\n" \
	"  headline INTEGER NOT NULL DEFAULT 0,\n" \
	"  UNIQUE(account, measure));\n"

/* A row that beats the one kept for its (account, measure) replaces it. */
#define PEAK_UPSERT \
	" ON CONFLICT(account, measure) DO UPDATE SET bytes = excluded.bytes," \
	" time_ns = excluded.time_ns, boot_ns = excluded.boot_ns," \
	" series_id = excluded.series_id, artifact_id = excluded.artifact_id," \
	" source = excluded.source, device = excluded.device" \
	" WHERE excluded.bytes > peak.bytes"

#define PEAK_COLS "INSERT INTO peak(account, scope, device, measure, bytes, time_ns, boot_ns," \
		  " series_id, artifact_id, source) "

/* A card's account from a series entity: cuda:N is gpuN. */
#define CARD_ACCOUNT "CASE WHEN s.entity GLOB 'cuda:[0-9]*' THEN 'gpu' || substr(s.entity, 6)" \
		     " WHEN s.entity = '' THEN 'gpu' ELSE s.entity END"
#define CARD_DEVICE "CASE WHEN s.entity GLOB 'cuda:[0-9]*' THEN CAST(substr(s.entity, 6) AS INTEGER)" \
		    " WHEN s.entity GLOB 'gpu[0-9]*' AND s.entity NOT GLOB '*/*'" \
		    " THEN CAST(substr(s.entity, 4) AS INTEGER) END"

/* The measure's order when two figures of an account are equal. */
#define MEASURE_RANK "CASE p2.measure WHEN 'card_used' THEN 0 WHEN 'reserved' THEN 1" \
		     " WHEN 'allocated' THEN 2 WHEN 'cgroup_usage' THEN 3 ELSE 4 END"

static const char *const peak_limits =
	/* a card: its total as sampled, else as a meta key */
	"UPDATE peak SET (limit_bytes, limit_source) = (SELECT sample_max(s.id),"
	"  'gpu.total_bytes ' || s.entity FROM series s"
	"  WHERE s.name = 'gpu.total_bytes' AND s.entity = peak.account AND sample_max(s.id) > 0)"
	" WHERE scope = 'card';\n"
	"UPDATE peak SET (limit_bytes, limit_source) = (SELECT CAST(value AS REAL), key FROM meta"
	"  WHERE key = 'gpu.total_bytes.' || peak.account AND value GLOB '[0-9]*'"
	"  ORDER BY rowid DESC LIMIT 1) WHERE scope = 'card' AND limit_bytes IS NULL;\n"
	/* a cgroup: its limit, from the artifact that gave the figure first */
	"UPDATE peak SET (limit_bytes, limit_source) = (SELECT CAST(value AS REAL), key FROM meta"
	"  WHERE key = 'cgroup.max_bytes' AND value GLOB '[0-9]*'"
	"  AND artifact_id IS peak.artifact_id ORDER BY rowid DESC LIMIT 1)"
	" WHERE scope = 'memcg';\n"
	"UPDATE peak SET (limit_bytes, limit_source) = (SELECT CAST(value AS REAL), key FROM meta"
	"  WHERE key = 'cgroup.max_bytes' AND value GLOB '[0-9]*' ORDER BY rowid DESC LIMIT 1)"
	" WHERE scope = 'memcg' AND limit_bytes IS NULL;\n"
	/* the host: its RAM, else the limit of the cgroup it ran in; a free
	 * paste's total says where its unit came from, as the free finding's
	 * title does (analyzer/rules/samples.c): guessed, or from the file
	 * whose RAM total confirmed or corrected it (freeunit.c) */
	"UPDATE peak SET (limit_bytes, limit_source) = (SELECT CAST(m.value AS REAL), m.key ||"
	"  coalesce((SELECT CASE b.value WHEN 'guess' THEN ' (unit guessed)' WHEN 'artifact'"
	"  THEN ' (unit from ' || coalesce((SELECT f.value FROM meta f WHERE f.artifact_id ="
	"  m.artifact_id AND f.key = 'host.free_unit_from' LIMIT 1), 'another file') || ')' END"
	"  FROM meta b WHERE b.artifact_id = m.artifact_id AND b.key = 'host.free_unit_by'"
	"  LIMIT 1), '') FROM meta m"
	"  WHERE m.key IN ('host.mem_total_bytes', 'cgroup.max_bytes') AND m.value GLOB '[0-9]*'"
	"  ORDER BY m.key != 'host.mem_total_bytes', m.rowid DESC LIMIT 1)"
	" WHERE scope = 'host';\n";

/* Each row's file: the base name of its artifact's path (a paste of a
 * folder, a member of an archive), what reports name beside the figure. */
static const char *const peak_file =
	"UPDATE peak SET file = (SELECT replace(a.path, rtrim(a.path, replace(a.path, '/', '')), '')"
	"  FROM artifact a WHERE a.id = peak.artifact_id) WHERE artifact_id IS NOT NULL;\n";

static const char *const peak_headline =
	"UPDATE peak SET headline = (id = (SELECT p2.id FROM peak p2 WHERE p2.account = peak.account"
	"  ORDER BY p2.bytes DESC, " MEASURE_RANK ", p2.id LIMIT 1));\n";

static int has_table(sqlite3 *db, const char *name)
{
	sqlite3_stmt *st;
	int r = 0;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
			       -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	r = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return r;
}

static int sql_failed(sqlite3 *db, struct strbuf *err, const char *what)
{
	strbuf_addf(err, "%s: %s", what, sqlite3_errmsg(db));
	return -1;
}

/* The highest sample of each series of peak_series[i], one row per
 * series, kept where it beats its account's row of that measure. */
static int add_series(sqlite3 *db, size_t i, struct strbuf *err)
{
	char sql[2000];
	sqlite3_stmt *st;
	int card = peak_series[i].scope[0] == 'c';
	int host = peak_series[i].scope[0] == 'h';
	int rc;

	/* the highest value from the series' blocks (sample_max), its time
	 * from the first sample that holds it, as max()'s bare columns; its
	 * artifact the one that wrote that sample's block (a series is one
	 * row across pastes: its own artifact_id is the first paste's) */
	snprintf(sql, sizeof(sql), PEAK_COLS
		 /* materialized: the rowid of the highest sample is found once a
		  * series, not again for each block the lookup below visits */
		 "WITH t AS MATERIALIZED (SELECT u.*, (SELECT m.rowid FROM sample m"
		 " WHERE m.series_id = u.id AND m.value = u.mx LIMIT 1) AS r"
		 " FROM (SELECT id, artifact_id, name, entity, sample_max(id) AS mx FROM series"
		 " WHERE name = ?4) u WHERE u.mx > 0)"
		 " SELECT %s, ?1, %s, ?2, s.mx * ?3,"
		 " (SELECT m.time_ns FROM sample m WHERE m.series_id = s.id AND m.value = s.mx LIMIT 1),"
		 " (SELECT m.boot_ns FROM sample m WHERE m.series_id = s.id AND m.value = s.mx LIMIT 1),"
		 " s.id, coalesce((SELECT b.artifact_id FROM sample_block b WHERE b.parent = s.id"
		 " AND b.first_rowid <= s.r ORDER BY b.first_rowid DESC LIMIT 1), s.artifact_id),"
		 " s.name || CASE WHEN s.entity != '' THEN ' ' || s.entity ELSE '' END"
		 " FROM t s WHERE s.mx > 0 ORDER BY s.id"
		 PEAK_UPSERT,
		 card ? CARD_ACCOUNT : host ? "'host'"
		      : "CASE WHEN s.entity = '' THEN 'memcg' ELSE 'memcg:' || s.entity END",
		 card ? CARD_DEVICE : "NULL");
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return sql_failed(db, err, peak_series[i].series);
	sqlite3_bind_text(st, 1, peak_series[i].scope, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, peak_series[i].measure, -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 3, peak_series[i].unit);
	sqlite3_bind_text(st, 4, peak_series[i].series, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return sql_failed(db, err, peak_series[i].series);
	return 0;
}

/* A snapshot's own figures, per device: the live bytes at the peak of its
 * trace (the holders of scope `peak`, which count the blocks allocated
 * before the trace too) and its segments' size at the snapshot (untimed). */
static const char *const snapshot_rows[] = {
	PEAK_COLS "SELECT 'gpu' || device, 'card', device, 'allocated', sum(bytes), max(time_ns),"
	" NULL, NULL, max(artifact_id), 'allocated at the trace''s peak, cuda:' || device ||"
	" ' (snapshot, event ' || max(seq) || ')' FROM holder WHERE tool = 'torch_snapshot'"
	" AND scope = 'peak' AND device IS NOT NULL GROUP BY snapshot_id, device"
	" HAVING sum(bytes) > 0" PEAK_UPSERT,
	PEAK_COLS "SELECT 'gpu' || g.device, 'card', g.device, 'reserved', sum(g.total_size), NULL,"
	" NULL, NULL, max(sn.artifact_id), 'reserved at the snapshot, cuda:' || g.device"
	" FROM segment g JOIN snapshot sn ON sn.id = g.snapshot_id WHERE g.device IS NOT NULL"
	" GROUP BY g.snapshot_id, g.device HAVING sum(g.total_size) > 0" PEAK_UPSERT,
};
static const char *const snapshot_needs[][2] = {
	{ "holder", "holder" }, { "segment", "snapshot" },
};

/* The account a pasted label measures: a process's resident size on the
 * host (VmRSS, ps's RSS, top's RES), nvidia-smi's memory.used on a card,
 * else memory as pasted, of no known account ("memory: 3.2 GiB"). */
static void sample_account(const char *label, const char **account, const char **scope,
			   const char **measure)
{
	static const char *const rss[] = { "vmrss", "vmhwm", "rssanon", "rss", "res",
					   "resident", NULL };
	int i;

	*account = "host";
	*scope = "host";
	*measure = "pasted";
	for (i = 0; rss[i]; i++)
		if (!strcmp(label, rss[i]))
			*measure = "rss";
	if (!strcmp(label, "memory.used")) {
		*account = "gpu";
		*scope = "card";
		*measure = "card_used";
	}
}

/* One pasted series (meta value val of artifact art): its highest sample
 * as a row of `peak`, untimed; an account's row kept already wins. 0, or
 * -1 with why in err. */
static int add_pasted(sqlite3 *db, const char *val, sqlite3_int64 art, int has_art,
		      struct strbuf *err)
{
	static struct memsamples_series m;   /* large: not on the stack */
	const char *account, *scope, *measure;
	char src[200];
	sqlite3_stmt *st;
	int i, top = 0, rc;

	if (memsamples_decode(val, &m) < 0 || m.unitless)
		return 0;
	for (i = 1; i < m.n; i++)
		if (m.v[i] > m.v[top])
			top = i;
	if (!(m.v[top] > 0))
		return 0;
	sample_account(m.label, &account, &scope, &measure);
	if (m.stepped)
		snprintf(src, sizeof(src), "%s, pasted samples: the highest of %d, sample %d"
			 " (%s %.0f; untimed, order from the paste)", m.label, m.n, top + 1,
			 m.per, m.st[top]);
	else
		snprintf(src, sizeof(src), "%s, pasted samples: the highest of %d, sample %d"
			 " (untimed, order from the paste)", m.label, m.n, top + 1);
	if (sqlite3_prepare_v2(db, PEAK_COLS "VALUES(?1, ?2, NULL, ?3, ?4, NULL, NULL, NULL, ?5, ?6)"
			       " ON CONFLICT(account, measure) DO NOTHING", -1, &st, NULL) != SQLITE_OK)
		return sql_failed(db, err, "peak of pasted samples");
	sqlite3_bind_text(st, 1, account, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, scope, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, measure, -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 4, m.v[top]);
	if (has_art)
		sqlite3_bind_int64(st, 5, art);
	sqlite3_bind_text(st, 6, src, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : sql_failed(db, err, "peak of pasted samples");
}

/* The pasted series' rows, when no row of `peak` has a time. 0 or -1. */
static int add_pasted_all(sqlite3 *db, struct strbuf *err)
{
	sqlite3_stmt *st;
	int rc = 0;

	if (sqlite3_prepare_v2(db, "SELECT (SELECT count(*) FROM peak WHERE time_ns IS NOT NULL"
			       " OR boot_ns IS NOT NULL)", -1, &st, NULL) != SQLITE_OK)
		return sql_failed(db, err, "peak of pasted samples");
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) > 0)
		rc = 1;   /* a timed figure wins */
	sqlite3_finalize(st);
	if (rc)
		return 0;
	if (sqlite3_prepare_v2(db, "SELECT value, artifact_id FROM meta WHERE key LIKE"
			       " 'samples.series.%' ORDER BY rowid LIMIT 16", -1, &st, NULL) != SQLITE_OK)
		return sql_failed(db, err, "peak of pasted samples");
	while (rc == 0 && sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		rc = add_pasted(db, (const char *)sqlite3_column_text(st, 0),
				sqlite3_column_int64(st, 1),
				sqlite3_column_type(st, 1) != SQLITE_NULL, err);
	sqlite3_finalize(st);
	return rc;
}

/* The pass (derive.h): drop and rebuild `peak`. 0, or -1 with why in err. */
int derive_peak(sqlite3 *db, struct strbuf *err)
{
	size_t i;

	if (sqlite3_exec(db, PEAK_TABLE, NULL, NULL, NULL) != SQLITE_OK)
		return sql_failed(db, err, "create table peak");
	if (has_table(db, "series") && has_table(db, "sample"))
		for (i = 0; i < sizeof(peak_series) / sizeof(peak_series[0]); i++)
			if (add_series(db, i, err) < 0)
				return -1;
	for (i = 0; i < sizeof(snapshot_rows) / sizeof(snapshot_rows[0]); i++) {
		if (!has_table(db, snapshot_needs[i][0]) || !has_table(db, snapshot_needs[i][1]))
			continue;
		if (sqlite3_exec(db, snapshot_rows[i], NULL, NULL, NULL) != SQLITE_OK)
			return sql_failed(db, err, "peak of a snapshot");
	}
	if (has_table(db, "meta") && add_pasted_all(db, err) < 0)
		return -1;
	if (has_table(db, "meta") && has_table(db, "series") &&
	    sqlite3_exec(db, peak_limits, NULL, NULL, NULL) != SQLITE_OK)
		return sql_failed(db, err, "peak limits");
	if (has_table(db, "artifact") && sqlite3_exec(db, peak_file, NULL, NULL, NULL) != SQLITE_OK)
		return sql_failed(db, err, "peak file");
	if (sqlite3_exec(db, peak_headline, NULL, NULL, NULL) != SQLITE_OK)
		return sql_failed(db, err, "peak headline");
	return 0;
}

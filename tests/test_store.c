/*
 * test_store.c -- the store's schema and its one description per record:
 * the tables built from the column descriptors are the schema users
 * query (column by column, with types, constraints and indexes, as
 * docs/schema.md documents them), and the generic insert binds each kind
 * of field the way the hand-written binds did.
 */
#include "testutil.h"
#include "analyzer/rules/rules.h"
#include "analyzer/store/table.h"
#include "analyzer/store/timeline_parts.h"
#include "lib/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every table: "name(column TYPE [NOT NULL] [DEFAULT v] [PKn] [-> table.column], ...)",
 * in creation order. A change here is a schema change: bump
 * TIMELINE_SCHEMA_VERSION and say it in docs/schema.md. */
static const char *const expected_tables[] = {
	"meta(artifact_id INTEGER, key TEXT NOT NULL, value TEXT)",
	"artifact(id INTEGER PK1, path TEXT NOT NULL, container TEXT, kind TEXT, "
	  "size INTEGER, compressed INTEGER, status TEXT, hash TEXT, "
	  "bytes_read INTEGER, seconds REAL, errors INTEGER DEFAULT 0, "
	  "warnings INTEGER DEFAULT 0)",
	"diagnostic(id INTEGER PK1, artifact_id INTEGER -> artifact.id, "
	  "line INTEGER, offset INTEGER, severity TEXT, message TEXT)",
	"event(id INTEGER PK1, artifact_id INTEGER -> artifact.id, "
	  "kind TEXT NOT NULL, time_ns INTEGER, clock TEXT, boot_ns INTEGER, "
	  "boot_id TEXT, pid INTEGER, comm TEXT, bytes INTEGER, "
	  "line INTEGER, summary TEXT, data TEXT)",
	"task(id INTEGER PK1, event_id INTEGER -> event.id, pid INTEGER, "
	  "uid INTEGER, tgid INTEGER, total_vm_pages INTEGER, "
	  "rss_pages INTEGER, rss_anon_pages INTEGER, "
	  "rss_file_pages INTEGER, rss_shmem_pages INTEGER, "
	  "pgtables_bytes INTEGER, nr_ptes INTEGER, nr_pmds INTEGER, "
	  "swapents INTEGER, oom_adj INTEGER, oom_score_adj INTEGER, "
	  "name TEXT)",
	"series(id INTEGER PK1, artifact_id INTEGER, name TEXT NOT NULL, "
	  "unit TEXT, entity TEXT NOT NULL DEFAULT '')",
	"sample_block(id INTEGER PK1, parent INTEGER, first_rowid INTEGER NOT NULL, "
	  "rows INTEGER NOT NULL, data BLOB NOT NULL, artifact_id INTEGER)",
	"sample(series_id INTEGER NOT NULL, time_ns INTEGER, "
	  "boot_ns INTEGER, value REAL)",
	"stack(id INTEGER PK1, hash INTEGER, depth INTEGER)",
	"frame(stack_id INTEGER NOT NULL PK1 -> stack.id, "
	  "idx INTEGER NOT NULL PK2, name TEXT, file TEXT, line INTEGER, "
	  "build_id TEXT)",
	"anchor(id INTEGER PK1, artifact_id INTEGER, boot_id TEXT, "
	  "boot_ns INTEGER, utc_ns INTEGER, how TEXT)",
	"capture(id INTEGER PK1, artifact_id INTEGER, source TEXT, "
	  "time_ns INTEGER, clock TEXT, boot_ns INTEGER, pid INTEGER, "
	  "comm TEXT, status TEXT)",
	"mapping(id INTEGER PK1, "
	  "capture_id INTEGER NOT NULL -> capture.id, start INTEGER, "
	  "end INTEGER, perms TEXT, offset INTEGER, dev TEXT, inode INTEGER, "
	  "path TEXT, kind TEXT, size_kb INTEGER, rss_kb INTEGER, "
	  "pss_kb INTEGER, anon_kb INTEGER, swap_kb INTEGER, vmflags TEXT, "
	  "extra TEXT)",
	"finding(id INTEGER PK1, rule TEXT NOT NULL, class TEXT NOT NULL, "
	  "cause TEXT, score REAL, title TEXT, advice TEXT, figures TEXT, phase TEXT)",
	"evidence(finding_id INTEGER NOT NULL -> finding.id, "
	  "ref_table TEXT, ref_id INTEGER, note TEXT)",
	"verdict(id INTEGER PK1, class TEXT NOT NULL, cause TEXT, "
	  "confidence REAL, summary TEXT, missing TEXT, phase TEXT, basis TEXT)",
	"gpu_device(id INTEGER PK1, artifact_id INTEGER -> artifact.id, "
	  "device INTEGER, name TEXT, type TEXT, sm_type TEXT, "
	  "dev_id INTEGER, pci_bus_id INTEGER, pci_dev_id INTEGER, "
	  "num_sms INTEGER, warps_per_sm INTEGER, lanes_per_warp INTEGER, "
	  "regs_per_lane INTEGER, preds_per_lane INTEGER, sm_major INTEGER, "
	  "sm_minor INTEGER, instruction_size INTEGER, status INTEGER, "
	  "uregs_per_warp INTEGER, upreds_per_warp INTEGER, "
	  "barriers_per_warp INTEGER, contexts INTEGER)",
	"gpu_context(id INTEGER PK1, artifact_id INTEGER -> artifact.id, "
	  "device INTEGER, row INTEGER, context_id INTEGER, tid INTEGER, "
	  "device_idx INTEGER, shared_window INTEGER, local_window INTEGER, "
	  "global_window INTEGER, modules INTEGER)",
	"gpu_module(id INTEGER PK1, artifact_id INTEGER -> artifact.id, "
	  "device INTEGER, context_id INTEGER, module_handle INTEGER, "
	  "size INTEGER, elf_size INTEGER, kernels INTEGER, functions TEXT)",
	"gpu_grid(id INTEGER PK1, artifact_id INTEGER -> artifact.id, "
	  "device INTEGER, grid_id INTEGER, context_id INTEGER, "
	  "module_handle INTEGER, function_entry INTEGER, function TEXT, "
	  "grid_x INTEGER, grid_y INTEGER, grid_z INTEGER, block_x INTEGER, "
	  "block_y INTEGER, block_z INTEGER, cluster_x INTEGER, "
	  "cluster_y INTEGER, cluster_z INTEGER, status TEXT, "
	  "status_code INTEGER, kernel_type INTEGER, origin INTEGER, "
	  "num_regs INTEGER, host_tid INTEGER, exception TEXT)",
	"gpu_region(id INTEGER PK1, artifact_id INTEGER -> artifact.id, "
	  "device INTEGER, kind TEXT, address INTEGER, size INTEGER, "
	  "file_offset INTEGER, complete INTEGER)",
	"thread(id INTEGER PK1, artifact_id INTEGER -> artifact.id, "
	  "pid INTEGER, tid INTEGER, name TEXT, signal INTEGER, "
	  "crashed INTEGER, stack_id INTEGER -> stack.id)",
	"snapshot(id INTEGER PK1, artifact_id INTEGER -> artifact.id, "
	  "form TEXT, protocol INTEGER, devices INTEGER, "
	  "trace_events INTEGER, peak_allocated_bytes INTEGER, settings TEXT, "
	  "recording TEXT)",
	"segment(id INTEGER PK1, "
	  "snapshot_id INTEGER NOT NULL -> snapshot.id, device INTEGER, "
	  "address INTEGER, total_size INTEGER, allocated_size INTEGER, "
	  "active_size INTEGER, requested_size INTEGER, stream INTEGER, "
	  "segment_type TEXT, pool_id TEXT, is_expandable INTEGER, "
	  "stack_id INTEGER)",
	"block(id INTEGER PK1, segment_id INTEGER NOT NULL -> segment.id, "
	  "address INTEGER, size INTEGER, requested_size INTEGER, "
	  "state TEXT, stack_id INTEGER, holder_id INTEGER)",
	"trace_block(id INTEGER PK1, parent INTEGER, first_rowid INTEGER NOT NULL, "
	  "rows INTEGER NOT NULL, data BLOB NOT NULL, artifact_id INTEGER)",
	"trace(snapshot_id INTEGER NOT NULL, device INTEGER, seq INTEGER, "
	  "action TEXT, addr INTEGER, size INTEGER, stream INTEGER, "
	  "time_ns INTEGER, device_free INTEGER, compile_context TEXT, "
	  "user_metadata TEXT, pool_id TEXT, stack_id INTEGER)",
	"alloc_block(id INTEGER PK1, parent INTEGER, first_rowid INTEGER NOT NULL, "
	  "rows INTEGER NOT NULL, data BLOB NOT NULL, artifact_id INTEGER)",
	"alloc(snapshot_id INTEGER NOT NULL, device INTEGER, addr INTEGER, "
	  "size INTEGER, alloc_seq INTEGER, alloc_ns INTEGER, "
	  "free_seq INTEGER, free_ns INTEGER, state TEXT, stack_id INTEGER)",
	"holder(id INTEGER PK1, artifact_id INTEGER -> artifact.id, "
	  "tool TEXT NOT NULL, scope TEXT, space TEXT, device INTEGER, "
	  "bytes INTEGER, allocations INTEGER, rank INTEGER, stack_id INTEGER, "
	  "label TEXT, line INTEGER, data TEXT, snapshot_id INTEGER, kind TEXT, "
	  "requested_bytes INTEGER, largest_bytes INTEGER, share REAL, "
	  "frame_file TEXT, frame_line INTEGER, frame_name TEXT, seq INTEGER, "
	  "time_ns INTEGER)",
	"holder_timeline(snapshot_id INTEGER, device INTEGER, col INTEGER, "
	  "seq INTEGER, time_ns INTEGER, holder_id INTEGER, bytes INTEGER)",
	"pool(id INTEGER PK1, snapshot_id INTEGER, device INTEGER, pool_id TEXT, "
	  "private_pool INTEGER, segments INTEGER, expandable_segments INTEGER, "
	  "reserved_bytes INTEGER, allocated_bytes INTEGER, requested_bytes INTEGER, "
	  "pending_free_bytes INTEGER, inactive_bytes INTEGER, "
	  "largest_free_bytes INTEGER, blocks INTEGER, top_stack_id INTEGER, "
	  "top_bytes INTEGER, top_allocations INTEGER, top_label TEXT)",
	"engine(id INTEGER PK1, artifact_id INTEGER -> artifact.id, "
	  "engine TEXT NOT NULL, instance TEXT NOT NULL, version TEXT, "
	  "total_bytes INTEGER, free_bytes INTEGER, gpu_memory_utilization REAL, "
	  "requested_bytes INTEGER, weights_bytes INTEGER, "
	  "activation_peak_bytes INTEGER, torch_peak_bytes INTEGER, "
	  "non_torch_bytes INTEGER, cuda_graph_bytes INTEGER, "
	  "kv_cache_bytes INTEGER, kv_cache_tokens INTEGER, gpu_blocks INTEGER, "
	  "cpu_blocks INTEGER, max_concurrency REAL, max_num_seqs INTEGER, "
	  "max_model_len INTEGER, max_batch_prefill_tokens INTEGER, gpu_layers INTEGER, "
	  "model_layers INTEGER, compute_buffer_bytes INTEGER, required_full_bytes INTEGER, "
	  "planned_total_bytes INTEGER, kv_cache_fraction REAL, required_partial_bytes INTEGER, "
	  "graph_partial_bytes INTEGER, "
	  "errors TEXT, errors_dropped INTEGER, line INTEGER, run INTEGER)",
};

/* Every index: "table: name(columns) [unique] origin [partial]". */
static const char *const expected_indexes[] = {
	"meta: meta_key(key) c",
	"artifact: artifact_size(size,path) c",
	"diagnostic: diagnostic_artifact(artifact_id) c",
	"event: event_clock(time_ns,boot_ns) c",
	"event: event_invoker(<expr>) c partial",
	"event: event_kind(kind) c",
	"event: event_time(time_ns) c",
	"task: task_event(event_id) c",
	"series: sqlite_autoindex_series_1(name,entity) unique u",
	"sample_block: sample_block_parent(parent) c",
	"stack: sqlite_autoindex_stack_1(hash) unique u",
	"frame: sqlite_autoindex_frame_1(stack_id,idx) unique pk",
	"mapping: mapping_capture(capture_id) c",
	"gpu_region: gpu_region_artifact(artifact_id) c",
	"segment: segment_snapshot(snapshot_id) c",
	"block: block_segment(segment_id) c",
	"trace_block: trace_block_parent(parent) c",
	"alloc_block: alloc_block_parent(parent) c",
	"holder: holder_artifact(artifact_id) c",
	"holder: holder_snapshot(snapshot_id,scope,device,rank) c",
	"holder_timeline: holder_timeline_snapshot(snapshot_id,device) c",
	"pool: pool_snapshot(snapshot_id) c",
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* A table as expected_tables spells it, read back with PRAGMAs. */
static void describe_table(sqlite3 *db, const char *t, struct strbuf *out)
{
	sqlite3_stmt *st, *fk;
	int n = 0;

	assert_int_equal(sqlite3_prepare_v2(db, "SELECT name, type, \"notnull\", dflt_value, pk"
					    " FROM pragma_table_info(?1) ORDER BY cid", -1, &st,
					    NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT \"table\" || '.' || \"to\""
					    " FROM pragma_foreign_key_list(?1) WHERE \"from\" = ?2",
					    -1, &fk, NULL), SQLITE_OK);
	sqlite3_bind_text(st, 1, t, -1, SQLITE_STATIC);
	strbuf_addf(out, "%s(", t);
	while (sqlite3_step(st) == SQLITE_ROW) {
		strbuf_addf(out, "%s%s %s", n++ ? ", " : "", sqlite3_column_text(st, 0),
			    sqlite3_column_text(st, 1));
		if (sqlite3_column_int(st, 2))
			strbuf_addstr(out, " NOT NULL");
		if (sqlite3_column_type(st, 3) != SQLITE_NULL)
			strbuf_addf(out, " DEFAULT %s", sqlite3_column_text(st, 3));
		if (sqlite3_column_int(st, 4))
			strbuf_addf(out, " PK%d", sqlite3_column_int(st, 4));
		sqlite3_reset(fk);
		sqlite3_bind_text(fk, 1, t, -1, SQLITE_STATIC);
		sqlite3_bind_text(fk, 2, (const char *)sqlite3_column_text(st, 0), -1,
				  SQLITE_TRANSIENT);
		if (sqlite3_step(fk) == SQLITE_ROW)
			strbuf_addf(out, " -> %s", sqlite3_column_text(fk, 0));
	}
	strbuf_addch(out, ')');
	sqlite3_finalize(st);
	sqlite3_finalize(fk);
	assert_false(strbuf_failed(out));
}

/* The tables of a fresh database are exactly expected_tables. */
static void tables_are_the_documented_schema(void **state)
{
	struct timeline *tl = t_open();
	struct strbuf got = STRBUF_INIT;
	sqlite3_stmt *st;
	size_t i = 0;
	(void)state;

	assert_int_equal(sqlite3_prepare_v2(tl->db, "SELECT name FROM sqlite_master"
					    " WHERE type = 'table' ORDER BY rowid", -1, &st,
					    NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		assert_true(i < N(expected_tables));
		strbuf_reset(&got);
		describe_table(tl->db, (const char *)sqlite3_column_text(st, 0), &got);
		assert_string_equal(got.buf, expected_tables[i]);
		i++;
	}
	sqlite3_finalize(st);
	assert_int_equal(i, N(expected_tables));
	assert_int_equal(t_int(tl, "PRAGMA user_version"), TIMELINE_SCHEMA_VERSION);
	strbuf_release(&got);
	t_close(tl);
}

static void indexes_are_the_documented_ones(void **state)
{
	struct timeline *tl = t_open();
	struct strbuf got = STRBUF_INIT;
	sqlite3_stmt *st;
	size_t i = 0;
	(void)state;

	/* samples are packed (schema 5): no index but their blocks' parent */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM sqlite_master WHERE name ="
			       " 'sample_series_time'"), 0);

	assert_int_equal(sqlite3_prepare_v2(tl->db,
		"SELECT t.name || ': ' || l.name || '(' || (SELECT group_concat(coalesce(name, '<expr>'))"
		"   FROM (SELECT name FROM pragma_index_info(l.name) ORDER BY seqno)) || ')'"
		"   || iif(l.\"unique\", ' unique', '') || ' ' || l.origin"
		"   || iif(l.partial, ' partial', '')"
		" FROM sqlite_master t, pragma_index_list(t.name) l WHERE t.type = 'table'"
		" ORDER BY t.rowid, l.name", -1, &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		assert_true(i < N(expected_indexes));
		assert_string_equal((const char *)sqlite3_column_text(st, 0), expected_indexes[i]);
		i++;
	}
	sqlite3_finalize(st);
	assert_int_equal(i, N(expected_indexes));
	strbuf_release(&got);
	t_close(tl);
}

/* ---- docs/schema.md ---- */

static int ident_char(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* 1 when text[0..n) holds w as a whole word. */
static int has_word(const char *text, size_t n, const char *w)
{
	size_t k = strlen(w), i;

	for (i = 0; i + k <= n; i++)
		if (!memcmp(text + i, w, k) && (i == 0 || !ident_char(text[i - 1])) &&
		    (i + k == n || !ident_char(text[i + k])))
			return 1;
	return 0;
}

static int has_column(sqlite3 *db, const char *t, const char *col)
{
	sqlite3_stmt *st;
	int r;

	assert_int_equal(sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_info(?1)"
					    " WHERE name = ?2", -1, &st, NULL), SQLITE_OK);
	sqlite3_bind_text(st, 1, t, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, col, -1, SQLITE_STATIC);
	r = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return r;
}

/* Is column col of a table named in the row's columns cell? The docs
 * write a run of columns as `grid_x`/`_y`/`_z`. */
static int documented(const char *cell, size_t n, const char *col)
{
	char first[64], tail[8];
	size_t k = strlen(col);

	if (has_word(cell, n, col))
		return 1;
	if (k < 3 || k >= sizeof(first) || col[k - 2] != '_')
		return 0;
	snprintf(first, sizeof(first), "%.*s_x", (int)(k - 2), col);
	snprintf(tail, sizeof(tail), "`%s`", col + k - 2);
	return has_word(cell, n, first) && memmem(cell, n, tail, strlen(tail));
}

/* Each `name` outside parentheses in the cell (the columns; a value
 * list in parentheses is not) is a column of table t. */
static void named_columns_exist(sqlite3 *db, const char *t, const char *cell, size_t n)
{
	char prev[64] = "", tok[64];
	int depth = 0;
	size_t i, start = 0;
	int in_tick = 0;

	for (i = 0; i < n; i++) {
		if (cell[i] == '`') {
			in_tick = !in_tick;
			if (in_tick) {
				start = i + 1;
				continue;
			}
			if (depth)
				continue;
			snprintf(tok, sizeof(tok), "%.*s", (int)(i - start), cell + start);
			if (tok[0] == '_' && strrchr(prev, '_')) /* `grid_x`/`_y` */
				snprintf(tok, sizeof(tok), "%.*s%.*s",
					 (int)(strrchr(prev, '_') - prev), prev, (int)(i - start),
					 cell + start);
			if (!has_column(db, t, tok))
				fail_msg("docs/schema.md: %s.%s is not a column", t, tok);
			snprintf(prev, sizeof(prev), "%s", tok);
		} else if (!in_tick && cell[i] == '(') {
			depth++;
		} else if (!in_tick && cell[i] == ')' && depth) {
			depth--;
		}
	}
}

/* One row "| `table` [/ `table`] | one row per | columns |": every table
 * named exists, each of its columns but id is named, and (one table per
 * row) every column named exists. Marks the tables seen in seen. */
static void check_doc_row(sqlite3 *db, const char *line, size_t len, struct strbuf *seen)
{
	const char *c1 = memchr(line + 1, '|', len - 1), *c2, *c3;
	char names[2][64];
	int nn = 0, i;
	const char *p;
	sqlite3_stmt *st;

	assert_non_null(c1);
	c2 = memchr(c1 + 1, '|', (size_t)(line + len - c1 - 1));
	assert_non_null(c2);
	c3 = memchr(c2 + 1, '|', (size_t)(line + len - c2 - 1));
	if (!c3)
		c3 = line + len;
	for (p = line + 1; p < c1 && nn < 2; p++) {
		const char *e;
		if (*p != '`' || !(e = memchr(p + 1, '`', (size_t)(c1 - p - 1))))
			continue;
		snprintf(names[nn++], sizeof(names[0]), "%.*s", (int)(e - p - 1), p + 1);
		p = e;
	}
	assert_true(nn > 0);
	for (i = 0; i < nn; i++) {
		assert_int_equal(sqlite3_prepare_v2(db, "SELECT name FROM pragma_table_info(?1)",
						    -1, &st, NULL), SQLITE_OK);
		sqlite3_bind_text(st, 1, names[i], -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_ROW)
			fail_msg("docs/schema.md: no table %s", names[i]);
		do {
			const char *col = (const char *)sqlite3_column_text(st, 0);
			if (strcmp(col, "id") && !documented(c2 + 1, (size_t)(c3 - c2 - 1), col))
				fail_msg("docs/schema.md: %s.%s is not documented", names[i], col);
		} while (sqlite3_step(st) == SQLITE_ROW);
		sqlite3_finalize(st);
		strbuf_addf(seen, " %s ", names[i]);
	}
	if (nn == 1)
		named_columns_exist(db, names[0], c2 + 1, (size_t)(c3 - c2 - 1));
}

/* docs/schema.md's tables of tables and the database agree both ways. */
static void schema_doc_matches_the_database(void **state)
{
	struct timeline *tl = t_open();
	static const char header[] = "| table | one row per | columns |";
	struct strbuf seen = STRBUF_INIT, want = STRBUF_INIT;
	size_t n, rows = 0;
	char *doc = t_slurp("docs/schema.md", &n);
	const char *line = doc, *end = doc + n;
	int in_table = 0;
	sqlite3_stmt *st;
	(void)state;

	/* The rules make tables of their own (whatif, ledger): an analysis
	 * of the empty timeline makes them, so the doc is held to them too. */
	assert_int_equal(analyze_timeline(tl, &want), 0);
	while (line < end) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		size_t len = nl ? (size_t)(nl - line) : (size_t)(end - line);
		if (len >= strlen(header) && !memcmp(line, header, strlen(header)))
			in_table = 1;
		else if (!len || line[0] != '|')
			in_table = 0;
		else if (in_table && len > 2 && line[2] == '`' && ++rows)
			check_doc_row(tl->db, line, len, &seen);
		line += len + 1;
	}
	assert_true(rows >= 20);
	assert_int_equal(sqlite3_prepare_v2(tl->db, "SELECT name FROM sqlite_master"
					    " WHERE type = 'table'", -1, &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		strbuf_reset(&want);
		strbuf_addf(&want, " %s ", sqlite3_column_text(st, 0));
		if (!strstr(seen.buf, want.buf))
			fail_msg("docs/schema.md does not document table%s", want.buf);
	}
	sqlite3_finalize(st);
	strbuf_release(&seen);
	strbuf_release(&want);
	free(doc);
	t_close(tl);
}

/* ---- the generic insert ---- */

struct rec {
	int64_t n;
	const char *s;
	struct ol_time t;
	uint64_t u;
	int flag;
	int64_t ref;
	double x;
	json_t *j;
	int64_t last;
};

static const struct col rec_cols[] = {
	ID_COLUMN,
	ARTIFACT_COLUMN("INTEGER"),
	PARENT_COLUMN("parent_id", "INTEGER NOT NULL"),
	INT_COLUMN(struct rec, n),
	TEXT_COLUMN(struct rec, s),
	TIME_COLUMNS(struct rec, t),
	COLUMN(struct rec, u, "INTEGER", COL_U64),
	COLUMN(struct rec, flag, "INTEGER", COL_CINT),
	COLUMN(struct rec, ref, "INTEGER", COL_REF),
	COLUMN(struct rec, x, "REAL", COL_REAL),
	COLUMN(struct rec, j, "TEXT", COL_JSON),
	{ "last", "INTEGER", COL_INT, offsetof(struct rec, last), AT_END },
	{ "rules", "TEXT", COL_NONE, 0, AT_INSERT },
};
static const struct table rec_table = TABLE("rec", rec_cols, "UNIQUE(n, s)", NULL,
					    "CREATE INDEX rec_n ON rec(n);\n");

/* The SQL built from a descriptor list, and the binds of each kind. */
static void descriptors_build_sql_and_binds(void **state)
{
	struct strbuf sql = STRBUF_INIT;
	struct rec r = { OL_NULL, NULL, { OL_CLOCK_BOOT, 5, 7, NULL }, UINT64_MAX, 1, 0, 0.5,
			 NULL, 9 };
	sqlite3 *db;
	sqlite3_stmt *st;
	(void)state;

	table_create_sql(&rec_table, &sql);
	assert_string_equal(sql.buf, "CREATE TABLE rec(\n  id INTEGER PRIMARY KEY,\n"
			    "  artifact_id INTEGER,\n  parent_id INTEGER NOT NULL,\n  n INTEGER,\n"
			    "  s TEXT,\n  time_ns INTEGER,\n  clock TEXT,\n  boot_ns INTEGER,\n"
			    "  u INTEGER,\n  flag INTEGER,\n  ref INTEGER,\n  x REAL,\n  j TEXT,\n"
			    "  last INTEGER,\n  rules TEXT,\n  UNIQUE(n, s));\n"
			    "CREATE INDEX rec_n ON rec(n);\n");
	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, sql.buf, NULL, NULL, NULL), SQLITE_OK);
	strbuf_reset(&sql);
	table_stmt_sql(&rec_table, TABLE_INSERT, &sql);
	assert_string_equal(sql.buf, "INSERT INTO rec(artifact_id, parent_id, n, s, time_ns,"
			    " clock, boot_ns, u, flag, ref, x, j) VALUES(?,?,?,?,?,?,?,?,?,?,?,?)");
	assert_int_equal(sqlite3_prepare_v2(db, sql.buf, -1, &st, NULL), SQLITE_OK);
	table_bind(st, &rec_table, TABLE_INSERT, 0, 42, &r, 0);
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	r.n = 3;
	r.s = "three";
	r.t.clock = OL_CLOCK_UTC;
	r.ref = 8;
	r.j = json_pack("{si}", "a", 1);
	r.last = 10;
	assert_int_equal(sqlite3_prepare_v2(db, sql.buf, -1, &st, NULL), SQLITE_OK);
	table_bind(st, &rec_table, TABLE_INSERT, 6, 43, &r, 0);
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	json_decref(r.j);
	strbuf_reset(&sql);
	table_stmt_sql(&rec_table, TABLE_UPDATE, &sql);
	assert_string_equal(sql.buf, "UPDATE rec SET last = ? WHERE id = ?");
	assert_int_equal(sqlite3_prepare_v2(db, sql.buf, -1, &st, NULL), SQLITE_OK);
	table_bind(st, &rec_table, TABLE_UPDATE, 0, 0, &r, 2);
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT group_concat(quote(artifact_id) || ' '"
		" || parent_id || ' ' || quote(n) || ' ' || quote(s) || ' ' || quote(time_ns) || ' '"
		" || clock || ' ' || boot_ns || ' ' || u || ' ' || flag || ' ' || quote(ref) || ' '"
		" || x || ' ' || quote(j) || ' ' || quote(last), '; ') FROM rec", -1, &st, NULL),
		SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(st, 0),
			    "NULL 42 NULL NULL NULL boot 7 -1 1 NULL 0.5 NULL NULL; "
			    "6 43 3 'three' 5 utc 7 -1 1 8 0.5 '{\"a\":1}' 10");
	sqlite3_finalize(st);
	sqlite3_close(db);
	strbuf_release(&sql);
}

/* Ops return the new row's id where the table has one, else 1. */
static void inserts_return_ids(void **state)
{
	struct timeline *tl = t_open();
	struct ol_event e = { "oom_kill", { OL_CLOCK_UTC, 1, OL_NULL, NULL }, 1, "x", OL_NULL,
			      1, NULL, NULL };
	struct ol_time t = { OL_CLOCK_UTC, 1, OL_NULL, NULL };
	int64_t a, ev, sid;
	(void)state;

	a = timeline_artifact_begin(tl, "a.log", "kernel_log", 10, 0);
	assert_true(a > 0);
	ev = sink_event(&tl->sink, &e);
	assert_int_equal(ev, 1);
	assert_int_equal(sink_event(&tl->sink, &e), 2);
	sid = sink_series(&tl->sink, "gpu.used_bytes", "bytes", NULL);
	assert_true(sid > 0);
	assert_int_equal(sink_series(&tl->sink, "gpu.used_bytes", "bytes", ""), sid);
	assert_int_equal(sink_sample(&tl->sink, sid, &t, 2.0), 1);
	assert_int_equal(sink_sample(&tl->sink, sid, &t, 3.0), 1);
	assert_int_equal(timeline_artifact_end(tl, 1, "ok", 10, 0.25), 0);
	assert_string_equal(t_text(tl, "SELECT status || ' ' || bytes_read || ' ' || errors"
				   " || ' ' || seconds FROM artifact WHERE id = %lld",
				   (long long)a), "ok 10 0 0.25");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE artifact_id = %lld",
			       (long long)a), 2);
	assert_string_equal(t_text(tl, "SELECT entity FROM series"), "");
	assert_string_equal(tl->errmsg, "");
	t_close(tl);
}

static void on_error(void *arg, const char *msg)
{
	snprintf(arg, 128, "%s", msg);
}

/* A store error is returned, kept in errmsg and told to on_error; the
 * store itself prints nothing. */
static void errors_are_kept_and_told(void **state)
{
	struct timeline *tl = t_open();
	char told[128] = "";
	(void)state;

	tl->on_error = on_error;
	tl->on_error_arg = told;
	assert_int_equal(timeline_exec(tl, "INSERT INTO nosuch VALUES(1)"), -1);
	assert_string_equal(tl->errmsg, "no such table: nosuch");
	assert_string_equal(told, "no such table: nosuch");
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tables_are_the_documented_schema),
		cmocka_unit_test(indexes_are_the_documented_ones),
		cmocka_unit_test(schema_doc_matches_the_database),
		cmocka_unit_test(descriptors_build_sql_and_binds),
		cmocka_unit_test(inserts_return_ids),
		cmocka_unit_test(errors_are_kept_and_told),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

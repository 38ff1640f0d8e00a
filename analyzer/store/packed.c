/*
 * packed.c -- the virtual table module "oomlens_packed" that reads a
 * packed table's blocks (packed_block.c) back as rows (see packed.h).
 * Writing blocks -- the append of a block to its backing table and the
 * aggregate packed_rows() -- is in packed_write.c.
 *
 * A cursor walks the blocks of its table in order (of one parent when
 * the query gives the first column's value), decodes a column of a block
 * when a row of it is first asked, and tests the query's comparisons of
 * columns itself (struct filter), so that SQLite's VDBE works only on
 * rows that may pass. Rows of a bad block end the query with
 * SQLITE_CORRUPT naming the block.
 */
#include "analyzer/store/packed_block.h"
#include "analyzer/store/packed_int.h"
#include "lib/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the virtual table ---- */

struct pk_vtab {
	sqlite3_vtab base;
	sqlite3 *db;
	char *backing;          /* NAME_block */
	int ncols;
	char affinity[PACKED_MAX_COLS];   /* 'i' INTEGER, 'r' REAL, 't' TEXT, 'n' NUMERIC,
					   * 'b' none: as SQLite reads a declared type */
	sqlite3_stmt *ins;      /* packed_append's, for INSERTs into the table */
	struct packed_enc enc;
};

/* A constraint the cursor tests itself, so that SQLite's VDBE sees only
 * the rows that may pass (SQLite tests them again: a row is skipped here
 * only when the test is false for certain). */
struct filter {
	int col;
	unsigned char op;       /* SQLITE_INDEX_CONSTRAINT_* */
	struct pk_cell v;          /* the value; text copied (sqlite3_malloc) */
};

#define MAX_FILTERS 8

struct pk_cursor {
	sqlite3_vtab_cursor base;
	sqlite3_stmt *all, *by_parent, *st;   /* st: the one stepping */
	int eof;
	struct filter f[MAX_FILTERS];
	int nf;
	struct pk_block b;
	int64_t first_rowid, block_id;
	int row;
	struct pk_cell *cells;     /* ncols x PACKED_MAX_ROWS at most, by column */
	struct pk_cell *dict;
	size_t cap;             /* rows the arrays have room for */
	uint64_t decoded;       /* bit c: column c of this block is in cells */
};

/* The affinity of a column declared decl ("seq INTEGER NOT NULL"), by
 * SQLite's rules on the type after the name (sqlite.org/datatype3.html,
 * 3.1): INT -> integer; CHAR, CLOB, TEXT -> text; BLOB or none -> none;
 * REAL, FLOA, DOUB -> real; else numeric. */
static char affinity_of(const char *decl)
{
	const char *type = decl;

	while (*type && *type != ' ')
		type++;
	if (sqlite3_strlike("%INT%", type, 0) == 0)
		return 'i';
	if (sqlite3_strlike("%CHAR%", type, 0) == 0 || sqlite3_strlike("%CLOB%", type, 0) == 0 ||
	    sqlite3_strlike("%TEXT%", type, 0) == 0)
		return 't';
	if (sqlite3_strlike("%BLOB%", type, 0) == 0 || !type[strspn(type, " ")])
		return 'b';
	if (sqlite3_strlike("%REAL%", type, 0) == 0 || sqlite3_strlike("%FLOA%", type, 0) == 0 ||
	    sqlite3_strlike("%DOUB%", type, 0) == 0)
		return 'r';
	return 'n';
}

/* argv: module, database, table, then the backing table's name and the
 * columns' declarations ("seq INTEGER"). */
static int pk_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
		      sqlite3_vtab **out, char **err)
{
	struct pk_vtab *v;
	sqlite3_str *sql;
	char *decl;
	int i, rc;

	(void)aux;
	if (argc < 5 || argc - 4 > PACKED_MAX_COLS) {
		*err = sqlite3_mprintf("%s: a backing table and 1 to %d columns expected",
				       PACKED_MODULE, PACKED_MAX_COLS);
		return SQLITE_ERROR;
	}
	sql = sqlite3_str_new(db);
	sqlite3_str_appendall(sql, "CREATE TABLE x(");
	for (i = 4; i < argc; i++)
		sqlite3_str_appendf(sql, "%s%s", i > 4 ? ", " : "", argv[i]);
	sqlite3_str_appendall(sql, ")");
	if (!(decl = sqlite3_str_finish(sql)))
		return SQLITE_NOMEM;
	rc = sqlite3_declare_vtab(db, decl);
	sqlite3_free(decl);
	if (rc != SQLITE_OK)
		return rc;
	if (!(v = sqlite3_malloc(sizeof(*v))))
		return SQLITE_NOMEM;
	memset(v, 0, sizeof(*v));
	v->db = db;
	v->ncols = argc - 4;
	for (i = 4; i < argc; i++)
		v->affinity[i - 4] = affinity_of(argv[i]);
	if (!(v->backing = sqlite3_mprintf("%s", argv[3]))) {
		sqlite3_free(v);
		return SQLITE_NOMEM;
	}
	*out = &v->base;
	return SQLITE_OK;
}

static int pk_disconnect(sqlite3_vtab *base)
{
	struct pk_vtab *v = (struct pk_vtab *)base;

	sqlite3_finalize(v->ins);
	packed_enc_release(&v->enc);
	sqlite3_free(v->backing);
	sqlite3_free(v);
	return SQLITE_OK;
}

/* Whether the cursor can test constraint k itself (see struct filter):
 * a comparison, or IS [NOT] NULL, of a column, compared as BINARY. */
static int filterable(sqlite3_index_info *info, int k)
{
	const struct sqlite3_index_constraint *x = &info->aConstraint[k];
	const char *coll;

	if (!x->usable || x->iColumn < 0)
		return 0;
	switch (x->op) {
	case SQLITE_INDEX_CONSTRAINT_ISNULL:
	case SQLITE_INDEX_CONSTRAINT_ISNOTNULL:
		return 1;
	case SQLITE_INDEX_CONSTRAINT_EQ:
	case SQLITE_INDEX_CONSTRAINT_GT:
	case SQLITE_INDEX_CONSTRAINT_GE:
	case SQLITE_INDEX_CONSTRAINT_LT:
	case SQLITE_INDEX_CONSTRAINT_LE:
		coll = sqlite3_vtab_collation(info, k);
		return !coll || !sqlite3_stricmp(coll, "BINARY");
	default:
		return 0;
	}
}

/* Plans. idxStr lists what xFilter's arguments are, one "cOP" per
 * argument (column, constraint op, as decimal numbers); idxNum 1 when the
 * first is the first column's equality, which picks the blocks of that
 * parent (the rows of a block share it). Rows come in rowid order. */
static int pk_best_index(sqlite3_vtab *base, sqlite3_index_info *info)
{
	sqlite3_str *plan = sqlite3_str_new(NULL);
	int i, n = 0, parent = -1;

	(void)base;
	info->idxNum = 0;
	for (i = 0; i < info->nConstraint; i++) {
		const struct sqlite3_index_constraint *k = &info->aConstraint[i];
		if (k->usable && k->iColumn == 0 && k->op == SQLITE_INDEX_CONSTRAINT_EQ) {
			parent = i;
			break;
		}
	}
	if (parent >= 0) {
		info->aConstraintUsage[parent].argvIndex = ++n;
		info->aConstraintUsage[parent].omit = 1;
		info->idxNum = 1;
		sqlite3_str_appendf(plan, "c0o%d;", SQLITE_INDEX_CONSTRAINT_EQ);
	}
	for (i = 0; i < info->nConstraint && n < MAX_FILTERS + 1; i++) {
		if (i == parent || !filterable(info, i))
			continue;
		info->aConstraintUsage[i].argvIndex = ++n;
		sqlite3_str_appendf(plan, "c%do%d;", info->aConstraint[i].iColumn,
				    info->aConstraint[i].op);
	}
	info->idxStr = sqlite3_str_finish(plan);
	info->needToFreeIdxStr = 1;
	if (!info->idxStr && n)
		return SQLITE_NOMEM;
	if (info->nOrderBy == 1 && info->aOrderBy[0].iColumn == -1 && !info->aOrderBy[0].desc)
		info->orderByConsumed = 1;
	info->estimatedCost = (info->idxNum ? 1e5 : 1e6) / (1 + n - info->idxNum);
	info->estimatedRows = (sqlite3_int64)info->estimatedCost;
	return SQLITE_OK;
}

static int pk_open(sqlite3_vtab *base, sqlite3_vtab_cursor **out)
{
	struct pk_cursor *c = sqlite3_malloc(sizeof(*c));

	(void)base;
	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	c->eof = 1;
	*out = &c->base;
	return SQLITE_OK;
}

static void clear_filters(struct pk_cursor *c)
{
	int i;

	for (i = 0; i < c->nf; i++)
		if (c->f[i].v.type == PV_TEXT)
			sqlite3_free((void *)c->f[i].v.u.p);
	c->nf = 0;
}

static int pk_close(sqlite3_vtab_cursor *base)
{
	struct pk_cursor *c = (struct pk_cursor *)base;

	clear_filters(c);
	sqlite3_finalize(c->all);
	sqlite3_finalize(c->by_parent);
	sqlite3_free(c->cells);
	sqlite3_free(c->dict);
	sqlite3_free(c);
	return SQLITE_OK;
}

/* Fail the statement reading cursor c with a message. */
static int pk_error(struct pk_cursor *c, int rc, const char *what)
{
	struct pk_vtab *v = (struct pk_vtab *)c->base.pVtab;

	sqlite3_free(v->base.zErrMsg);
	v->base.zErrMsg = sqlite3_mprintf("%s row %lld: %s", v->backing,
					  (long long)c->block_id, what);
	return rc;
}

/* Step to the next block with rows; c->eof at the end. */
static int next_block(struct pk_cursor *c)
{
	struct pk_vtab *v = (struct pk_vtab *)c->base.pVtab;
	int rc = sqlite3_step(c->st);

	c->row = 0;
	c->decoded = 0;
	if (rc == SQLITE_DONE) {
		c->eof = 1;
		return SQLITE_OK;
	}
	if (rc != SQLITE_ROW) {
		c->eof = 1;
		return pk_error(c, rc, sqlite3_errmsg(v->db));
	}
	c->block_id = sqlite3_column_int64(c->st, 0);
	c->first_rowid = sqlite3_column_int64(c->st, 1);
	if (packed_block_open(&c->b, sqlite3_column_blob(c->st, 2),
		       (size_t)sqlite3_column_bytes(c->st, 2)) < 0 || c->b.ncols != v->ncols) {
		c->eof = 1;
		return pk_error(c, SQLITE_CORRUPT, "not a block of this table");
	}
	if ((size_t)c->b.nrows > c->cap) {
		size_t cap = (size_t)c->b.nrows;
		struct pk_cell *cells = sqlite3_realloc64(c->cells, cap * v->ncols * sizeof(*cells));
		struct pk_cell *dict = cells ? sqlite3_realloc64(c->dict, cap * sizeof(*dict)) : NULL;
		if (cells)
			c->cells = cells;
		if (!cells || !dict) {
			c->eof = 1;
			return SQLITE_NOMEM;
		}
		c->dict = dict;
		c->cap = cap;
	}
	c->eof = 0;
	return SQLITE_OK;
}

/* Column col of the current block, decoded on first use; NULL (the
 * error set) when its encoding is corrupt. An integer in a REAL column
 * (stored so, as SQLite stores an integral REAL) is read as a real. */
static struct pk_cell *col_cells(struct pk_cursor *c, int col)
{
	struct pk_vtab *v = (struct pk_vtab *)c->base.pVtab;
	struct pk_cell *cells = c->cells + (size_t)col * c->cap;

	if (!(c->decoded >> col & 1)) {
		if (packed_block_column(&c->b, col, cells, c->dict) < 0) {
			pk_error(c, SQLITE_CORRUPT, "a column runs past the block");
			return NULL;
		}
		if (v->affinity[col] == 'r') {
			int r;
			for (r = 0; r < c->b.nrows; r++)
				if (cells[r].type == PV_INT) {
					cells[r].type = PV_REAL;
					cells[r].u.d = (double)cells[r].u.i;
				}
		}
		c->decoded |= 1ull << col;
	}
	return cells;
}

/* -1, 0, 1 as a is below, equal to or above b; 2 when the two cannot be
 * compared here (other types: SQLite's affinities decide). */
static int cell_cmp(const struct pk_cell *a, const struct pk_cell *b)
{
	if (a->type == PV_INT && b->type == PV_INT)
		return a->u.i < b->u.i ? -1 : a->u.i > b->u.i;
	if (a->type == PV_REAL && b->type == PV_REAL)
		return a->u.d < b->u.d ? -1 : a->u.d > b->u.d ? 1 : a->u.d == b->u.d ? 0 : 2;
	if (a->type == PV_TEXT && b->type == PV_TEXT) {
		uint32_t n = a->n < b->n ? a->n : b->n;
		int r = n ? memcmp(a->u.p, b->u.p, n) : 0;
		if (r)
			return r < 0 ? -1 : 1;
		return a->n < b->n ? -1 : a->n > b->n;
	}
	return 2;
}

/* 1 when the current row fails a filter for certain, 0 when it may pass,
 * -1 on a corrupt block. */
static int row_fails(struct pk_cursor *c)
{
	int i;

	for (i = 0; i < c->nf; i++) {
		const struct filter *f = &c->f[i];
		const struct pk_cell *cells = col_cells(c, f->col), *x;
		int r;
		if (!cells)
			return -1;
		x = &cells[c->row];
		if (f->op == SQLITE_INDEX_CONSTRAINT_ISNULL) {
			if (x->type != PV_NULL)
				return 1;
			continue;
		}
		if (f->op == SQLITE_INDEX_CONSTRAINT_ISNOTNULL) {
			if (x->type == PV_NULL)
				return 1;
			continue;
		}
		if (x->type == PV_NULL || f->v.type == PV_NULL)
			return 1;   /* a comparison with NULL is never true */
		r = cell_cmp(x, &f->v);
		if (r == 2)
			continue;
		if ((f->op == SQLITE_INDEX_CONSTRAINT_EQ && r != 0) ||
		    (f->op == SQLITE_INDEX_CONSTRAINT_GT && r <= 0) ||
		    (f->op == SQLITE_INDEX_CONSTRAINT_GE && r < 0) ||
		    (f->op == SQLITE_INDEX_CONSTRAINT_LT && r >= 0) ||
		    (f->op == SQLITE_INDEX_CONSTRAINT_LE && r > 0))
			return 1;
	}
	return 0;
}

/* From the current row on, the first that may pass the filters (or the
 * end). */
static int settle(struct pk_cursor *c)
{
	while (!c->eof) {
		int rc, fails = c->nf ? row_fails(c) : 0;
		if (fails < 0)
			return SQLITE_CORRUPT;
		if (!fails)
			return SQLITE_OK;
		if (++c->row < c->b.nrows)
			continue;
		if ((rc = next_block(c)) != SQLITE_OK)
			return rc;
	}
	return SQLITE_OK;
}

/* Value p of x as a column of affinity aff stores it, as a plain table
 * would: numeric text becomes a number in an INTEGER, REAL or NUMERIC
 * column, an integral real an integer in any of the three (a REAL
 * column's reads give it back as a real), a number text (in buf, n
 * bytes) in a TEXT one. */
static void apply_affinity(char aff, sqlite3_value *x, struct packed_val *p, char *buf, size_t n)
{
	if (aff == 'b' || p->type == PV_NULL || p->type == PV_BLOB)
		return;
	if (aff == 't') {
		if (p->type == PV_INT || p->type == PV_REAL) {
			/* SQLite's own text of the number ("%!.15g" for reals) */
			const unsigned char *t = sqlite3_value_text(x);
			if (t && (size_t)sqlite3_value_bytes(x) < n) {
				memcpy(buf, t, (size_t)sqlite3_value_bytes(x) + 1);
				p->type = PV_TEXT;
				p->p = buf;
				p->n = strlen(buf);
			}
		}
		return;
	}
	if (p->type == PV_TEXT) {
		int t = sqlite3_value_numeric_type(x);   /* converts x when it is a number */
		if (t == SQLITE_INTEGER || t == SQLITE_FLOAT)
			packed_val_of(x, p);
	}
	/* a REAL column keeps an integral value as an integer, as SQLite
	 * does (read back as a real, col_cells) */
	if ((aff == 'i' || aff == 'n' || aff == 'r') && p->type == PV_REAL && p->d >= -9.2e18 && p->d <= 9.2e18 &&
	    p->d == (double)(int64_t)p->d) {
		p->type = PV_INT;
		p->i = (int64_t)p->d;
	}
}

/* Keep the filters idxstr lists (pk_best_index), their values argv. */
static int take_filters(struct pk_cursor *c, const char *idxstr, int argc, sqlite3_value **argv)
{
	struct pk_vtab *v = (struct pk_vtab *)c->base.pVtab;
	int i, col, op, used;

	clear_filters(c);
	for (i = 0; idxstr && i < argc && sscanf(idxstr, "c%do%d;%n", &col, &op, &used) == 2;
	     i++, idxstr += used) {
		struct filter *f;
		struct packed_val x;
		if (i == 0 && col == 0 && op == SQLITE_INDEX_CONSTRAINT_EQ)
			continue;   /* the parent: the blocks' query has it */
		if (c->nf == MAX_FILTERS || col < 0 || col >= v->ncols)
			continue;
		packed_val_of(argv[i], &x);
		if (x.type == PV_BLOB)
			continue;   /* not compared here */
		f = &c->f[c->nf];
		f->col = col;
		f->op = (unsigned char)op;
		f->v.type = (unsigned char)x.type;
		if (x.type == PV_INT)
			f->v.u.i = x.i;
		if (x.type == PV_REAL)
			f->v.u.d = x.d;
		if (x.type == PV_TEXT) {
			f->v.n = (uint32_t)x.n;
			if (!(f->v.u.p = packed_copy_bytes(x.p, x.n)))
				return SQLITE_NOMEM;
		}
		c->nf++;
	}
	return SQLITE_OK;
}

static int pk_filter(sqlite3_vtab_cursor *base, int idx, const char *idxstr, int argc,
		     sqlite3_value **argv)
{
	struct pk_cursor *c = (struct pk_cursor *)base;
	struct pk_vtab *v = (struct pk_vtab *)base->pVtab;
	sqlite3_stmt **st = idx == 1 ? &c->by_parent : &c->all;
	int rc;

	if (!*st) {
		char *sql = sqlite3_mprintf("SELECT id, first_rowid, data FROM \"%w\"%s ORDER BY id",
					    v->backing, idx == 1 ? " WHERE parent = ?1" : "");
		rc = sql ? sqlite3_prepare_v2(v->db, sql, -1, st, NULL) : SQLITE_NOMEM;
		sqlite3_free(sql);
		if (rc != SQLITE_OK)
			return pk_error(c, rc, sqlite3_errmsg(v->db));
	}
	if ((rc = take_filters(c, idxstr, argc, argv)) != SQLITE_OK)
		return rc;
	if (c->st)
		sqlite3_reset(c->st);
	c->st = *st;
	sqlite3_reset(c->st);
	if (idx == 1 && argc >= 1)
		sqlite3_bind_value(c->st, 1, argv[0]);
	if ((rc = next_block(c)) != SQLITE_OK)
		return rc;
	return settle(c);
}

static int pk_next(sqlite3_vtab_cursor *base)
{
	struct pk_cursor *c = (struct pk_cursor *)base;
	int rc;

	if (++c->row >= c->b.nrows && (rc = next_block(c)) != SQLITE_OK)
		return rc;
	return settle(c);
}

static int pk_eof(sqlite3_vtab_cursor *base)
{
	return ((struct pk_cursor *)base)->eof;
}

static int pk_column(sqlite3_vtab_cursor *base, sqlite3_context *ctx, int col)
{
	struct pk_cursor *c = (struct pk_cursor *)base;
	struct pk_cell *cells, *x;

	if (col < 0 || col >= c->b.ncols)
		return SQLITE_ERROR;
	if (!(cells = col_cells(c, col)))
		return SQLITE_CORRUPT;
	x = &cells[c->row];
	switch (x->type) {
	case PV_INT:
		sqlite3_result_int64(ctx, x->u.i);
		break;
	case PV_REAL:
		sqlite3_result_double(ctx, x->u.d);
		break;
	case PV_TEXT:
		sqlite3_result_text(ctx, (const char *)x->u.p, (int)x->n, SQLITE_TRANSIENT);
		break;
	case PV_BLOB:
		sqlite3_result_blob(ctx, x->u.p, (int)x->n, SQLITE_TRANSIENT);
		break;
	default:
		sqlite3_result_null(ctx);
	}
	return SQLITE_OK;
}

static int pk_rowid(sqlite3_vtab_cursor *base, sqlite3_int64 *rowid)
{
	struct pk_cursor *c = (struct pk_cursor *)base;

	*rowid = c->first_rowid + c->row;
	return SQLITE_OK;
}

/* The first rowid of block id of v's backing table, into *rowid. */
static int block_first_rowid(struct pk_vtab *v, int64_t id, sqlite3_int64 *rowid)
{
	char *sql = sqlite3_mprintf("SELECT first_rowid FROM \"%w\" WHERE id = ?1", v->backing);
	sqlite3_stmt *st = NULL;
	int rc = sql ? sqlite3_prepare_v2(v->db, sql, -1, &st, NULL) : SQLITE_NOMEM;

	sqlite3_free(sql);
	if (rc == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, id);
		rc = sqlite3_step(st) == SQLITE_ROW ? SQLITE_OK : SQLITE_CORRUPT;
		if (rc == SQLITE_OK)
			*rowid = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	return rc;
}

/* INSERT only: the row becomes a block of its own. */
static int pk_update(sqlite3_vtab *base, int argc, sqlite3_value **argv, sqlite3_int64 *rowid)
{
	struct pk_vtab *v = (struct pk_vtab *)base;
	struct packed_val vals[PACKED_MAX_COLS];
	char texts[PACKED_MAX_COLS][32];   /* numbers written as text for a TEXT column */
	struct strbuf blk = STRBUF_INIT;
	int64_t parent = INT64_MIN;
	int i, rc;

	if (argc == 1 || sqlite3_value_type(argv[0]) != SQLITE_NULL ||
	    sqlite3_value_type(argv[1]) != SQLITE_NULL || argc - 2 != v->ncols) {
		sqlite3_free(base->zErrMsg);
		base->zErrMsg = sqlite3_mprintf("rows of a packed table are only appended,"
						" their rowids given by the table");
		return SQLITE_CONSTRAINT;
	}
	for (i = 0; i < v->ncols; i++) {
		packed_val_of(argv[2 + i], &vals[i]);
		apply_affinity(v->affinity[i], argv[2 + i], &vals[i], texts[i], sizeof(texts[i]));
	}
	if (vals[0].type == PV_INT)
		parent = vals[0].i;
	if (packed_encode(&v->enc, &blk, vals, 1, v->ncols) < 0)
		rc = SQLITE_NOMEM;
	else
		rc = packed_append(v->db, v->backing, &v->ins, parent, 1, blk.buf, blk.len);
	strbuf_release(&blk);
	if (rc == SQLITE_OK)
		rc = block_first_rowid(v, sqlite3_last_insert_rowid(v->db), rowid);
	return rc;
}

static const sqlite3_module pk_module = {
	.iVersion = 1,
	.xCreate = pk_connect,
	.xConnect = pk_connect,
	.xBestIndex = pk_best_index,
	.xDisconnect = pk_disconnect,
	.xDestroy = pk_disconnect,
	.xOpen = pk_open,
	.xClose = pk_close,
	.xFilter = pk_filter,
	.xNext = pk_next,
	.xEof = pk_eof,
	.xColumn = pk_column,
	.xRowid = pk_rowid,
	.xUpdate = pk_update,
};

int packed_register(sqlite3 *db)
{
	int rc = sqlite3_create_module(db, PACKED_MODULE, &pk_module, NULL);

	if (rc == SQLITE_OK)
		rc = packed_rows_register(db);
	return rc;
}

/*
 * fuzz_packed.c -- libFuzzer harness for analyzer/store/packed.c's reader:
 * any bytes as the data of a block in an incident database (a database
 * someone else wrote is an input like any other). The bytes are stored
 * as one block of a three-column packed table in an in-memory database
 * and every row and column is read back through the virtual table (and
 * through the constraints its cursor tests itself); a
 * block that does not decode must end the query with an error, never a
 * read outside it. The first input byte gives the row count the block
 * row claims, as a hostile first_rowid/rows pair would. The same block
 * is also read through a second table declaring its last column REAL, as
 * the sample table's value is (an integer stored in a REAL column is given
 * back as a real). The seeds are blocks the encoder wrote
 * (fuzz/corpus/packed).
 */
#include "analyzer/store/packed.h"

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

static sqlite3 *db;
static sqlite3_stmt *ins, *sel, *cond, *selr;

static void setup(void)
{
	sqlite3_open(":memory:", &db);
	packed_register(db);
	sqlite3_exec(db, "CREATE TABLE t_block(id INTEGER PRIMARY KEY, parent INTEGER,"
		     " first_rowid INTEGER NOT NULL, rows INTEGER NOT NULL, data BLOB NOT NULL);"
		     "CREATE VIRTUAL TABLE t USING " PACKED_MODULE "(t_block, p INTEGER,"
		     " a TEXT, b INTEGER);"
		     "CREATE VIRTUAL TABLE r USING " PACKED_MODULE "(t_block, p INTEGER,"
		     " a TEXT, b REAL)", NULL, NULL, NULL);
	sqlite3_prepare_v2(db, "INSERT INTO t_block(parent, first_rowid, rows, data)"
			   " VALUES(1, ?1, ?2, ?3)", -1, &ins, NULL);
	sqlite3_prepare_v2(db, "SELECT rowid, p, a, b, length(a) FROM t", -1, &sel, NULL);
	sqlite3_prepare_v2(db, "SELECT rowid, p, a, b FROM r WHERE b > 0.5 OR b IS NULL",
			   -1, &selr, NULL);
	/* the constraints the cursor tests itself */
	sqlite3_prepare_v2(db, "SELECT count(*) FROM t WHERE p = 1 AND a >= 'a' AND b < 9"
			   " AND b IS NOT NULL", -1, &cond, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!db)
		setup();
	if (!size)
		return 0;
	sqlite3_exec(db, "DELETE FROM t_block", NULL, NULL, NULL);
	sqlite3_bind_int64(ins, 1, (int64_t)((uint64_t)data[0] << 56));
	sqlite3_bind_int(ins, 2, data[0]);
	sqlite3_bind_blob(ins, 3, data + 1, (int)(size - 1), SQLITE_STATIC);
	sqlite3_step(ins);
	sqlite3_reset(ins);
	while (sqlite3_step(sel) == SQLITE_ROW)
		;
	sqlite3_reset(sel);
	while (sqlite3_step(cond) == SQLITE_ROW)
		;
	sqlite3_reset(cond);
	while (sqlite3_step(selr) == SQLITE_ROW)
		;
	sqlite3_reset(selr);
	return 0;
}

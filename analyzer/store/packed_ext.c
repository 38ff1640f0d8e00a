/*
 * packed_ext.c -- the packed tables' module (packed.c) as a loadable
 * SQLite extension, so that the sqlite3 shell and Python's sqlite3 can
 * read an incident database's trace, alloc and sample tables (and the
 * samples' functions, samples_read.c):
 *
 *     sqlite3 incident.db -cmd '.load build/oomlens_packed'
 *     conn.enable_load_extension(True); conn.load_extension("build/oomlens_packed")
 *
 * packed_block.c, packed.c and packed_write.c are compiled here a second time, after
 * sqlite3ext.h, so that their calls go through the API table SQLite hands the extension (the
 * host's own SQLite, whatever it links), not through a second copy.
 * Not part of the oomlens binary.
 */
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1

#include "analyzer/store/packed_block.c"
#include "analyzer/store/packed.c"
#include "analyzer/store/packed_write.c"
#include "analyzer/store/samples_read.c"

#ifdef _WIN32
__declspec(dllexport)
#endif
int sqlite3_oomlenspacked_init(sqlite3 *db, char **err, const sqlite3_api_routines *api)
{
	(void)err;
	SQLITE_EXTENSION_INIT2(api);
	int rc = packed_register(db);

	return rc == SQLITE_OK ? samples_register(db) : rc;
}

/*
 * packed_ext.c -- the packed tables' module (packed.c) as a loadable
 * SQLite extension, so that the sqlite3 shell and Python's sqlite3 can
 * read an incident database's trace and alloc tables:
 *
 *     sqlite3 incident.db -cmd '.load build/oomlens_packed'
 *     conn.enable_load_extension(True); conn.load_extension("build/oomlens_packed")
 *
 * packed_block.c and packed.c are compiled here a second time, after
 * sqlite3ext.h, so that their calls go through the API table SQLite hands the extension (the
 * host's own SQLite, whatever it links), not through a second copy.
 * Not part of the oomlens binary.
 */
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1

#include "analyzer/store/packed_block.c"
#include "analyzer/store/packed.c"

#ifdef _WIN32
__declspec(dllexport)
#endif
int sqlite3_oomlenspacked_init(sqlite3 *db, char **err, const sqlite3_api_routines *api)
{
	(void)err;
	SQLITE_EXTENSION_INIT2(api);
	return packed_register(db);
}

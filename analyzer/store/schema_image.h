/*
 * schema_image.h -- the empty incident database, made once at build time.
 *
 * Creating the schema (about 170 tables and indexes) costs every run ten
 * million instructions of SQLite parsing and code generation: each
 * CREATE is parsed, run, and parsed again from sqlite_master. A database
 * just created holds nothing else, so the build makes one
 * (tools/schema_image.c, with the same timeline_open), and a run writes
 * its bytes into the new file's temporary instead; SQLite then parses
 * the schema once, as it does for any database it opens.
 *
 * The image is kept as its non-zero runs (the pages of empty tables are
 * mostly zeros): the file is sized first, then each run written at its
 * offset. The build's image (build/schema_image.c) is linked into the
 * oomlens executable only, which hands it to timeline_use_schema_image();
 * a program that does not (the unit tests) creates the schema as before.
 */
#ifndef OOMLENS_SCHEMA_IMAGE_H
#define OOMLENS_SCHEMA_IMAGE_H

#include <stddef.h>

/* bytes[0..len) of the image lie at offset; the rest of it is zeros */
struct schema_run {
	size_t offset, len;
	const unsigned char *bytes;
};

struct schema_image {
	size_t size;                   /* the file's length */
	size_t nruns;
	const struct schema_run *runs;
	int schema_version;            /* TIMELINE_SCHEMA_VERSION it was made at */
};

/* The build's image (build/schema_image.c, the oomlens executable only). */
extern const struct schema_image oomlens_schema_image;

/* From now on, a database created in a file (TL_CREATE, not :memory:)
 * starts as img; NULL goes back to creating the schema. An image of
 * another schema version is ignored. Not thread-safe: call it before
 * any timeline is opened. */
void timeline_use_schema_image(const struct schema_image *img);

#endif

/*
 * schema_image.c -- a build-time tool: creates an empty incident database
 * in memory with timeline_open() (every table of the schema, stamped
 * with its application id and version) and writes it as C source, the
 * struct schema_image the oomlens executable starts each new database
 * from (see analyzer/store/schema_image.h for why).
 *
 *   schema_image OUT.c
 *
 * Only the image's non-zero runs are written (zero gaps shorter than
 * GAP_MIN stay inside a run). Exit 0, or 1 with a message on stderr.
 */
#include "analyzer/store/schema_image.h"
#include "analyzer/store/timeline.h"
#include "lib/strbuf.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>

#define GAP_MIN 32   /* zeros it takes to end a run */

/* The end of the run of img[0..n) that starts at *at, a non-zero byte:
 * up to the last non-zero byte before GAP_MIN zeros or the end. */
static size_t run_end(const unsigned char *img, size_t n, size_t at)
{
	size_t end = at + 1, zeros = 0, i;

	for (i = at + 1; i < n && zeros < GAP_MIN; i++) {
		if (img[i]) {
			end = i + 1;
			zeros = 0;
		} else {
			zeros++;
		}
	}
	return end;
}

/* Write img[0..n) to f as the C source of oomlens_schema_image.
 * 0, or -1 when a write failed. */
static int emit(FILE *f, const unsigned char *img, size_t n)
{
	size_t i, end, k, runs = 0;

	fprintf(f, "/* Made by tools/schema_image.c at build time: the empty incident\n"
		   " * database (analyzer/store/schema_image.h). Do not edit. */\n"
		   "#include \"analyzer/store/schema_image.h\"\n\n");
	for (i = 0; i < n; i = end) {
		if (!img[i]) {
			end = i + 1;
			continue;
		}
		end = run_end(img, n, i);
		fprintf(f, "static const unsigned char run%zu[] = {", runs++);
		for (k = i; k < end; k++)
			fprintf(f, "%s%u,", (k - i) % 24 ? "" : "\n\t", img[k]);
		fprintf(f, "\n};\n");
	}
	fprintf(f, "\nstatic const struct schema_run runs[] = {\n");
	for (i = 0, runs = 0; i < n; i = end) {
		if (!img[i]) {
			end = i + 1;
			continue;
		}
		end = run_end(img, n, i);
		fprintf(f, "\t{ %zu, %zu, run%zu },\n", i, end - i, runs++);
	}
	fprintf(f, "};\n\nconst struct schema_image oomlens_schema_image = {\n"
		   "\t%zu, %zu, runs, %d\n};\n", n, runs, TIMELINE_SCHEMA_VERSION);
	return ferror(f) ? -1 : 0;
}

int main(int argc, char **argv)
{
	struct timeline tl;
	struct strbuf err = STRBUF_INIT;
	sqlite3_int64 n = 0;
	unsigned char *img;
	FILE *f;
	int rc = 1;

	if (argc != 2) {
		fprintf(stderr, "usage: schema_image OUT.c\n");
		return 2;
	}
	if (timeline_open(&tl, ":memory:", TL_CREATE, &err) < 0) {
		fprintf(stderr, "schema_image: %s\n", err.buf);
		strbuf_release(&err);
		return 1;
	}
	img = sqlite3_serialize(tl.db, "main", &n, 0);
	if (!img || n <= 0) {
		fprintf(stderr, "schema_image: cannot serialize: %s\n", sqlite3_errmsg(tl.db));
	} else if (!(f = fopen(argv[1], "w"))) {
		perror(argv[1]);
	} else {
		rc = emit(f, img, (size_t)n) < 0 ? 1 : 0;
		if (fclose(f) != 0)
			rc = 1;
		if (rc) {   /* no half image for the next build to take */
			fprintf(stderr, "schema_image: %s: cannot be written\n", argv[1]);
			remove(argv[1]);
		}
	}
	sqlite3_free(img);
	timeline_close(&tl);
	strbuf_release(&err);
	return rc;
}

/*
 * own_outputs.c -- oomlens's outputs by their marks; see own_outputs.h.
 *
 *   database   SQLite header with oomlens's application id (timeline.h)
 *   HTML       the generator meta tag in its head (lib/common.h)
 *   JSON       an object whose first key is "oomlens" (docs/json.md)
 *   Markdown   the report's first line, "## OOM incident: "
 *
 * The flat JSON Lines form of a snapshot (oomlens convert) is an input
 * format, not a report: it is read like the pickle it came from.
 */
#include "analyzer/ingest/own_outputs.h"
#include "analyzer/store/timeline.h"
#include "lib/common.h"

#include <string.h>

/* Skip blanks from p; returns the new position. */
static size_t skip_ws(const unsigned char *h, size_t n, size_t p)
{
	while (p < n && (h[p] == ' ' || h[p] == '\t' || h[p] == '\n' || h[p] == '\r'))
		p++;
	return p;
}

static int starts(const unsigned char *h, size_t n, size_t p, const char *s)
{
	size_t k = strlen(s);

	return n >= p + k && !memcmp(h + p, s, k);
}

/* {"oomlens": ...: the JSON report, whose first key is the version. */
static int json_report(const unsigned char *h, size_t n)
{
	size_t p = skip_ws(h, n, 0);

	if (!starts(h, n, p, "{"))
		return 0;
	p = skip_ws(h, n, p + 1);
	if (!starts(h, n, p, "\"oomlens\""))
		return 0;
	p = skip_ws(h, n, p + 9);
	return starts(h, n, p, ":");
}

const char *own_output_kind(const unsigned char *head, size_t n)
{
	size_t look = n < 4096 ? n : 4096;

	if (timeline_header_is_ours(head, n))
		return "an oomlens database";
	if (starts(head, n, 0, "<!DOCTYPE html>") &&
	    memmem(head, look, OOMLENS_HTML_GENERATOR, strlen(OOMLENS_HTML_GENERATOR)))
		return "an oomlens HTML report";
	if (json_report(head, n))
		return "an oomlens JSON report";
	if (starts(head, n, 0, "## OOM incident: "))
		return "an oomlens Markdown report";
	return NULL;
}

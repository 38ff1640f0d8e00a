/*
 * derive.c -- the list of derivations and the loop that runs them
 * (derive.h). A pass is added here, in the order it may be read.
 */
#include "analyzer/derive/derive.h"
#include "analyzer/store/timeline.h"
#include "lib/strbuf.h"

const struct derive_pass derive_passes[] = {
	{ "peak", "peak: each account's highest memory per measure, its headline", derive_peak },
	{ NULL, NULL, NULL }
};

int derive_incident(struct timeline *tl, struct strbuf *err)
{
	const struct derive_pass *p;
	struct strbuf why = STRBUF_INIT;

	for (p = derive_passes; p->name; p++) {
		strbuf_reset(&why);
		if (p->run(tl->db, &why) < 0) {
			if (err)
				strbuf_addf(err, "derive %s: %s", p->name, why.len ? why.buf : "failed");
			strbuf_release(&why);
			return -1;
		}
	}
	strbuf_release(&why);
	return 0;
}

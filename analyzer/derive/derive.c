/*
 * derive.c -- the list of derivations and the loop that runs them
 * (derive.h). A pass is added here, in the order it may be read.
 */
#include "analyzer/derive/derive.h"
#include "analyzer/derive/load.h"
#include "analyzer/derive/offload.h"
#include "analyzer/derive/oom.h"
#include "analyzer/derive/servwhatif.h"
#include "analyzer/store/timeline.h"
#include "lib/strbuf.h"

#include <string.h>

const struct derive_pass derive_passes[] = {
	/* first: the others read the OOM's moment (rl_oom_time) */
	{ "oom", "oom: one row per OOM or memory failure; id 1 is the OOM", derive_oom },
	{ "oom_fate", "oom_fate: whether the server served after each failure; a build tool killed",
	  derive_oom_fate },
	{ "oom_load", "oom_load: the training progress or the serving load at the OOM",
	  derive_load },
	{ "oom_progress", "oom_progress: how much work the program completed before each OOM",
	  derive_oom_progress },
	{ "offload_fit", "offload_fit: the room a llama.cpp/Ollama GPU plan left, the layers that fit",
	  derive_offload },
	{ "whatif", "whatif: the allocator trace replayed under other settings", derive_whatif },
	{ "ledger", "ledger: what filled each card and the host, line by line", derive_ledger },
	{ "peak", "peak: each account's highest memory per measure, its headline", derive_peak },
	/* after peak: it reads the headline rows */
	{ "profile", "profile: per account, headroom, growth, time to the limit", derive_profile },
	{ "serving_whatif", "serving_whatif: candidate serving settings under the recorded load",
	  derive_servwhatif },
	{ NULL, NULL, NULL }
};

int derive_one(struct timeline *tl, const char *name, struct strbuf *err)
{
	const struct derive_pass *p;

	for (p = derive_passes; p->name; p++)
		if (!strcmp(p->name, name)) {
			struct strbuf why = STRBUF_INIT;
			int r = p->run(tl->db, &why);
			if (r < 0 && err)
				strbuf_addf(err, "derive %s: %s", name, why.len ? why.buf : "failed");
			strbuf_release(&why);
			return r;
		}
	if (err)
		strbuf_addf(err, "derive: no pass named %s", name);
	return -1;
}

int derive_incident(struct timeline *tl, struct strbuf *err)
{
	const struct derive_pass *p;
	struct strbuf why = STRBUF_INIT;

	/* before every pass: a free paste's guessed unit checked against a RAM
	 * total another artifact states, its figures rescaled once (freeunit.c) */
	if (derive_freeunit(tl, &why) < 0) {
		if (err)
			strbuf_addf(err, "derive freeunit: %s", why.len ? why.buf : "failed");
		strbuf_release(&why);
		return -1;
	}
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

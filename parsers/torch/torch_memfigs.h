/*
 * torch_memfigs.h -- what torch.cuda.memory_summary() tables and
 * torch.cuda.memory_stats() dumps share: the caching allocator's
 * statistics at one moment, keyed as memory_stats keys them
 * ("allocated_bytes.all.current", "num_ooms"), stored as torch.* series
 * and one torch_memory_stats event (docs/schema.md "Diagnostic tools").
 */
#ifndef OOMLENS_TORCH_MEMFIGS_H
#define OOMLENS_TORCH_MEMFIGS_H

#include <jansson.h>
#include "parsers/common/sink.h"

struct tm_dump {
	json_t *stats;          /* key -> integer (owned by the caller) */
	json_t *resolution;     /* key -> bytes of the unit printed (tables), or NULL */
	json_t *extra;          /* more fields for the event (an OOM message), or NULL */
	const char *source;     /* "memory_summary" or "memory_stats" */
	const char *form;       /* how it was printed (docs/json.md) */
	int64_t device;         /* device index, OL_NULL when not stated */
	int64_t index;          /* 0-based: which dump of the artifact */
	int partial;            /* the excerpt starts or ends inside it */
	uint64_t line;          /* first line */
	struct ol_time t;       /* when it was taken; OL_CLOCK_NONE when not given */
};

/* Store one dump: a sample of each torch.* series it has a value for
 * (entity cuda:N, or "cuda" when the device is not stated) and the event.
 * Returns 1 when something was stored, 0 for an empty dump, -1 when the
 * sink failed. */
int tm_emit(struct sink *s, const struct tm_dump *d);

/* The series a memory_stats key feeds (NULL if none) and its unit. */
const char *tm_series_of(const char *key, const char **unit);

#endif

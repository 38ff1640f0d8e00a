/*
 * leakstmt.h -- a program's own statement that it leaked memory, read
 * from any line of a log: PyTorch's test-suite leak checks
 * (CudaMemoryLeakCheck in torch/testing/_internal/common_utils.py,
 * MpsMemoryLeakCheck in test/test_mps.py, as the real pastes of
 * pytorch/pytorch#84529 (2022-09) and pytorch/torchdynamo#1254 print
 * it, the f-string form of later copies the same words: "CUDA driver API
 * confirmed a leak in NAME! Caching allocator allocated memory was A and
 * is now reported as B on device D. CUDA driver allocated memory was C
 * and is now E.", the MPS one without "on device", and the warning "...
 * caching allocator reports a memory leak not verified by the driver API
 * in NAME! ..." with the same figures), and test_mps.py's TestMemoryLeak and a script's own "Detected N
 * bytes ... leak" / "leaked N MiB": a leak word with a byte figure beside
 * it. A pair of lines "<stem>before = N" / "<stem>after = M" (the
 * repro scripts' driver_before/driver_after) just above a statement
 * with no before/after figures of its own gives it those.
 *
 * Not a statement: "leaky" (leaky_relu), "no leak" / "not leak", a leak
 * word with no byte figure within LEAKSTMT_NEAR bytes (resource_tracker's
 * "leaked semaphore objects" counts objects, NCCL's "can leak resources"
 * advises), a figure of 0.
 *
 * Records: meta leak.stated.N = "kind|confirmed|device|alloc_before|
 * alloc_after|driver_before|driver_after|leaked|name": kind cuda_check,
 * mps_check or stated; confirmed 1 when the driver confirmed it (the
 * generic statement: 1, the program says it), 0 for the allocator-only
 * warning; figures in bytes, empty when not stated; name the test or "".
 * Judged by analyzer/rules/leak_stated.c.
 */
#ifndef OOMLENS_LEAKSTMT_H
#define OOMLENS_LEAKSTMT_H

#include <stddef.h>
#include "parsers/common/sink.h"

#define LEAKSTMT_MAX 4      /* statements kept a file: the first ones */
#define LEAKSTMT_NEAR 48    /* a generic statement's figure within this of its word */

struct leak_stated {
	char said_by[12];       /* cuda_check, mps_check, stated */
	int confirmed;
	int device;             /* -1 not stated */
	double alloc_before, alloc_after, driver_before, driver_after, leaked; /* NAN none */
	char name[96];
};

struct leakstmt_set {
	int n;
	struct leak_stated s[LEAKSTMT_MAX];
	/* the last "<stem>before" line's figure, for the pair */
	char stem[24];
	double before;
	int before_set;
	double after;           /* its "<stem>after" line's figure, NAN none */
	unsigned long long pair_line, line;
};

void leakstmt_init(struct leakstmt_set *m);

/* One line l (n bytes) of a statement, into *out: 1 a statement, 0 none. */
int leakstmt_line(const char *l, size_t n, struct leak_stated *out);

/* Take one line of a log (cheap when it has no "eak"). */
void leakstmt_take(struct leakstmt_set *m, const char *l, size_t n);

/* Store the statements as meta leak.stated.N. Returns the records
 * stored, or -1 when the sink failed. */
int leakstmt_finish(struct leakstmt_set *m, struct sink *s);

/* Decode a meta leak.stated.N value into *out; 0, or -1 not that shape. */
int leakstmt_decode(const char *val, struct leak_stated *out);

#endif

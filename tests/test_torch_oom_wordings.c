/*
 * test_torch_oom_wordings.c -- PyTorch's CUDA OOM message, one message per
 * wording it has had (1.0 to 2.4+), every size field read from it, the
 * advice it gives, what is only a mention of it, its forms over lines and
 * a file holding the message alone. Split from test_server_log.c.
 */
#include "testutil.h"
#include "analyzer/ingest/formats.h"
#include "lib/input.h"
#include "lib/timeutil.h"
#include "parsers/torch/torch_oom_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MiB 1048576LL
#define GiB 1073741824LL


static int64_t ev_int(struct timeline *tl, const char *kind, const char *field)
{
	return t_int(tl, "SELECT json_extract(data, '$.%s') FROM event WHERE kind = '%s'"
		     " ORDER BY id LIMIT 1", field, kind);
}

/* ---- PyTorch's OOM message, one per wording ---- */

#define B(x, unit) ((int64_t)((x) * (double)(unit) + 0.5))
#define NUL OL_NULL

/* One message of each wording, and every size field read from it. */
static const struct wording_case {
	const char *wording, *message;
	int64_t device, req, total, fre, allowed, inuse, alloc, resv, unalloc, pools;
} wording_cases[] = {
	{ "old_cached",   /* 1.0 - 1.3; cached < allocated: no unallocated part */
	  "RuntimeError: CUDA out of memory. Tried to allocate 26.00 MiB (GPU 0; 1024.00 MiB"
	  " total capacity; 435.61 MiB already allocated; 24.17 MiB free; 26.39 MiB cached)",
	  0, 26 * MiB, 1024 * MiB, B(24.17, MiB), NUL, NUL, B(435.61, MiB), B(26.39, MiB),
	  NUL, NUL },
	{ "reserved_in_total",   /* 1.4 - 2.0, with a memory fraction set */
	  "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 128.00 MiB (GPU 2;"
	  " 15.77 GiB total capacity; 15.37 GiB already allocated; 13.62 MiB free; 15.77 GiB"
	  " allowed; 15.40 GiB reserved in total by PyTorch) If reserved memory is >> allocated"
	  " memory try setting max_split_size_mb to avoid fragmentation.",
	  2, 128 * MiB, B(15.77, GiB), B(13.62, MiB), B(15.77, GiB), NUL, B(15.37, GiB),
	  B(15.40, GiB), B(15.40, GiB) - B(15.37, GiB), NUL },
	{ "capacty_typo",   /* 2.1 */
	  "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 138.00 MiB. GPU 0"
	  " has a total capacty of 15.90 GiB of which 8.44 MiB is free. Process 1246069 has"
	  " 577.00 MiB memory in use. Including non-PyTorch memory, this process has 15.32 GiB"
	  " memory in use. Of the allocated memory 14.12 GiB is allocated by PyTorch, and 410.41"
	  " MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is"
	  " large try setting max_split_size_mb to avoid fragmentation.  See documentation for"
	  " Memory Management and PYTORCH_CUDA_ALLOC_CONF",
	  0, 138 * MiB, B(15.90, GiB), B(8.44, MiB), NUL, B(15.32, GiB), B(14.12, GiB),
	  B(14.12, GiB) + B(410.41, MiB), B(410.41, MiB), NUL },
	{ "total_capacity_of_which",   /* 2.2+, from 2.4 with private pools */
	  "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 252.00 MiB. GPU 1 has a"
	  " total capacity of 10.57 GiB of which 163.12 MiB is free. Process 2073789 has 10.41"
	  " GiB memory in use. Of the allocated memory 9.67 GiB is allocated by PyTorch, with"
	  " 299.88 MiB allocated in private pools (e.g., CUDA Graphs), and 26.44 MiB is reserved"
	  " by PyTorch but unallocated. If reserved but unallocated memory is large try setting"
	  " PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.",
	  1, 252 * MiB, B(10.57, GiB), B(163.12, MiB), NUL, NUL, B(9.67, GiB),
	  B(9.67, GiB) + B(26.44, MiB), B(26.44, MiB), B(299.88, MiB) },
	{ "total_capacity_of_which",   /* 2.2+, a fraction set: "C allowed; " (c-pytorch-kaggle-t4) */
	  "CUDA out of memory. Tried to allocate 1008.00 MiB. GPU 0 has a total capacity of 14.74 GiB"
	  " of which 7.43 GiB is free. 7.37 GiB allowed; Of the allocated memory 7.01 GiB is allocated"
	  " by PyTorch, and 146.57 MiB is reserved by PyTorch but unallocated. PYTORCH_CUDA_ALLOC_CONF",
	  0, 1008 * MiB, B(14.74, GiB), B(7.43, GiB), B(7.37, GiB), NUL, B(7.01, GiB),
	  B(7.01, GiB) + B(146.57, MiB), B(146.57, MiB), NUL },
	{ "would_exceed_allowed",   /* its lines joined as server_join.c joins them */
	  "torch.cuda.OutOfMemoryError: Allocation on device 3 would exceed allowed memory. (out"
	  " of memory) Currently allocated     : 6.89 GiB Requested               : 320.00 MiB"
	  " Device limit            : 23.69 GiB Free (according to CUDA): 2.94 MiB PyTorch limit"
	  " (set by user-supplied memory fraction)                         : 12.00 GiB",
	  3, 320 * MiB, B(23.69, GiB), B(2.94, MiB), 12 * GiB, NUL, B(6.89, GiB), NUL, NUL, NUL },
	{ "would_exceed_allowed",   /* no fraction: SIZE_MAX, past 64 bits, is null */
	  "OutOfMemoryError: Allocation on device 0 would exceed allowed memory. (out of memory)"
	  " Currently allocated : 12.20 GiB Requested : 1.88 GiB Device limit : 16.00 GiB Free"
	  " (according to CUDA): 0 bytes PyTorch limit (set by user-supplied memory fraction) :"
	  " 17179869184.00 GiB",
	  0, B(1.88, GiB), 16 * GiB, 0, NUL, NUL, B(12.20, GiB), NUL, NUL, NUL },
};

/* Field of torch_oom_fields()'s object, OL_NULL when null or absent. */
static int64_t field(json_t *d, const char *key)
{
	json_t *v = json_object_get(d, key);
	return json_is_integer(v) ? (int64_t)json_integer_value(v) : OL_NULL;
}

static void torch_oom_wordings(void **state)
{
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(wording_cases) / sizeof(wording_cases[0]); i++) {
		const struct wording_case *c = &wording_cases[i];
		size_t n = strlen(c->message);
		char summary[256];
		int64_t req;
		json_t *d = torch_oom_fields(c->message, n, &req, summary, sizeof(summary));
		assert_non_null(d);
		assert_true(torch_oom_text(c->message, n) && torch_oom_start(c->message, n));
		assert_true(torch_oom_message(c->message, n) && torch_oom_complete(c->message, n));
		assert_string_equal(json_string_value(json_object_get(d, "wording")), c->wording);
		assert_int_equal(req, c->req);
		assert_int_equal(field(d, "requested_bytes"), c->req);
		assert_int_equal(field(d, "device"), c->device);
		assert_int_equal(field(d, "total_bytes"), c->total);
		assert_int_equal(field(d, "free_bytes"), c->fre);
		assert_int_equal(field(d, "allowed_bytes"), c->allowed);
		assert_int_equal(field(d, "process_in_use_bytes"), c->inuse);
		assert_int_equal(field(d, "allocated_bytes"), c->alloc);
		assert_int_equal(field(d, "reserved_bytes"), c->resv);
		assert_int_equal(field(d, "reserved_unallocated_bytes"), c->unalloc);
		assert_int_equal(field(d, "private_pools_bytes"), c->pools);
		json_decref(d);
	}
}

/* The other processes on the card, and the advice the message gives. */
static void torch_oom_processes_and_advice(void **state)
{
	const char *m = wording_cases[2].message;
	char summary[256];
	int64_t req;
	json_t *d = torch_oom_fields(m, strlen(m), &req, summary, sizeof(summary)), *p;
	(void)state;
	p = json_object_get(d, "processes");
	assert_int_equal(json_array_size(p), 1);
	assert_int_equal(field(json_array_get(p, 0), "pid"), 1246069);
	assert_int_equal(field(json_array_get(p, 0), "bytes"), 577 * MiB);
	assert_true(json_is_true(json_object_get(d, "suggests_max_split_size")));
	assert_true(json_is_false(json_object_get(d, "suggests_expandable_segments")));
	assert_string_equal(summary, "CUDA out of memory on GPU 0: tried to allocate 138.0 MiB"
			    " (8.4 MiB free)");
	json_decref(d);
	m = wording_cases[0].message;
	d = torch_oom_fields(m, strlen(m), &req, summary, sizeof(summary));
	assert_int_equal(json_array_size(json_object_get(d, "processes")), 0);
	assert_null(json_object_get(d, "private_pools_bytes"));
	json_decref(d);
}

/* What is not (yet) the message: an engine's own words, a message cut
 * before its end, one a following line must complete. */
static void torch_oom_mentions_and_parts(void **state)
{
	static const char warmup[] = "RuntimeError: CUDA out of memory occurred when warming up"
				     " sampler with 256 dummy requests.";
	static const char head[] = "torch.OutOfMemoryError: CUDA out of memory.";
	static const char cut[] = "OutOfMemoryError: Allocation on device 0 would exceed allowed"
				  " memory. (out of memory) Currently allocated : 1.00 GiB";
	(void)state;
	assert_true(torch_oom_text(warmup, strlen(warmup)));
	assert_false(torch_oom_start(warmup, strlen(warmup)));
	assert_false(torch_oom_message(warmup, strlen(warmup)));
	assert_true(torch_oom_start(head, strlen(head)));
	assert_false(torch_oom_message(head, strlen(head)));
	assert_false(torch_oom_complete(head, strlen(head)));
	assert_true(torch_oom_message(cut, strlen(cut)));
	assert_false(torch_oom_complete(cut, strlen(cut)));
}

/* Over lines: the allowed-memory form as PyTorch prints it, a 2.4
 * message a user wrapped, each in a traceback and alone; a line with a
 * wrapper of its own is not the message's. */
static void torch_oom_over_lines(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_int_equal(t_parse_mem(tl, "server_log", "limit",
		"Traceback (most recent call last):\n"
		"  File \"run.py\", line 3, in <module>\n"
		"torch.cuda.OutOfMemoryError: Allocation on device 0 would exceed allowed memory."
		" (out of memory)\n"
		"Currently allocated     : 6.89 GiB\n"
		"Requested               : 320.00 MiB\n"
		"Device limit            : 23.69 GiB\n"
		"Free (according to CUDA): 2.94 MiB\n"
		"PyTorch limit (set by user-supplied memory fraction)\n"
		"                        : 12.00 GiB\n"
		"Prompt executed in 57.84 seconds\n", 0), 2);   /* the OOM, PyTorch's engine row */
	assert_int_equal(ev_int(tl, "torch_oom", "requested_bytes"), 320 * MiB);
	assert_int_equal(ev_int(tl, "torch_oom", "allowed_bytes"), 12 * GiB);
	assert_true(t_int(tl, "SELECT json_extract(data, '$.traceback') LIKE"
			  " '%%Device limit            : 23.69 GiB\n%%' FROM event") == 1);
	assert_true(t_int(tl, "SELECT json_extract(data, '$.traceback') NOT LIKE"
			  " '%%Prompt executed%%' FROM event") == 1);
	t_close(tl);
	tl = t_open();
	tl->opts.year = 2025;
	assert_int_equal(t_parse_mem(tl, "server_log", "wrapped",
		"torch.OutOfMemoryError: CUDA out of memory.\n"
		"Tried to allocate 252.00 MiB. GPU 0 has a total capacity of 10.57 GiB of which"
		" 163.12 MiB is free.\n"
		"Of the allocated memory 9.67 GiB is allocated by PyTorch,\n"
		"and 26.44 MiB is reserved by PyTorch but unallocated. If reserved but\n"
		"unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=\n"
		"INFO 11-29 18:22:40 [loggers.py:116] Avg prompt throughput: 1.0 tokens/s\n", 0), 3);
	assert_int_equal(ev_int(tl, "torch_oom", "reserved_unallocated_bytes"), B(26.44, MiB));
	assert_int_equal(t_int(tl, "SELECT line FROM event"), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM sample"), 1);
	t_close(tl);
	/* cut short: the next program's line, or a record of the engine's
	 * own (another prefix), is not joined; the same prefix is */
	tl = t_open();
	tl->opts.year = 2025;
	assert_int_equal(t_parse_mem(tl, "server_log", "cut",
		"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 86.00 MiB. GPU 0 has"
		" a total capacity of 23.64 GiB of which 264.00 MiB is free. Including\n"
		"Exiting main process due to a failure upon worker execution.\n"
		"(Worker pid=7) ERROR 11-29 18:22:40 [core.py:1] torch.OutOfMemoryError: CUDA out of"
		" memory. Tried to allocate 1.00 GiB. GPU 1 has a total capacity of 8.00 GiB\n"
		"(Worker pid=7) ERROR 11-29 18:22:40 [core.py:1] of which 2.00 MiB is free.\n"
		"(Worker pid=7) ERROR 11-29 18:22:41 [core.py:1] Process 9 has 1.00 GiB memory in use.\n",
		0), 4);   /* two OOMs, the engine rows of the main process and the worker */
	assert_true(t_int(tl, "SELECT json_extract(data, '$.exception') NOT LIKE '%%Exiting%%'"
			  " FROM event ORDER BY id LIMIT 1") == 1);
	assert_int_equal(t_int(tl, "SELECT json_extract(data, '$.free_bytes') FROM event"
			       " ORDER BY id LIMIT 1 OFFSET 1"), 2 * MiB);
	assert_int_equal(t_int(tl, "SELECT json_array_length(data, '$.processes') FROM event"
			       " ORDER BY id LIMIT 1 OFFSET 1"), 0);
	assert_int_equal(t_int(tl, "SELECT pid FROM event ORDER BY id LIMIT 1 OFFSET 1"), 7);
	t_close(tl);
}

/* A file holding only PyTorch's message is a server log, in each of its
 * forms that opens with its own words. */
static void lone_messages_detected(void **state)
{
	static const char *const files[] = {
		"tests/data/real/gpu_host/torch-oom-private-pools-cuda-graphs-wrapped.log",
		"tests/data/real/gpu_host/torch-oom-would-exceed-allowed-multiline.log",
		"tests/data/real/gpu_host/torch-oom-would-exceed-allowed-oneline.log",
		"tests/data/real/gpu_host/torch-oom-cached-kib.log",
		/* an exception pasted in a code span mid-sentence */
		"tests/data/real/any_stack/b-mlx-lmstudio-engine-resource-limit-499000-prediction-stream.log",
	};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct input in;
		const struct format *f;
		assert_int_equal(input_open(&in, t_src(files[i]), NULL), 0);
		f = detect_format(&in);
		if (!f || strcmp(f->kind, "server_log"))
			fail_msg("%s detected as %s", files[i], f ? f->kind : "nothing");
		input_close(&in);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(torch_oom_wordings),
		cmocka_unit_test(torch_oom_processes_and_advice),
		cmocka_unit_test(torch_oom_mentions_and_parts),
		cmocka_unit_test(torch_oom_over_lines),
		cmocka_unit_test(lone_messages_detected),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

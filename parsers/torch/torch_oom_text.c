/*
 * torch_oom_text.c -- the fields of PyTorch's "CUDA out of memory" message,
 * in every wording it has had (torch_oom_text.h lists them). Each field is
 * looked for by its label; a field the message does not carry stays null.
 * The wordings are tried oldest first: the parenthesised "(GPU 0; ...)"
 * list, then the 2.1+ sentences, then the allowed-memory form.
 */
#include "parsers/torch/torch_oom_text.h"
#include "parsers/common/seriesutil.h"
#include "parsers/common/sink.h"

#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* ---- finding the labels ---- */

/* The size printed right after label, or OL_NULL. */
static int64_t size_after(const char *m, size_t n, const char *label)
{
	const char *p = mem_find(m, n, label);
	size_t len = strlen(label);

	if (!p)
		return OL_NULL;
	return parse_size(p + len, n - (size_t)(p + len - m), NULL);
}

/* The size after the first ':' that follows label within 80 bytes
 * ("Requested               : 320.00 MiB"), or OL_NULL. */
static int64_t size_after_colon(const char *m, size_t n, const char *label)
{
	const char *p = mem_find(m, n, label), *c;

	if (!p)
		return OL_NULL;
	c = memchr(p, ':', (size_t)(m + n - p));
	if (!c || c - p > 80)
		return OL_NULL;
	return parse_size(c + 1, (size_t)(m + n - c - 1), NULL);
}

/* The decimal number at [p, end), or -1 when p holds no digit. *stop is
 * set past its digits. Bounded: never reads end. */
static int64_t number_at(const char *p, const char *end, const char **stop)
{
	int64_t v = 0;
	const char *q;

	for (q = p; q < end && isdigit((unsigned char)*q) && v < INT64_MAX / 10 - 9; q++)
		v = v * 10 + (*q - '0');
	*stop = q;
	return q > p ? v : -1;
}

/* 1 if [p, end) begins with word. */
static int word_at(const char *p, const char *end, const char *word)
{
	size_t len = strlen(word);
	return (size_t)(end - p) >= len && !memcmp(p, word, len);
}

/* "(GPU 0;", ". GPU 0 has", "GPU 0", "on device 0": the card's index.
 * Ascend's torch_npu keeps PyTorch 1.x's list for its NPUs: "NPU out of
 * memory. Tried to allocate 72.00 MiB (NPU 0; 61.27 GiB total capacity;
 * 56.05 GiB already allocated; 56.05 GiB current active; 5.04 MiB free;
 * 58.39 GiB reserved in total by PyTorch)" (vLLM-Ascend and SGLang on
 * Ascend, 2025-2026 threads under tests/data/real/any_stack). */
static int64_t device_of(const char *m, size_t n)
{
	static const char *const labels[] = { "(GPU ", "(NPU ", ". GPU ", "GPU ", "on device ", NULL };
	const char *p, *stop;
	int64_t d;
	int i;

	for (i = 0; labels[i]; i++)
		if ((p = mem_find(m, n, labels[i])) &&
		    (d = number_at(p + strlen(labels[i]), m + n, &stop)) >= 0)
			return d;
	return OL_NULL;
}

/* ---- the wordings ---- */

/* Every line of a server log is asked whether it is the message: one
 * search for what all its names share ("...emory") answers most. */
int torch_oom_text(const char *m, size_t n)
{
	return mem_find(m, n, "emory") &&
	       (mem_find(m, n, "CUDA out of memory") || mem_find(m, n, "OutOfMemoryError") ||
		mem_find(m, n, "HIP out of memory") ||   /* the same message on ROCm */
		mem_find(m, n, "would exceed allowed memory"));
}

int torch_oom_message(const char *m, size_t n)
{
	return torch_oom_text(m, n) && (mem_find(m, n, "Tried to allocate") ||
					mem_find(m, n, "would exceed allowed memory"));
}

int torch_oom_start(const char *m, size_t n)
{
	return torch_oom_text(m, n) && (mem_find(m, n, "Tried to allocate") ||
					mem_find(m, n, "would exceed allowed memory") ||
					mem_find(m, n, "CUDA out of memory."));
}

int torch_oom_piece(const char *m, size_t n)
{
	static const char *const words[] = {
		"memory", "Memory", "PyTorch", "allocat", "reserved", "free", "GPU", "CUDA",
		"Process", "capac", "fragmentation", "PYTORCH_CUDA_ALLOC_CONF",
		"Requested", "limit", "documentation", NULL
	};
	size_t i;

	for (i = 0; i < n && m[i] == ' '; i++)
		;
	if (i < n && m[i] == ':')
		return 1;
	for (i = 0; words[i]; i++)
		if (mem_find(m, n, words[i]))
			return 1;
	return 0;
}

/* 1 if a number follows the ':' after label ("PyTorch limit (...) : 12"). */
static int number_after_colon(const char *m, size_t n, const char *label)
{
	const char *p = mem_find(m, n, label), *c, *stop;

	if (!p || !(c = memchr(p, ':', (size_t)(m + n - p))) || c - p > 80)
		return 0;
	for (c++; c < m + n && *c == ' '; c++)
		;
	return number_at(c, m + n, &stop) >= 0;
}

int torch_oom_complete(const char *m, size_t n)
{
	const char *p;

	if (mem_find(m, n, "would exceed allowed memory"))
		return (p = mem_find(m, n, "PyTorch limit")) &&
		       number_after_colon(p, (size_t)(m + n - p), ")");
	return mem_find(m, n, "PYTORCH_CUDA_ALLOC_CONF") || mem_find(m, n, "by PyTorch)") ||
	       mem_find(m, n, "cached)");
}

struct oom_fields {
	int64_t device, req, total, fre, allowed, inuse, alloc, resv, unalloc, pools;
	const char *wording;
};

/* The fields of the old list by their label: where each goes, and the
 * wording its label shows. */
static const struct { const char *label; size_t field; const char *wording; } old_labels[] = {
	{ "total capacity", offsetof(struct oom_fields, total), NULL },
	{ "already allocated", offsetof(struct oom_fields, alloc), NULL },
	{ "free", offsetof(struct oom_fields, fre), NULL },
	{ "allowed", offsetof(struct oom_fields, allowed), NULL },
	{ "reserved in total", offsetof(struct oom_fields, resv), "reserved_in_total" },
	{ "cached", offsetof(struct oom_fields, resv), "old_cached" },
};

/* One "SIZE label" field of the old list, at [q, e). 1 if it was one. */
static int old_field(const char *q, const char *e, struct oom_fields *f)
{
	size_t u, i;
	int64_t b = parse_size(q, (size_t)(e - q), &u);

	if (b == OL_NULL)
		return 0;
	for (q += u; q < e && *q == ' '; q++)
		;
	for (i = 0; i < sizeof(old_labels) / sizeof(old_labels[0]); i++)
		if (word_at(q, e, old_labels[i].label)) {
			*(int64_t *)((char *)f + old_labels[i].field) = b;
			if (old_labels[i].wording)
				f->wording = old_labels[i].wording;
			return 1;
		}
	return 0;
}

/* Old forms: "(GPU 0; 15.77 GiB total capacity; 15.37 GiB already
 * allocated; 13.62 MiB free; 15.77 GiB allowed; 15.40 GiB reserved in
 * total by PyTorch)" or "...; 9.72 GiB cached)"; read up to the end of
 * the text when it was cut before the ')'. 1 if any field was there. */
static int old_form(const char *m, size_t n, struct oom_fields *f)
{
	const char *p = mem_find(m, n, "(GPU "), *e, *q;
	int found = 0;

	if (!p)
		p = mem_find(m, n, "(NPU ");   /* torch_npu's copy of the list */
	if (!p)
		return 0;
	if (!(e = memchr(p, ')', (size_t)(m + n - p))))
		e = m + n;
	for (q = p; (q = memchr(q, ';', (size_t)(e - q))); )
		found |= old_field(++q, e, f);
	if (f->resv != OL_NULL && f->alloc != OL_NULL && f->resv >= f->alloc)
		f->unalloc = f->resv - f->alloc;
	return found;
}

/* "..., and U is reserved by PyTorch but unallocated": U, found back from
 * its label (the message may be cut right after "is reserved by"). */
static int64_t unallocated(const char *m, size_t n)
{
	const char *p = mem_find(m, n, " is reserved by"), *a;

	if (!p)
		return OL_NULL;
	for (a = p; a > m && p - a < 48 && !word_at(a, p, "and "); a--)
		;
	if (!word_at(a, p, "and "))
		return OL_NULL;
	return parse_size(a + 4, (size_t)(p - a - 4), NULL);
}

/* 2.1+: the per-process cap, "... Process N has Z memory in use. C
 * allowed; Of the allocated memory ...": PyTorch prints allowed_info,
 * format_size(allowed_memory_maximum) + " allowed; ", between the
 * processes and the allocated memory when set_per_process_memory_fraction
 * was called (c10/cuda/CUDACachingAllocator.cpp@v2.1.0 ... @v2.6.0
 * DeviceCachingAllocator::malloc). The size runs back from the label to
 * the sentence's start (". "), at most 32 bytes. OL_NULL when absent. */
static int64_t allowed_new(const char *m, size_t n)
{
	const char *p = mem_find(m, n, " allowed; "), *a;

	if (!p)
		return OL_NULL;
	for (a = p; a > m + 1 && p - a < 32 && !(a[-1] == ' ' && a[-2] == '.'); a--)
		;
	if (a <= m + 1 || p - a >= 32)
		return OL_NULL;
	return parse_size(a, (size_t)(p - a), NULL);
}

/* 2.1+: "GPU 0 has a total capacty of X of which Y is free. ... Of the
 * allocated memory A is allocated by PyTorch, [with P allocated in private
 * pools (e.g., CUDA Graphs),] and U is reserved by PyTorch but unallocated." */
static void new_form(const char *m, size_t n, struct oom_fields *f)
{
	const char *p, *e;

	if ((p = mem_find(m, n, "total capac")) && (e = mem_find(p, (size_t)(m + n - p), " of ")) &&
	    e - p < 20) {
		f->total = parse_size(e + 4, (size_t)(m + n - e - 4), NULL);
		f->wording = word_at(p, e, "total capacty") ? "capacty_typo" : "total_capacity_of_which";
	}
	if (f->total == OL_NULL)
		return;
	f->fre = size_after(m, n, "of which ");
	f->inuse = size_after(m, n, "this process has ");
	if (f->allowed == OL_NULL)
		f->allowed = allowed_new(m, n);
	f->alloc = size_after(m, n, "Of the allocated memory ");
	f->unalloc = unallocated(m, n);
	if ((p = mem_find(m, n, "allocated in private pools")) &&
	    (e = mem_find(m, (size_t)(p - m), ", with ")))
		f->pools = parse_size(e + 7, (size_t)(p - e - 7), NULL);
	if (f->alloc != OL_NULL && f->unalloc != OL_NULL)
		f->resv = f->alloc + f->unalloc;
}

/* "Allocation on device 0 would exceed allowed memory. (out of memory)"
 * with its "Label : size" lines (joined into m). */
static void limit_form(const char *m, size_t n, struct oom_fields *f)
{
	const char *p;

	if (!mem_find(m, n, "would exceed allowed memory"))
		return;
	f->wording = "would_exceed_allowed";
	f->alloc = size_after_colon(m, n, "Currently allocated");
	f->req = size_after_colon(m, n, "Requested");
	f->total = size_after_colon(m, n, "Device limit");
	if ((p = mem_find(m, n, "Free (according to CUDA)")))
		f->fre = size_after_colon(p, (size_t)(m + n - p), ")");
	if ((p = mem_find(m, n, "PyTorch limit")))
		f->allowed = size_after_colon(p, (size_t)(m + n - p), ")");
}

/* "Process 1246069 has 577.00 MiB memory in use" (2.1+): every process on
 * the card the driver listed, but this one ("this process has"). NULL
 * when out of memory. */
static json_t *processes(const char *m, size_t n)
{
	json_t *procs = json_array();
	const char *p, *end = m + n, *stop;
	int64_t pid;

	for (p = m; procs && (p = memmem(p, (size_t)(end - p), "Process ", 8)); p += 8) {
		json_t *o;
		if ((pid = number_at(p + 8, end, &stop)) < 0 || !word_at(stop, end, " has "))
			continue;
		o = json_object();
		json_object_set_new(o, "pid", json_integer(pid));
		json_object_set_new(o, "bytes", ol_json_int(parse_size(stop + 5,
					(size_t)(end - stop - 5), NULL)));
		json_array_append_new(procs, o);
	}
	return procs;
}

/* ---- the event's data ---- */

/* The runtime the message names: "HIP out of memory" (PyTorch on ROCm),
 * "NPU out of memory" (torch_npu), "XPU out of memory" (PyTorch on Intel
 * GPUs); else CUDA. */
static const char *accelerator(const char *m, size_t n)
{
	if (mem_find(m, n, "HIP out of memory"))
		return "HIP";
	if (mem_find(m, n, "NPU out of memory"))
		return "NPU";
	if (mem_find(m, n, "XPU out of memory"))
		return "XPU";
	return "CUDA";
}

static double mib(int64_t b)
{
	return b == OL_NULL ? -1.0 : (double)b / 1048576.0;
}

/* f as JSON fields of d (docs/json.md "torch_oom"). */
static void put_fields(json_t *d, const struct oom_fields *f)
{
	json_object_set_new(d, "device", ol_json_int(f->device));
	json_object_set_new(d, "requested_bytes", ol_json_int(f->req));
	json_object_set_new(d, "total_bytes", ol_json_int(f->total));
	json_object_set_new(d, "free_bytes", ol_json_int(f->fre));
	json_object_set_new(d, "allowed_bytes", ol_json_int(f->allowed));
	json_object_set_new(d, "process_in_use_bytes", ol_json_int(f->inuse));
	json_object_set_new(d, "allocated_bytes", ol_json_int(f->alloc));
	json_object_set_new(d, "reserved_bytes", ol_json_int(f->resv));
	json_object_set_new(d, "reserved_unallocated_bytes", ol_json_int(f->unalloc));
	if (f->pools != OL_NULL)
		json_object_set_new(d, "private_pools_bytes", ol_json_int(f->pools));
	json_object_set_new(d, "wording", f->wording ? json_string(f->wording) : json_null());
}

json_t *torch_oom_fields(const char *m, size_t n, int64_t *requested, char *summary, size_t scap)
{
	struct oom_fields f = { OL_NULL, OL_NULL, OL_NULL, OL_NULL, OL_NULL, OL_NULL,
				OL_NULL, OL_NULL, OL_NULL, OL_NULL, NULL };
	json_t *d = json_object();
	char dev[32] = "?";

	f.device = device_of(m, n);
	f.req = size_after(m, n, "Tried to allocate ");
	if (!old_form(m, n, &f))
		new_form(m, n, &f);
	if (!f.wording)
		limit_form(m, n, &f);
	*requested = f.req;
	if (f.device != OL_NULL)
		snprintf(dev, sizeof(dev), "%lld", (long long)f.device);
	/* the accelerator the message names: an NPU's or a ROCm card's OOM
	 * is not told as CUDA's */
	snprintf(summary, scap, "%s out of memory on %s %s: tried to allocate %.1f MiB"
		 " (%.1f MiB free)", accelerator(m, n), mem_find(m, n, "NPU out of memory") ?
		 "NPU" : "GPU", dev, mib(f.req), mib(f.fre));
	if (!d)
		return NULL;
	put_fields(d, &f);
	json_object_set_new(d, "processes", processes(m, n));
	json_object_set_new(d, "suggests_expandable_segments",
			    json_boolean(mem_find(m, n, "expandable_segments") != NULL));
	json_object_set_new(d, "suggests_max_split_size",
			    json_boolean(mem_find(m, n, "max_split_size_mb") != NULL));
	return d;
}

/*
 * kernel_oom_meminfo.c -- the memory block of a kernel OOM report (see
 * kernel_oom_report.h for the files around it).
 *
 * A global OOM prints show_mem(): "Mem-Info:" and its "key:value" page
 * counts (often folded over several lines), a "Node N ..." line per node,
 * per-zone lines with "present:" kB, the buddy lists "Node 0 DMA: 1*4kB
 * (U) ...", the swap totals and "N pages RAM". A memcg OOM prints the
 * cgroup's usage, limit and failcnt instead. What is read here feeds the
 * oom_invoked event: free/anon/file/slab/shmem, swap, RAM, the online
 * nodes (for the constraint) and the page size (the buddy list's smallest
 * order, or present kB over RAM pages).
 */
#include "parsers/kernel/kernel_oom_report.h"

#include <stddef.h>
#include <string.h>

#include "parsers/kernel/kernel_scan.h"

/* "memory: usage 524288kB, limit 524288kB, failcnt 123456" and friends. */
int m_memcg_counter(struct kparse *kp, const char *p, const char *e)
{
	static const char *keys[4] = { "memory: usage ", "memory+swap: usage ", "kmem: usage ",
				       "swap: usage " };
	int i;

	for (i = 0; i < 4; i++)
		if (starts(p, e, keys[i])) {
			struct oomev *ev = &kp->ev;
			ev->mc[i][0] = key_int(p, e, "usage ");
			ev->mc[i][1] = key_int(p, e, "limit ");
			ev->mc[i][2] = key_int(p, e, "failcnt ");
			ev->memcg_hint = ev->oom_evidence = 1;
			return 1;
		}
	return 0;
}

/* Mem-Info summary "key:value" tokens (values in pages, no unit) into ev;
 * keys oomlens does not use are passed over. */
static void meminfo_tokens(struct oomev *ev, const char *p, const char *e)
{
	static const struct { const char *k; size_t off; } keys[] = {
		{ "free", offsetof(struct oomev, mi_free) },
		{ "active_anon", offsetof(struct oomev, mi_aa) },
		{ "inactive_anon", offsetof(struct oomev, mi_ia) },
		{ "active_file", offsetof(struct oomev, mi_af) },
		{ "inactive_file", offsetof(struct oomev, mi_if) },
		{ "slab_reclaimable", offsetof(struct oomev, mi_sr) },
		{ "slab_unreclaimable", offsetof(struct oomev, mi_su) },
		{ "shmem", offsetof(struct oomev, mi_shmem) },
	};
	while (p < e) {
		const char *k = skip_ws(p, e), *c = k, *v;
		int64_t x;
		size_t i;

		while (c < e && *c != ':' && *c != ' ')
			c++;
		if (c >= e || *c != ':') {
			p = c < e ? c + 1 : e;
			continue;
		}
		v = parse_int(c + 1, e, &x);
		if (v && (v == e || *v == ' ' || *v == '\t') && c - k < 40) {
			char key[40];
			copy_str(key, sizeof(key), k, c);
			if (!ev->mi_pages)
				ev->mi_pages = json_object();
			if (json_object_size(ev->mi_pages) < 64)
				json_object_set_new(ev->mi_pages, key, json_integer(x));
		}
		if (v && (v == e || *v == ' ' || *v == '\t'))
			for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
				if ((size_t)(c - k) == strlen(keys[i].k) &&
				    !memcmp(k, keys[i].k, (size_t)(c - k)))
					*(int64_t *)((char *)ev + keys[i].off) = x;
		p = v ? v : c + 1;
	}
}

/* "Free swap  = 0kB" / "Total swap = 2097148kB": the kB after '='. */
static int64_t after_equals(const char *p, const char *e, int64_t old)
{
	const char *c = memchr(p, '=', (size_t)(e - p));

	return c ? key_int(c, e, "=") : old;
}

/* "N pages RAM", "N pages reserved", "N total pagecache pages". */
static int page_totals(struct oomev *ev, const char *p, const char *e)
{
	const char *c;
	int64_t v;

	if (!(c = parse_int(p, e, &v)))
		return -1;
	if (starts(c, e, " pages RAM"))
		ev->pages_ram = v;
	else if (starts(c, e, " pages reserved"))
		ev->pages_reserved = v;
	else if (starts(c, e, " total pagecache pages"))
		ev->pagecache = v;
	else
		return 0;
	return 1;
}

/* Zone, buddy, swap and RAM lines of the global memory block. */
int m_meminfo(struct kparse *kp, const char *p, const char *e)
{
	struct oomev *ev = &kp->ev;
	const char *c;
	int64_t v;
	int r;

	if (starts(p, e, "Mem-Info:") || starts(p, e, "Mem-info:")) {
		ev->in_meminfo = 1;
		if (e - p > 10)
			meminfo_tokens(ev, p + 9, e);
		return 1;
	}
	if (starts(p, e, "Free swap")) {
		ev->swap_free_kb = after_equals(p, e, ev->swap_free_kb);
		return 1;
	}
	if (starts(p, e, "Total swap")) {
		ev->swap_total_kb = after_equals(p, e, ev->swap_total_kb);
		return 1;
	}
	if (is_digit((unsigned char)*p) && (r = page_totals(ev, p, e)) >= 0)
		return r;
	if (starts(p, e, "Node ")) {
		if (parse_int(p + 5, e, &v) && v >= 0 && v < 64)
			ev->nodes_seen |= 1ull << v;
	}
	/* buddy list "Node 0 DMA: 21*4kB (UM) ..." (or "DMA: ..." on 4.8-4.13) */
	if ((c = memchr(p, '*', (size_t)(e - p))) && c > p && is_digit((unsigned char)c[-1]) &&
	    ev->buddy_kb == OL_NULL && find(p, c, ": ")) {
		const char *d = parse_int(c + 1, e, &v);
		if (d && starts(d, e, "kB"))
			ev->buddy_kb = v;
		return 1;
	}
	if ((c = find(p, e, " free:")) && find(c, e, " min:") && ev->nzones < KZONES) {
		struct kzone *z = &ev->zones[ev->nzones++];
		const char *n = p;
		if (starts(n, e, "Node ") && (n = parse_int(n + 5, c, &v)))   /* "Node 0 DMA32" */
			n = skip_ws(n, c);
		copy_str(z->name, sizeof(z->name), n ? n : p, c);
		z->free_kb = key_int(c, e, "free:");
		z->min_kb = key_int(c, e, " min:");
		z->low_kb = key_int(c, e, " low:");
		z->high_kb = key_int(c, e, " high:");
		z->present_kb = key_int(c, e, " present:");
		z->managed_kb = key_int(c, e, " managed:");
	}
	if ((c = find(p, e, " present:"))) {
		v = key_int(c, e, "present:");
		if (v != OL_NULL)
			ev->present_kb = kb_sum(ev->present_kb == OL_NULL ? 0 : ev->present_kb, v);
		return 1;
	}
	/* a folded continuation of the Mem-Info summary */
	if (ev->in_meminfo && !starts(p, e, "Node ") && find(p, e, ":"))
		meminfo_tokens(ev, p, e);
	return 0;
}

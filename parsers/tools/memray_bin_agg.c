/*
 * memray_bin_agg.c -- the bounded tables of a memray capture's walk, and
 * what they become: the totals `memray stats` prints (allocations, bytes
 * allocated, peak heap) and its top allocating locations as holders.
 *
 * What memray's own reader does, with caps instead of unbounded maps:
 *   - live allocations (address -> size) to take frees off the heap and
 *     find its peak; past MB_LIVE_MAX slots an allocation is counted but
 *     not kept (its free then takes nothing off, so the heap and peak
 *     read high, and the stats event says how many);
 *   - munmap takes off the mapping that starts at its address (memray
 *     keeps intervals; a partial unmap inside a mapping is counted as
 *     unmatched);
 *   - the Python stack of each thread (MB_THREADS, MB_DEPTH frames kept)
 *     and the code objects (function, file, first line, line table) that
 *     name the top frame of each allocation: its location;
 *   - the bytes and count of each location (code object, instruction
 *     offset); past MB_LOC_MAX the rest is summed as "other".
 */
#include "parsers/tools/memray_bin_internal.h"
#include "parsers/tools/memray_stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const ALLOCATOR_NAMES[MB_ALLOCATORS] = {
	NULL, "PYMALLOC_FREE", "PYMALLOC_MALLOC", "PYMALLOC_CALLOC", "PYMALLOC_REALLOC",
	"FREE", "MALLOC", "REALLOC", "CALLOC", "POSIX_MEMALIGN", "ALIGNED_ALLOC",
	"MEMALIGN", "VALLOC", "PVALLOC", "MMAP", "MUNMAP",
};

const char *mb_allocator_name(unsigned allocator)
{
	return allocator < MB_ALLOCATORS ? ALLOCATOR_NAMES[allocator] : NULL;
}

int mb_allocator_simple_free(unsigned allocator)
{
	return allocator == 1 || allocator == 5;
}

int mb_allocator_frees(unsigned allocator)
{
	return mb_allocator_simple_free(allocator) || allocator == 15;
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 31;
	x *= 0x9e3779b97f4a7c15ull;
	return x ^ (x >> 29);
}

int mb_agg_init(struct mb_agg *a)
{
	memset(a, 0, sizeof(*a));
	a->live_cap = 4096;
	a->live_addr = calloc(a->live_cap, sizeof(uint64_t));
	a->live_size = calloc(a->live_cap, sizeof(uint64_t));
	a->code_hash = calloc(2 * MB_CODE_MAX, sizeof(uint32_t));
	a->locs = calloc(2 * MB_LOC_MAX, sizeof(struct mb_loc));
	return a->live_addr && a->live_size && a->code_hash && a->locs ? 0 : -1;
}

void mb_agg_free(struct mb_agg *a)
{
	size_t i;

	free(a->live_addr);
	free(a->live_size);
	for (i = 0; i < a->ncode; i++) {
		free(a->code[i].func);
		free(a->code[i].file);
		free(a->code[i].table);
	}
	free(a->code);
	free(a->code_hash);
	for (i = 0; i < (size_t)a->nthreads; i++)
		free(a->threads[i].frames);
	free(a->locs);
	memset(a, 0, sizeof(*a));
}

/* ---- live allocations: linear probing, keys address + 1 (0: empty) ---- */

static size_t live_find(const struct mb_agg *a, uint64_t key)
{
	size_t m = a->live_cap - 1, i = (size_t)mix(key) & m;

	while (a->live_addr[i] && a->live_addr[i] != key)
		i = (i + 1) & m;
	return i;
}

static int live_grow(struct mb_agg *a)
{
	uint64_t *oa = a->live_addr, *os = a->live_size;
	size_t oc = a->live_cap, i;

	a->live_addr = calloc(oc * 2, sizeof(uint64_t));
	a->live_size = calloc(oc * 2, sizeof(uint64_t));
	if (!a->live_addr || !a->live_size) {
		free(a->live_addr);
		free(a->live_size);
		a->live_addr = oa;
		a->live_size = os;
		return -1;
	}
	a->live_cap = oc * 2;
	for (i = 0; i < oc; i++)
		if (oa[i]) {
			size_t j = live_find(a, oa[i]);
			a->live_addr[j] = oa[i];
			a->live_size[j] = os[i];
		}
	free(oa);
	free(os);
	return 0;
}

/* Keep addr -> size (a new size replaces the old, as memray's map does).
 * 0, or -1 out of memory. */
static int live_put(struct mb_agg *a, uint64_t addr, uint64_t size)
{
	uint64_t key = addr + 1;
	size_t i;

	if (!key)
		return 0;
	i = live_find(a, key);
	if (a->live_addr[i]) {
		a->live_size[i] = size;
		return 0;
	}
	if ((a->live_n + 1) * 4 > a->live_cap * 3) {
		if (a->live_cap >= MB_LIVE_MAX) {
			a->untracked++;
			return 0;
		}
		if (live_grow(a) < 0)
			return -1;
		i = live_find(a, key);
	}
	a->live_addr[i] = key;
	a->live_size[i] = size;
	a->live_n++;
	return 0;
}

/* Take addr out: its size in *size, 1; 0 when it is not kept. */
static int live_take(struct mb_agg *a, uint64_t addr, uint64_t *size)
{
	size_t m = a->live_cap - 1, i = live_find(a, addr + 1), j, k;

	if (!a->live_addr[i])
		return 0;
	*size = a->live_size[i];
	a->live_addr[i] = 0;
	a->live_n--;
	/* backward-shift the run after i so no probe stops early */
	for (j = (i + 1) & m; a->live_addr[j]; j = (j + 1) & m) {
		k = (size_t)mix(a->live_addr[j]) & m;
		if (((j - k) & m) >= ((j - i) & m)) {
			a->live_addr[i] = a->live_addr[j];
			a->live_size[i] = a->live_size[j];
			a->live_addr[j] = 0;
			i = j;
		}
	}
	return 1;
}

/* ---- stacks ---- */

int mb_agg_switch(struct mb_agg *a, uint64_t tid)
{
	int i;

	for (i = 0; i < a->nthreads; i++)
		if (a->threads[i].tid == tid) {
			a->cur = &a->threads[i];
			return 0;
		}
	a->cur = NULL;
	if (a->nthreads == MB_THREADS) {
		a->threads_dropped++;
		return 0;
	}
	a->threads[i].frames = malloc(MB_DEPTH * sizeof(struct mb_frame));
	if (!a->threads[i].frames)
		return -1;
	a->threads[i].tid = tid;
	a->threads[i].depth = 0;
	a->cur = &a->threads[a->nthreads++];
	return 0;
}

void mb_agg_push(struct mb_agg *a, uint64_t code, int64_t ioff)
{
	struct mb_thread *t = a->cur;

	if (!t)
		return;
	if (t->depth < MB_DEPTH) {
		t->frames[t->depth].code = code;
		t->frames[t->depth].ioff = ioff;
	}
	t->depth++;
}

void mb_agg_pop(struct mb_agg *a, unsigned n)
{
	struct mb_thread *t = a->cur;

	if (!t)
		return;
	if (t->depth < n) {
		a->pops_past_top++;
		t->depth = 0;
	} else {
		t->depth -= n;
	}
}

/* ---- code objects ---- */

static struct mb_code *code_get(const struct mb_agg *a, uint64_t id)
{
	size_t m = 2 * MB_CODE_MAX - 1, i = (size_t)mix(id) & m;

	for (; a->code_hash[i]; i = (i + 1) & m)
		if (a->code[a->code_hash[i] - 1].id == id)
			return &a->code[a->code_hash[i] - 1];
	return NULL;
}

int mb_agg_code(struct mb_agg *a, uint64_t id, const char *func, const char *file,
		int64_t firstlineno, const unsigned char *table, size_t table_len)
{
	size_t m = 2 * MB_CODE_MAX - 1, i, fl = strlen(func), gl = strlen(file);
	struct mb_code *c;

	if (code_get(a, id))
		return 0;
	if (a->ncode == MB_CODE_MAX || a->code_bytes + fl + gl + table_len > MB_CODE_BYTES) {
		a->code_dropped++;
		return 0;
	}
	if (a->ncode == a->code_cap) {
		size_t nc = a->code_cap ? a->code_cap * 2 : 256;
		struct mb_code *p = realloc(a->code, nc * sizeof(*p));
		if (!p)
			return -1;
		a->code = p;
		a->code_cap = nc;
	}
	c = &a->code[a->ncode];
	c->id = id;
	c->firstlineno = firstlineno;
	c->func = strdup(func);
	c->file = strdup(file);
	c->table = malloc(table_len ? table_len : 1);
	if (!c->func || !c->file || !c->table) {
		free(c->func);
		free(c->file);
		free(c->table);
		return -1;
	}
	if (table_len)
		memcpy(c->table, table, table_len);   /* table may be NULL when empty */
	c->table_len = table_len;
	a->code_bytes += fl + gl + table_len;
	for (i = (size_t)mix(id) & m; a->code_hash[i]; i = (i + 1) & m)
		;
	a->code_hash[i] = (uint32_t)++a->ncode;
	return 0;
}

/* ---- allocations ---- */

static void count_location(struct mb_agg *a, uint64_t size)
{
	const struct mb_thread *t = a->cur;
	const struct mb_frame *f;
	size_t m = 2 * MB_LOC_MAX - 1, i;

	if (!t || !t->depth) {
		a->nostack_bytes += size;
		a->nostack_count++;
		return;
	}
	if (t->depth > MB_DEPTH) {  /* the top frame was not kept */
		a->other_bytes += size;
		a->other_count++;
		return;
	}
	f = &t->frames[t->depth - 1];
	for (i = (size_t)mix(f->code ^ mix((uint64_t)f->ioff)) & m; a->locs[i].used; i = (i + 1) & m)
		if (a->locs[i].code == f->code && a->locs[i].ioff == f->ioff)
			break;
	if (!a->locs[i].used) {
		if (a->nlocs == MB_LOC_MAX) {
			a->other_bytes += size;
			a->other_count++;
			return;
		}
		a->locs[i].used = 1;
		a->locs[i].code = f->code;
		a->locs[i].ioff = f->ioff;
		a->nlocs++;
	}
	a->locs[i].bytes += size;
	a->locs[i].count++;
}

int mb_agg_alloc(struct mb_agg *a, unsigned allocator, uint64_t addr, uint64_t size)
{
	uint64_t old;

	if (mb_allocator_frees(allocator)) {
		a->n_dealloc++;
		if (!live_take(a, addr, &old)) {
			if (allocator == 15)
				a->unmatched_munmap++;
			return 0;
		}
		if (allocator == 15 && old > size) {  /* the head of a mapping unmapped */
			a->heap -= size;
			return live_put(a, addr + size, old - size);
		}
		a->heap -= old;
		return 0;
	}
	a->n_alloc++;
	a->bytes_alloc += size;
	if (allocator < MB_ALLOCATORS)
		a->by_allocator[allocator]++;
	a->heap += size;
	if (a->heap > a->peak)
		a->peak = a->heap;
	count_location(a, size);
	return live_put(a, addr, size);
}

/* ---- locations: line tables, merging, the top lists ---- */

/* The 3.11+ location table's 6-bit varints, bounded by end. */
static unsigned lt_varint(const unsigned char **p, const unsigned char *end)
{
	unsigned v, shift = 0, b;

	if (*p >= end)
		return 0;
	b = *(*p)++;
	v = b & 63;
	while ((b & 64) && *p < end && shift < 24) {
		b = *(*p)++;
		shift += 6;
		v |= (b & 63) << shift;
	}
	return v;
}

/* The source line of instruction offset ioff in a code object, decoded as
 * memray does for the Python version that wrote the table: 3.11+ the
 * location table (PEP 657; entries in code units, ioff in bytes), 3.10
 * (start delta, line delta) pairs, before that co_lnotab. 0 when the
 * table is empty, ioff negative, or the offset is past the table. */
static int64_t code_line(const struct mb_code *c, int64_t ioff, uint32_t pyver)
{
	const unsigned char *p = c->table, *end = c->table + c->table_len;
	int64_t line = c->firstlineno;

	if (!c->table_len || ioff < 0)
		return 0;
	if (pyver >= 0x030b0000) {
		uint64_t addr = 0, q = (uint64_t)ioff / 2;
		while (p < end) {
			unsigned b = *p++, code = (b >> 3) & 15, len = (b & 7) + 1, u;
			switch (code) {
			case 15:
				break;
			case 14:
				u = lt_varint(&p, end);
				line = mb_sat_add(line, u & 1 ? -(int64_t)(u >> 1) : (int64_t)(u >> 1));
				lt_varint(&p, end);
				lt_varint(&p, end);
				lt_varint(&p, end);
				break;
			case 13:
				u = lt_varint(&p, end);
				line = mb_sat_add(line, u & 1 ? -(int64_t)(u >> 1) : (int64_t)(u >> 1));
				break;
			case 10: case 11: case 12:
				line = mb_sat_add(line, code - 10);
				p += end - p < 2 ? end - p : 2;
				break;
			default:
				p += p < end;
				break;
			}
			if (addr <= q && q < addr + len)
				return line;
			addr += len;
		}
		return 0;
	}
	if (pyver >= 0x030a0000) {
		uint64_t at = 0, last = (uint64_t)ioff << 1;
		for (; p + 1 < end; p += 2) {
			at += p[0];
			line = mb_sat_add(line, (signed char)p[1] == -128 ? 0 : (signed char)p[1]);
			if (at > last)
				break;
		}
		return line;
	}
	{
		uint64_t bc = 0;
		for (; p + 1 < end; p += 2) {
			bc += p[0];
			if (bc > (uint64_t)ioff)
				break;
			line = mb_sat_add(line, (signed char)p[1]);
		}
		return line;
	}
}

struct mb_place { const char *func, *file; int64_t line; uint64_t bytes, count; };

static int place_cmp(const void *x, const void *y)
{
	const struct mb_place *a = x, *b = y;
	int r;

	if (!a->func || !b->func)  /* the no-stack bucket sorts last */
		return !a->func - !b->func;
	r = strcmp(a->func, b->func);
	if (!r)
		r = strcmp(a->file, b->file);
	return r ? r : (a->line > b->line) - (a->line < b->line);
}

static int by_bytes(const void *x, const void *y)
{
	const struct mb_place *a = x, *b = y;

	if (a->bytes != b->bytes)
		return a->bytes < b->bytes ? 1 : -1;
	return place_cmp(x, y);
}

static int by_count(const void *x, const void *y)
{
	const struct mb_place *a = x, *b = y;

	if (a->count != b->count)
		return a->count < b->count ? 1 : -1;
	return place_cmp(x, y);
}

static void place_label(const struct mb_place *p, char *buf, size_t n)
{
	if (p->func)
		snprintf(buf, n, "%s:%s:%lld", p->func, p->file, (long long)p->line);
	else
		snprintf(buf, n, "<stack trace unavailable>");
}

/* The locations as places, merged by (function, file, line) as memray's
 * location registry merges them; the no-stack bucket last, unnamed.
 * *n their count. NULL out of memory (or none: *n = 0). */
static struct mb_place *places(const struct mb_agg *a, uint32_t pyver, size_t *n)
{
	struct mb_place *pl = malloc((a->nlocs + 1) * sizeof(*pl));
	size_t i, k = 0, w;

	*n = 0;
	if (!pl)
		return NULL;
	for (i = 0; i < 2 * MB_LOC_MAX; i++) {
		const struct mb_loc *l = &a->locs[i];
		const struct mb_code *c;
		if (!l->used)
			continue;
		c = code_get(a, l->code);
		pl[k].func = c ? c->func : "<unknown>";
		pl[k].file = c ? c->file : "<unknown>";
		pl[k].line = c ? code_line(c, l->ioff, pyver) : 0;
		pl[k].bytes = l->bytes;
		pl[k].count = l->count;
		k++;
	}
	qsort(pl, k, sizeof(*pl), place_cmp);
	for (i = w = 0; i < k; i++) {
		if (w && !place_cmp(&pl[w - 1], &pl[i])) {
			pl[w - 1].bytes += pl[i].bytes;
			pl[w - 1].count += pl[i].count;
		} else {
			pl[w++] = pl[i];
		}
	}
	if (a->nostack_count) {
		memset(&pl[w], 0, sizeof(pl[w]));
		pl[w].bytes = a->nostack_bytes;
		pl[w].count = a->nostack_count;
		w++;
	}
	*n = w;
	return pl;
}

int mb_agg_holders(struct mb_agg *a, struct sink *s, uint32_t python_version,
		   json_t *stats)
{
	struct mb_place *pl;
	char label[2048];
	size_t n, i;
	int top_py = 0, r = 0;

	pl = places(a, python_version, &n);
	if (!pl)
		return a->nlocs || a->nostack_count ? -1 : 0;
	qsort(pl, n, sizeof(*pl), by_bytes);
	for (i = 0; i < n && !top_py; i++) {
		place_label(&pl[i], label, sizeof(label));
		if (!i) {
			json_object_set_new(stats, "top_location", json_string(label));
			json_object_set_new(stats, "top_location_bytes",
					    json_integer((json_int_t)pl[i].bytes));
		}
		if (pl[i].func) {
			top_py = 1;
			json_object_set_new(stats, "top_python_location", json_string(label));
			json_object_set_new(stats, "top_python_location_bytes",
					    json_integer((json_int_t)pl[i].bytes));
		}
	}
	for (i = 0; i < n && i < MB_TOP && r == 0; i++) {
		place_label(&pl[i], label, sizeof(label));
		r = memray_holder(s, label, (int64_t)pl[i].bytes, (int64_t)pl[i].count,
				  (int64_t)i + 1, 0, 0, NULL);
	}
	qsort(pl, n, sizeof(*pl), by_count);
	for (i = 0; i < n && i < MB_TOP && r == 0; i++) {
		place_label(&pl[i], label, sizeof(label));
		r = memray_holder(s, label, OL_NULL, (int64_t)pl[i].count, (int64_t)i + 1, 0, 0,
				  NULL);
	}
	free(pl);
	return r;
}

/*
 * server_log.c -- inference server logs into events, series and meta.
 *
 * Each line loses its wrappers first: ANSI colours, a leading ISO 8601
 * time (kubectl --timestamps, TGI: UTC), a "(Worker pid=N) " tag, the
 * vLLM "LEVEL MM-DD HH:MM:SS [file.py:N] " prefix (local time, no year:
 * --year or the file's mtime year) or TGI's "LEVEL target: ". What is
 * left is the message:
 *   - "Traceback (most recent call last):" starts a traceback, kept whole
 *     (chained "During handling ..." parts too, 64 KiB at most) up to its
 *     exception line: a CUDA OOM there gives torch_oom, anything else
 *     server_error; a CUDA OOM message outside a traceback is a torch_oom
 *     without one;
 *   - "Avg prompt throughput: ..." engine statistics give server.* samples;
 *   - start-up lines give server.* meta (a key is stored again only when
 *     its value changes; the last row wins);
 *   - requests served are counted into server.requests_total (cumulative,
 *     one sample per second at most): uvicorn access lines of the API
 *     server ("INFO:     10.0.0.7:51234 - "POST /v1/completions HTTP/1.1"
 *     200 OK", a POST answered 2xx), vLLM's "Finished request <id>" and
 *     TGI's router "...: Success" lines. A server can log two of these for
 *     the same request, so only the first kind seen in a file is counted.
 *     Access lines carry no time: they take the last time seen.
 */
#include "parsers/server_log.h"
#include "parsers/seriesutil.h"
#include "lib/strbuf.h"
#include "lib/timeutil.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MSG_MAX (64 * 1024)
#define TB_MAX (64 * 1024)

enum tb_state { TB_NONE, TB_FRAMES, TB_AFTER };

struct srv_st {
	struct sink *s;
	struct input *in;
	int records;
	int year;
	int warned_year;
	int noted_local;
	char msg[MSG_MAX];          /* the current line without its wrappers */
	size_t msg_n;
	struct ol_time t;           /* time of the current line */
	struct ol_time last_t;      /* last time seen (for prefix-less lines) */
	int64_t pid;                /* from "(... pid=N)" */
	/* traceback */
	enum tb_state tb;
	struct strbuf tbuf;
	int tb_cut;
	struct ol_time tb_t;
	int64_t tb_pid;
	uint64_t tb_line;
	char exc[2048];             /* exception line that decides the kind */
	int exc_oom;
	int chained;                /* a "During handling ..." line came last */
	int in_args;                /* inside TGI's pretty-printed "Args {" */
	char args_key[64];          /* "num_shard" of a "num_shard: Some(" line */
	int last_oom_set;
	json_int_t last_oom_dev, last_oom_req;
	struct ol_time last_oom_t;
	int64_t stat_ids[16];       /* series ids of stat_fields for stat_ent */
	char stat_ent[32];
	/* meta de-duplication */
	char last_meta[16][160];
	/* requests served (server.requests_total) */
	int req_kind;               /* the kind counted: 0 none yet, else REQ_* */
	int64_t req_count, req_sid, req_sec;
	int req_pending;
	struct ol_time req_t;
	const char *req_ent;
};

enum { REQ_ACCESS = 1, REQ_FINISHED, REQ_TGI };

/* ---- line wrappers ---- */

static int is_level(const char *s, size_t n, size_t *used)
{
	static const char *const lv[] = { "DEBUG", "INFO", "WARNING", "WARN", "ERROR",
					  "CRITICAL", "TRACE", NULL };
	int i;

	for (i = 0; lv[i]; i++) {
		size_t l = strlen(lv[i]);
		if (n > l && !memcmp(s, lv[i], l) && s[l] == ' ') {
			*used = l + 1;
			return 1;
		}
	}
	return 0;
}

static int dig2(const char *s)
{
	return isdigit((unsigned char)s[0]) && isdigit((unsigned char)s[1])
		? (s[0] - '0') * 10 + (s[1] - '0') : -1;
}

/* Copy the line without ANSI escape sequences into st->msg. */
static void copy_plain(struct srv_st *st, const char *l, size_t n)
{
	size_t i, o = 0;

	for (i = 0; i < n && o < MSG_MAX - 1; i++) {
		if (l[i] == '\x1b' && i + 1 < n && l[i + 1] == '[') {
			i += 2;
			while (i < n && !(l[i] >= '@' && l[i] <= '~'))
				i++;
			continue;
		}
		if (l[i] == '\r')
			continue;
		st->msg[o++] = l[i];
	}
	st->msg[o] = 0;
	st->msg_n = o;
}

static void drop(struct srv_st *st, size_t k)
{
	memmove(st->msg, st->msg + k, st->msg_n - k + 1);
	st->msg_n -= k;
}

/* Strip the wrappers of st->msg, setting st->t and st->pid. */
static int unwrap(struct srv_st *st)
{
	char *m = st->msg;
	size_t k, n;
	int64_t ns;
	int off, again = 1;

	st->t = ol_time_none();
	st->pid = OL_NULL;
	while (again) {
		again = 0;
		n = st->msg_n;
		/* ISO 8601 time (UTC or with offset) */
		if (n > 20 && isdigit((unsigned char)m[0]) && m[4] == '-' && m[10] == 'T') {
			int u = parse_iso8601(m, n, &ns, &off);
			if (u > 0) {
				st->t = ol_time_none();
				st->t.clock = OL_CLOCK_UTC;
				st->t.utc_ns = ns;
				for (k = (size_t)u; k < n && m[k] == ' '; k++)
					;
				drop(st, k);
				again = 1;
				continue;
			}
		}
		/* "(VllmWorkerProcess pid=1234) " */
		if (n > 6 && m[0] == '(') {
			char *close = memchr(m, ')', n < 128 ? n : 128);
			char *p = close ? memmem(m, (size_t)(close - m), " pid=", 5) : NULL;
			if (p) {
				st->pid = strtoll(p + 5, NULL, 10);
				for (k = (size_t)(close - m) + 1; k < n && m[k] == ' '; k++)
					;
				drop(st, k);
				again = 1;
				continue;
			}
		}
		/* "INFO 11-29 18:22:40[.123] [loggers.py:116] " or "... metrics.py:455] " */
		if (is_level(m, n, &k) && n >= k + 15 && m[k + 2] == '-' && m[k + 5] == ' ' &&
		    m[k + 8] == ':' && m[k + 11] == ':') {
			int mo = dig2(m + k), d = dig2(m + k + 3), h = dig2(m + k + 6);
			int mi = dig2(m + k + 9), se = dig2(m + k + 12);
			long frac = 0;
			size_t j = k + 14;
			if (j < n && (m[j] == '.' || m[j] == ',')) {
				int digs = 0;
				for (j++; j < n && isdigit((unsigned char)m[j]); j++, digs++)
					if (digs < 9)
						frac = frac * 10 + (m[j] - '0');
				for (; digs < 9; digs++)
					frac *= 10;
			}
			if (mo > 0 && d > 0 && h >= 0 && mi >= 0 && se >= 0 && j < n && m[j] == ' ') {
				if (st->t.clock == OL_CLOCK_UTC) {
					/* kubectl --timestamps already gave UTC: keep it */
				} else if (st->year) {
					int64_t w = utc_ns(st->year, mo, d, h, mi, se, frac);
					if (w >= 0)
						st->t = wall_time(st->s, w);
					if (note_local_clock(st->s, &st->t, &st->noted_local) < 0)
						return -1;
				} else if (!st->warned_year++ &&
					   sink_diagf(st->s, st->in->lineno, 0, OL_WARN,
						      "vLLM time stamps have no year and neither"
						      " --year nor a file time gives one: times"
						      " left unknown") < 0) {
					return -1;
				}
				j++;
				/* "[file.py:N] " or "file.py:N] " */
				{
					char *br = memchr(m + j, ']', n - j < 96 ? n - j : 96);
					if (br && memchr(m + j, ':', (size_t)(br - (m + j))) &&
					    !memchr(m + j, ' ', (size_t)(br - (m + j)))) {
						j = (size_t)(br - m) + 1;
						if (j < n && m[j] == ' ')
							j++;
					}
				}
				drop(st, j);
				again = 1;
				continue;
			}
		}
		/* TGI: "INFO text_generation_launcher: " after the time */
		if (st->t.clock == OL_CLOCK_UTC && is_level(m, n, &k)) {
			size_t j = k, e;
			while (j < n && m[j] == ' ')
				j++;
			for (e = j; e < n && m[e] != ' '; e++)
				;
			if (e > j && m[e - 1] == ':')
				j = e + 1;
			else if (e > j + 2 && m[e - 1] == '}' )
				j = e + 1;   /* span form "target{...}:" */
			if (j > n)
				j = n;
			drop(st, j);
		}
	}
	if (st->t.clock != OL_CLOCK_NONE)
		st->last_t = st->t;
	return 0;
}

/* ---- meta ---- */

static int put_meta(struct srv_st *st, int slot, const char *key, const char *val)
{
	if (slot >= 0 && slot < 16) {
		if (!strcmp(st->last_meta[slot], val))
			return 0;
		copy_str(st->last_meta[slot], sizeof(st->last_meta[slot]), val, strlen(val));
	}
	if (sink_meta(st->s, key, val) < 0)
		return -1;
	st->records++;
	return 0;
}

static int put_meta_bytes(struct srv_st *st, int slot, const char *key, int64_t b)
{
	char v[32];

	if (b == OL_NULL)
		return 0;
	snprintf(v, sizeof(v), "%lld", (long long)b);
	return put_meta(st, slot, key, v);
}

static const struct { const char *src; const char *key; int slot; } cfg_keys[] = {
	{ "model", "server.model", 0 },
	{ "model_id", "server.model", 0 },                 /* TGI */
	{ "dtype", "server.dtype", 1 },
	{ "gpu_memory_utilization", "server.gpu_memory_utilization", 2 },
	{ "cuda_memory_fraction", "server.gpu_memory_utilization", 2 },  /* TGI */
	{ "max_num_seqs", "server.max_num_seqs", 3 },
	{ "max_concurrent_requests", "server.max_num_seqs", 3 },        /* TGI */
	{ "max_num_batched_tokens", "server.max_num_batched_tokens", 4 },
	{ "max_batch_prefill_tokens", "server.max_num_batched_tokens", 4 }, /* TGI */
	{ "max_model_len", "server.max_model_len", 5 },
	{ "max_seq_len", "server.max_model_len", 5 },
	{ "max_total_tokens", "server.max_model_len", 5 },       /* TGI */
	{ "tensor_parallel_size", "server.tensor_parallel_size", 6 },
	{ "num_shard", "server.tensor_parallel_size", 6 },       /* TGI */
	{ NULL, NULL, 0 }
};

static int ident(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '-';
}

/* Value of key in "key=v", "'key': v", "key: v" (TGI Debug) forms. */
static int find_kv(const char *m, size_t n, const char *key, char *out, size_t cap)
{
	size_t kl = strlen(key), i = 0, j, e;
	const char *p;

	while (i < n && (p = memmem(m + i, n - i, key, kl))) {
		j = (size_t)(p - m);
		i = j + 1;
		if (j && ident(m[j - 1]))
			continue;
		e = j + kl;
		if (e < n && (m[e] == '\'' || m[e] == '"'))
			e++;
		if (e < n && m[e] == '=')
			e++;
		else if (e + 1 < n && m[e] == ':' && m[e + 1] == ' ')
			e += 2;
		else
			continue;
		while (e < n && m[e] == ' ')
			e++;
		if (e + 5 <= n && !memcmp(m + e, "Some(", 5))
			e += 5;
		if (e < n && (m[e] == '\'' || m[e] == '"')) {
			char q = m[e++];
			size_t s0 = e;
			while (e < n && m[e] != q)
				e += m[e] == '\\' ? 2 : 1;
			if (e > n)
				e = n;
			copy_str(out, cap, m + s0, e - s0);
		} else {
			size_t s0 = e;
			while (e < n && m[e] != ',' && m[e] != ')' && m[e] != '}' && m[e] != ' ')
				e++;
			copy_str(out, cap, m + s0, e - s0);
		}
		if (!out[0] || !strcmp(out, "None"))
			return -1;
		return 0;
	}
	return -1;
}

static int config_line(struct srv_st *st, const char *m, size_t n)
{
	char v[160];
	int i;

	for (i = 0; cfg_keys[i].src; i++) {
		if (find_kv(m, n, cfg_keys[i].src, v, sizeof(v)) < 0)
			continue;
		if (cfg_keys[i].slot == 1) {  /* dtype: torch.bfloat16, BFloat16 -> bfloat16 */
			char *p = v, *q;
			if (!strncmp(p, "torch.", 6))
				p += 6;
			for (q = p; *q; q++)
				*q = (char)tolower((unsigned char)*q);
			memmove(v, p, strlen(p) + 1);
		}
		if (put_meta(st, cfg_keys[i].slot, cfg_keys[i].key, v) < 0)
			return -1;
	}
	return 0;
}

/* Sizes, blocks and concurrency stated once at start-up. */
static int startup_line(struct srv_st *st, const char *m, size_t n)
{
	const char *p;
	int64_t v;
	size_t u;
	char buf[64];
	double d;

	{
		static const char *const wlab[] = { "Loading model weights took ",
			"Model loading took ", "model weights take ", NULL };
		static const char *const klab[] = { "Available KV cache memory: ",
			"reserved for KV Cache is ", NULL };
		for (u = 0; wlab[u]; u++)
			if ((p = mem_find(m, n, wlab[u]))) {
				p += strlen(wlab[u]);
				if (put_meta_bytes(st, 7, "server.weights_bytes",
						   parse_size(p, n - (size_t)(p - m), NULL)) < 0)
					return -1;
				break;
			}
		for (u = 0; klab[u]; u++)
			if ((p = mem_find(m, n, klab[u]))) {
				p += strlen(klab[u]);
				if (put_meta_bytes(st, 8, "server.kv_cache_bytes",
						   parse_size(p, n - (size_t)(p - m), NULL)) < 0)
					return -1;
				break;
			}
	}
	if ((p = mem_find(m, n, "# GPU blocks: ")) || (p = mem_find(m, n, "# cuda blocks: "))) {
		p += p[2] == 'G' ? 14 : 15;
		if (parse_uint_commas(p, n - (size_t)(p - m), &v, NULL) == 0 &&
		    put_meta_bytes(st, 9, "server.kv_cache_blocks", v) < 0)
			return -1;
	}
	if ((p = mem_find(m, n, "GPU KV cache size: ")) ||
	    (p = mem_find(m, n, "Setting max batch total tokens to "))) {
		p += p[0] == 'G' ? 19 : 34;
		if (parse_uint_commas(p, n - (size_t)(p - m), &v, NULL) == 0 &&
		    put_meta_bytes(st, 10, "server.kv_cache_tokens", v) < 0)
			return -1;
	}
	if ((p = mem_find(m, n, "Maximum concurrency for "))) {
		p += 24;
		if (parse_uint_commas(p, n - (size_t)(p - m), &v, &u) == 0 &&
		    put_meta_bytes(st, 11, "server.max_concurrency_tokens", v) < 0)
			return -1;
		if ((p = mem_find(p, n - (size_t)(p - m), "per request: ")) &&
		    parse_num(p + 13, n - (size_t)(p + 13 - m), &d, NULL) == 0) {
			snprintf(buf, sizeof(buf), "%g", d);
			if (put_meta(st, 12, "server.max_concurrency", buf) < 0)
				return -1;
		}
	}
	if ((p = mem_find(m, n, "vLLM API server version ")) ||
	    (p = mem_find(m, n, "LLM engine (v"))) {
		p = p[0] == 'v' ? p + 24 : p + 13;
		for (u = 0; p + u < m + n && (isalnum((unsigned char)p[u]) || p[u] == '.' ||
					     p[u] == '+' || p[u] == '-'); u++)
			;
		copy_str(buf, sizeof(buf), p, u);
		if (u && (put_meta(st, 13, "server.name", "vllm") < 0 ||
			  put_meta(st, 14, "server.version", buf) < 0))
			return -1;
	}
	if (mem_find(m, n, "with config:") || mem_find(m, n, "args: ") ||
	    mem_find(m, n, "Args {") || mem_find(m, n, "args={"))
		return config_line(st, m, n);
	return 0;
}

/* ---- engine statistics ---- */

static const struct { const char *label; const char *series; const char *unit;
		      double mult; } stat_fields[] = {
	{ "Avg prompt throughput: ", "server.prompt_tokens_per_s", "tokens/s", 1 },
	{ "Avg generation throughput: ", "server.gen_tokens_per_s", "tokens/s", 1 },
	{ "Running: ", "server.running", "requests", 1 },
	{ "Swapped: ", "server.swapped", "requests", 1 },
	{ "Pending: ", "server.waiting", "requests", 1 },
	{ "Waiting: ", "server.waiting", "requests", 1 },
	{ "GPU KV cache usage: ", "server.gpu_kv_usage", "ratio", 0.01 },
	{ "CPU KV cache usage: ", "server.cpu_kv_usage", "ratio", 0.01 },
	{ "Prefix cache hit rate: ", "server.prefix_cache_hit_rate", "ratio", 0.01 },
	{ "GPU prefix cache hit rate: ", "server.prefix_cache_hit_rate", "ratio", 0.01 },
	{ NULL, NULL, NULL, 0 }
};

static int stats_line(struct srv_st *st, const char *m, size_t n)
{
	char ent[32] = "vllm";
	const char *p;
	double v;
	int i;

	if (n > 7 && !memcmp(m, "Engine ", 7)) {
		int e = atoi(m + 7);
		if (e > 0)
			snprintf(ent, sizeof(ent), "vllm/engine%d", e);
	}
	for (i = 0; stat_fields[i].label; i++) {
		size_t ll = strlen(stat_fields[i].label);
		if (!(p = mem_find(m, n, stat_fields[i].label)))
			continue;
		if (parse_num(p + ll, n - (size_t)(p + ll - m), &v, NULL) < 0) {
			if (sink_diagf(st->s, st->in->lineno, 0, OL_WARN,
				       "engine statistics: no number after \"%s\"",
				       stat_fields[i].label) < 0)
				return -1;
			continue;
		}
		if (strcmp(ent, st->stat_ent)) {  /* ids are cached per entity */
			memset(st->stat_ids, 0, sizeof(st->stat_ids));
			copy_str(st->stat_ent, sizeof(st->stat_ent), ent, strlen(ent));
		}
		if (!st->stat_ids[i])
			st->stat_ids[i] = sink_series(st->s, stat_fields[i].series,
						      stat_fields[i].unit, ent);
		if (st->stat_ids[i] < 0 ||
		    sink_sample(st->s, st->stat_ids[i], &st->t, v * stat_fields[i].mult) < 0)
			return -1;
		st->records++;
	}
	return 0;
}

/* ---- CUDA OOM ---- */

static int64_t size_after(const char *m, size_t n, const char *label)
{
	const char *p = mem_find(m, n, label);
	size_t l = strlen(label);

	if (!p)
		return OL_NULL;
	return parse_size(p + l, n - (size_t)(p + l - m), NULL);
}

/* The fields of a CUDA OOM message (any PyTorch version) into data. */
static json_t *oom_data(const char *m, size_t n, int64_t *requested, char *summary, size_t scap)
{
	json_t *d = json_object(), *procs = json_array();
	int64_t req, total = OL_NULL, fre = OL_NULL, inuse, alloc = OL_NULL, resv = OL_NULL;
	int64_t unalloc, device = OL_NULL;
	const char *p, *e;

	req = size_after(m, n, "Tried to allocate ");
	if ((p = mem_find(m, n, "(GPU ")) || (p = mem_find(m, n, ". GPU ")) ||
	    (p = mem_find(m, n, " GPU "))) {
		p = memchr(p, 'G', (size_t)(m + n - p));
		if (p && p + 4 < m + n && isdigit((unsigned char)p[4]))
			device = strtoll(p + 4, NULL, 10);
	}
	/* new form (2.1+) */
	total = size_after(m, n, "total capacity of ");
	fre = size_after(m, n, "of which ");
	inuse = size_after(m, n, "this process has ");
	unalloc = OL_NULL;
	if ((p = mem_find(m, n, "Of the allocated memory ")))
		alloc = parse_size(p + 24, n - (size_t)(p + 24 - m), NULL);
	/* "..., and X is reserved by PyTorch but unallocated" (2.4+ puts "with X
	 * allocated in private pools (e.g., CUDA Graphs)" in between) */
	if ((p = mem_find(m, n, " is reserved by PyTorch but unallocated"))) {
		const char *a = p;
		while (a > m && p - a < 48 && memcmp(a, "and ", 4) != 0)
			a--;
		if (!memcmp(a, "and ", 4))
			unalloc = parse_size(a + 4, (size_t)(p - a - 4), NULL);
	}
	if ((p = mem_find(m, n, "allocated in private pools")) &&
	    (e = mem_find(m, (size_t)(p - m), ", with ")))
		json_object_set_new(d, "private_pools_bytes",
				    ol_json_int(parse_size(e + 7, (size_t)(p - e - 7), NULL)));
	for (p = m; (p = memmem(p, (size_t)(m + n - p), "Process ", 8)); p += 8) {
		char *end;
		long long pid = strtoll(p + 8, &end, 10);
		if (end > p + 8 && end + 5 < m + n && !memcmp(end, " has ", 5)) {
			int64_t b = parse_size(end + 5, (size_t)(m + n - end - 5), NULL);
			json_t *o = json_object();
			json_object_set_new(o, "pid", json_integer(pid));
			json_object_set_new(o, "bytes", ol_json_int(b));
			json_array_append_new(procs, o);
		}
	}
	/* old form: "(GPU 0; 79.15 GiB total capacity; 77.02 GiB already
	 * allocated; 1.23 GiB free; 78.10 GiB reserved in total by PyTorch)" */
	if ((p = mem_find(m, n, "(GPU ")) && (e = memchr(p, ')', (size_t)(m + n - p)))) {
		const char *q = p;
		while ((q = memchr(q, ';', (size_t)(e - q)))) {
			size_t u;
			int64_t b;
			q++;
			b = parse_size(q, (size_t)(e - q), &u);
			if (b == OL_NULL)
				continue;
			q += u;
			while (q < e && *q == ' ')
				q++;
			if (!strncmp(q, "total capacity", 14))
				total = b;
			else if (!strncmp(q, "already allocated", 17))
				alloc = b;
			else if (!strncmp(q, "free", 4))
				fre = b;
			else if (!strncmp(q, "reserved in total", 17) || !strncmp(q, "cached", 6))
				resv = b;
		}
		if (resv != OL_NULL && alloc != OL_NULL && resv >= alloc)
			unalloc = resv - alloc;
	}
	if (resv == OL_NULL && alloc != OL_NULL && unalloc != OL_NULL)
		resv = alloc + unalloc;
	json_object_set_new(d, "device", ol_json_int(device));
	json_object_set_new(d, "requested_bytes", ol_json_int(req));
	json_object_set_new(d, "total_bytes", ol_json_int(total));
	json_object_set_new(d, "free_bytes", ol_json_int(fre));
	json_object_set_new(d, "process_in_use_bytes", ol_json_int(inuse));
	json_object_set_new(d, "allocated_bytes", ol_json_int(alloc));
	json_object_set_new(d, "reserved_bytes", ol_json_int(resv));
	json_object_set_new(d, "reserved_unallocated_bytes", ol_json_int(unalloc));
	json_object_set_new(d, "processes", procs);
	json_object_set_new(d, "suggests_expandable_segments",
			    json_boolean(mem_find(m, n, "expandable_segments") != NULL));
	json_object_set_new(d, "suggests_max_split_size",
			    json_boolean(mem_find(m, n, "max_split_size_mb") != NULL));
	*requested = req;
	snprintf(summary, scap, "CUDA out of memory on GPU %s: tried to allocate %.1f MiB"
		 " (%.1f MiB free)", device == OL_NULL ? "?" : "",
		 req == OL_NULL ? -1.0 : (double)req / 1048576.0,
		 fre == OL_NULL ? -1.0 : (double)fre / 1048576.0);
	if (device != OL_NULL)
		snprintf(summary, scap, "CUDA out of memory on GPU %lld: tried to allocate"
			 " %.1f MiB (%.1f MiB free)", (long long)device,
			 req == OL_NULL ? -1.0 : (double)req / 1048576.0,
			 fre == OL_NULL ? -1.0 : (double)fre / 1048576.0);
	return d;
}

static int is_oom_text(const char *m, size_t n)
{
	return mem_find(m, n, "CUDA out of memory") || mem_find(m, n, "OutOfMemoryError");
}

/* The same OOM is often logged twice: the worker's traceback, then the
 * router or engine client repeating the message. A traceback-less OOM
 * with the device and size of the previous one within 5 s is that echo. */
static int dup_oom(struct srv_st *st, json_t *d, const struct ol_time *t)
{
	json_int_t dev = json_integer_value(json_object_get(d, "device"));
	json_int_t req = json_integer_value(json_object_get(d, "requested_bytes"));

	if (!st->last_oom_set || dev != st->last_oom_dev || req != st->last_oom_req)
		return 0;
	if (t->clock == OL_CLOCK_NONE || st->last_oom_t.clock == OL_CLOCK_NONE)
		return 1;
	return llabs(t->utc_ns - st->last_oom_t.utc_ns) <= 5 * NS_PER_S;
}

static void remember_oom(struct srv_st *st, json_t *d, const struct ol_time *t)
{
	st->last_oom_set = 1;
	st->last_oom_dev = json_integer_value(json_object_get(d, "device"));
	st->last_oom_req = json_integer_value(json_object_get(d, "requested_bytes"));
	st->last_oom_t = *t;
}

/* One event: torch_oom (exc is a CUDA OOM) or server_error. */
static int emit(struct srv_st *st, const char *exc, size_t en, const char *tb,
		const struct ol_time *t, int64_t pid, uint64_t line)
{
	struct ol_event e;
	char summary[256];
	json_t *d;
	int64_t bytes = OL_NULL;
	int64_t r;

	if (is_oom_text(exc, en)) {
		d = oom_data(exc, en, &bytes, summary, sizeof(summary));
		e.kind = "torch_oom";
		if (!tb && dup_oom(st, d, t)) {
			json_decref(d);
			return 0;
		}
		remember_oom(st, d, t);
	} else {
		const char *c = memchr(exc, ':', en);
		d = json_object();
		json_object_set_new(d, "exception_type",
				    c ? ol_json_strn(exc, (size_t)(c - exc)) : ol_json_strn(exc, en));
		snprintf(summary, sizeof(summary), "%.*s", (int)(en > 200 ? 200 : en), exc);
		e.kind = "server_error";
	}
	json_object_set_new(d, "exception", ol_json_strn(exc, en > 2000 ? 2000 : en));
	json_object_set_new(d, "traceback", tb ? ol_json_strn(tb, strlen(tb)) : json_null());
	e.t = *t;
	e.pid = pid;
	e.comm = NULL;
	e.bytes = bytes;
	e.line = line;
	e.summary = summary;
	e.data = d;
	r = sink_event(st->s, &e);
	json_decref(d);
	if (r < 0)
		return -1;
	st->records++;
	return 0;
}

static int tb_add(struct srv_st *st, const char *m, size_t n)
{
	if (st->tbuf.len + n + 1 > TB_MAX) {
		st->tb_cut = 1;
		return 0;
	}
	strbuf_add(&st->tbuf, m, n);
	strbuf_add(&st->tbuf, "\n", 1);
	return 0;
}

static int tb_flush(struct srv_st *st)
{
	int r;

	if (st->tb == TB_NONE)
		return 0;
	if (st->tb_cut)
		strbuf_addf(&st->tbuf, "... (traceback cut at %d KiB)\n", TB_MAX / 1024);
	if (!st->exc[0] && sink_diagf(st->s, st->tb_line, 0, OL_WARN,
				      "traceback without its exception line (log cut?)") < 0)
		return -1;
	r = emit(st, st->exc[0] ? st->exc : "traceback without exception line",
		 st->exc[0] ? strlen(st->exc) : 32, st->tbuf.buf, &st->tb_t, st->tb_pid,
		 st->tb_line);
	strbuf_reset(&st->tbuf);
	st->tb = TB_NONE;
	st->chained = 0;
	st->tb_cut = 0;
	st->exc[0] = 0;
	st->exc_oom = 0;
	return r;
}

static int starts(const char *m, size_t n, const char *p)
{
	size_t l = strlen(p);
	return n >= l && !memcmp(m, p, l);
}

/* Feed one unwrapped message to the traceback machine. 1 if consumed. */
static int traceback(struct srv_st *st, const char *m, size_t n)
{
	if (st->tb == TB_AFTER) {
		if (!n)
			return 1;
		if (starts(m, n, "During handling of the above exception") ||
		    starts(m, n, "The above exception was the direct cause")) {
			tb_add(st, "", 0);
			tb_add(st, m, n);
			st->chained = 1;
			return 1;
		}
		if (st->chained && starts(m, n, "Traceback (most recent call last)")) {
			st->chained = 0;
			tb_add(st, "", 0);
			tb_add(st, m, n);
			st->tb = TB_FRAMES;
			return 1;
		}
		if (tb_flush(st) < 0)
			return -1;
	}
	if (st->tb == TB_FRAMES) {
		if (!n || m[0] == ' ' || m[0] == '\t') {
			tb_add(st, m, n);
			return 1;
		}
		/* the exception line; a chained OOM keeps deciding the kind */
		tb_add(st, m, n);
		if (!st->exc_oom) {
			copy_str(st->exc, sizeof(st->exc), m, n);
			st->exc_oom = is_oom_text(m, n);
		}
		st->tb = TB_AFTER;
		return 1;
	}
	if (starts(m, n, "Traceback (most recent call last)")) {
		st->tb = TB_FRAMES;
		st->tb_t = st->t.clock != OL_CLOCK_NONE ? st->t : st->last_t;
		st->tb_pid = st->pid;
		st->tb_line = st->in->lineno;
		st->exc[0] = 0;
		st->exc_oom = 0;
		strbuf_reset(&st->tbuf);
		tb_add(st, m, n);
		return 1;
	}
	return 0;
}

/* Write the open second's count. */
static int req_flush(struct srv_st *st)
{
	if (!st->req_pending)
		return 0;
	st->req_pending = 0;
	if (!st->req_sid)
		st->req_sid = sink_series(st->s, "server.requests_total", "requests", st->req_ent);
	if (st->req_sid < 0 || sink_sample(st->s, st->req_sid, &st->req_t,
					   (double)st->req_count) < 0)
		return -1;
	st->records++;
	return 0;
}

/* One more request served, of kind k, at the current line's time. */
static int req_served(struct srv_st *st, int k, const char *ent)
{
	int64_t sec;

	if (st->req_kind && st->req_kind != k)
		return 0;
	st->req_kind = k;
	st->req_ent = ent;
	if (st->t.clock != OL_CLOCK_UTC && st->t.clock != OL_CLOCK_LOCAL) {
		st->req_count++;
		return 0;  /* cannot be placed: counted, not sampled */
	}
	sec = st->t.utc_ns / NS_PER_S;
	if (st->req_pending && sec != st->req_sec && req_flush(st) < 0)
		return -1;
	st->req_count++;
	st->req_pending = 1;
	st->req_sec = sec;
	st->req_t = st->t;
	return 0;
}

/* 'INFO:     10.0.0.7:51234 - "POST /v1/completions HTTP/1.1" 200 OK' */
static int is_access_post_ok(const char *m, size_t n)
{
	const char *q = mem_find(m, n, " - \"POST ");
	const char *e;

	if (!q)
		return 0;
	e = memchr(q + 9, '"', n - (size_t)(q + 9 - m));
	return e && (size_t)(e - m) + 3 < n && e[1] == ' ' && e[2] == '2' &&
	       isdigit((unsigned char)e[3]);
}

int server_log_parse(struct input *in, struct sink *s)
{
	struct srv_st *st = calloc(1, sizeof(*st));
	const char *l;
	size_t n;
	int r, rc = -1;

	if (!st)
		return -1;
	st->s = s;
	st->in = in;
	st->year = guess_year(s, in);
	st->last_t = ol_time_none();
	strbuf_init(&st->tbuf);
	while ((r = input_getline(in, &l, &n)) == 1) {
		const char *m;
		copy_plain(st, l, n);
		if (unwrap(st) < 0)
			goto out;
		m = st->msg;
		n = st->msg_n;
		if (st->t.clock == OL_CLOCK_NONE)
			st->t = st->last_t;
		if (st->in_args) {  /* TGI "Args {" one field a line, up to "}" */
			if (n && m[0] == '}') {
				st->in_args = 0;
			} else if (n && m[0] == ' ') {
				/* "    num_shard: Some(" / "        4," / "    )," */
				const char *c = memchr(m, ':', n);
				if (n > 5 && !memcmp(m + n - 5, "Some(", 5) && c) {
					const char *k = m;
					while (*k == ' ')
						k++;
					copy_str(st->args_key, sizeof(st->args_key), k, (size_t)(c - k));
				} else if (st->args_key[0] && !c) {
					char kv[256];
					const char *v = m;
					while (*v == ' ')
						v++;
					if (*v != ')') {
						snprintf(kv, sizeof(kv), "%s: %.*s", st->args_key,
							 (int)(n - (size_t)(v - m) > 160 ? 160 : n - (size_t)(v - m)), v);
						if (config_line(st, kv, strlen(kv)) < 0)
							goto out;
					}
					st->args_key[0] = 0;
				} else if (config_line(st, m, n) < 0) {
					goto out;
				}
				continue;
			} else {
				st->in_args = 0;
			}
		}
		if (n >= 6 && !memcmp(m + n - 6, "Args {", 6)) {
			st->in_args = 1;
			continue;
		}
		r = traceback(st, m, n);
		if (r < 0)
			goto out;
		if (r)
			continue;
		if (is_oom_text(m, n) && mem_find(m, n, "Tried to allocate")) {
			if (emit(st, m, n, NULL, &st->t, st->pid, in->lineno) < 0)
				goto out;
			continue;
		}
		if (mem_find(m, n, "Avg prompt throughput: ")) {
			if (stats_line(st, m, n) < 0)
				goto out;
			continue;
		}
		if (starts(m, n, "Prefix cache hit rate: GPU: ")) {  /* V0 0.5-0.6, own line */
			double v;
			int64_t id;
			if (parse_num(m + 28, n - 28, &v, NULL) == 0) {
				id = sink_series(s, "server.prefix_cache_hit_rate", "ratio", "vllm");
				if (id < 0 || sink_sample(s, id, &st->t, v / 100.0) < 0)
					goto out;
				st->records++;
			}
			continue;
		}
		if (n > 6 && !memcmp(m, "INFO:  ", 7)) {
			/* uvicorn access and lifecycle lines */
			if (is_access_post_ok(m, n) && req_served(st, REQ_ACCESS, "vllm") < 0)
				goto out;
			continue;
		}
		if (starts(m, n, "Finished request ")) {
			if (req_served(st, REQ_FINISHED, "vllm") < 0)
				goto out;
			continue;
		}
		if (n > 9 && !memcmp(m + n - 9, ": Success", 9) &&
		    mem_find(m, n, "text_generation_router")) {
			if (req_served(st, REQ_TGI, "tgi") < 0)
				goto out;
			continue;
		}
		if (startup_line(st, m, n) < 0)
			goto out;
	}
	if (tb_flush(st) < 0 || req_flush(st) < 0)
		goto out;
	rc = st->records;
out:
	strbuf_release(&st->tbuf);
	free(st);
	return rc;
}

int server_log_sniff(const unsigned char *head, size_t n)
{
	const char *h = (const char *)head;

	if (mem_find(h, n, "Avg prompt throughput: ") || mem_find(h, n, "text_generation_launcher") ||
	    mem_find(h, n, "text_generation_router") || mem_find(h, n, "vLLM API server version") ||
	    mem_find(h, n, "LLM engine (v"))
		return 80;
	if (mem_find(h, n, "CUDA out of memory. Tried to allocate"))
		return 75;
	if (mem_find(h, n, "Traceback (most recent call last):"))
		return 60;
	return 0;
}

/*
 * environ.c -- a process's environment into env.<NAME> meta; see
 * environ.h.
 *
 * The records are NUL-separated when the file holds a NUL in its first
 * block (a copy of /proc/PID/environ), else one a line (`env`,
 * `printenv`, `tr '\0' '\n'`, `export NAME=value`, bash's `declare -x`).
 * A file whose first block holds vLLM's collect_env report (its
 * "Environment Variables" section, as users paste it in bug reports) is
 * read for that section's lines alone: elsewhere in such a file a line
 * like "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid
 * fragmentation" is PyTorch's advice, not the environment.
 * The file is read in blocks; a record longer than REC_MAX is skipped
 * with a warning. A value keeps its bytes as the process saw them, less
 * the quotes a shell's `export` or `declare -x` line puts around it.
 */
#include "parsers/host/environ.h"
#include "lib/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK 65536
#define REC_MAX 65536
#define NAME_MAX_LEN 128
#define VALUE_MAX 4096        /* longer values are cut: none that matters is */
#define MAX_WARN 20           /* malformed records reported one by one */

static const char *const kept_prefix[] = {
	"PYTORCH_", "TORCH_", "CUDA_", "CUBLAS_", "CUDNN_", "NCCL_", "VLLM_", "SGLANG_",
	"HIP_", "HSA_", "ROCR_", "TRTLLM_", "TLLM_", "TGI_", "HF_HUB_ENABLE", "NVIDIA_",
	"OMP_", "MKL_", "MALLOC_", "GLIBC_TUNABLES", "LD_PRELOAD", "PYTHONMALLOC",
	"MAX_BATCH_", "MAX_TOTAL_TOKENS", "MAX_INPUT_", "CUDA_GRAPHS", NULL
};

/* Parts of a name that mark a secret: never kept. */
static const char *const secret_part[] = {
	"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH", "COOKIE", NULL
};

/* Case-sensitive search for needle in the n bytes at s. */
static int has_part(const char *s, size_t n, const char *needle)
{
	size_t k = strlen(needle), i;

	for (i = 0; i + k <= n; i++)
		if (!memcmp(s + i, needle, k))
			return 1;
	return 0;
}

int environ_keep(const char *name, size_t n)
{
	int i;

	for (i = 0; secret_part[i]; i++)
		if (has_part(name, n, secret_part[i]))
			return 0;
	for (i = 0; kept_prefix[i]; i++) {
		size_t k = strlen(kept_prefix[i]);
		if (n >= k && !memcmp(name, kept_prefix[i], k))
			return 1;
	}
	return 0;
}

/* Length of the NAME in "NAME=value" at r (n bytes): > 0, or 0 when r is
 * not such a record. */
static size_t name_len(const char *r, size_t n)
{
	size_t i;

	if (!n || !(r[0] == '_' || (r[0] >= 'A' && r[0] <= 'Z') || (r[0] >= 'a' && r[0] <= 'z')))
		return 0;
	for (i = 1; i < n && i <= NAME_MAX_LEN; i++) {
		char ch = r[i];
		if (ch == '=')
			return i;
		if (!(ch == '_' || (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') ||
		      (ch >= '0' && ch <= '9')))
			return 0;
	}
	return 0;
}

/* Skip a shell's "export " / "declare -x " before a record: the bytes
 * skipped; *quoted set when a shell wrote it (its value may be quoted). */
static size_t shell_prefix(const char *r, size_t n, int *quoted)
{
	*quoted = 0;
	if (n > 7 && !memcmp(r, "export ", 7))
		return *quoted = 1, 7;
	if (n > 11 && !memcmp(r, "declare -x ", 11))
		return *quoted = 1, 11;
	return 0;
}

/* Does text (n bytes) hold vLLM's collect_env report: its section
 * header "Environment Variables" over a rule of '=' (newer reports), or
 * its "vLLM Build Flags:" (older ones, whose variables follow the flags
 * after a blank line)? */
static int section_at(const char *t, size_t n)
{
	static const char hdr[] = "Environment Variables\n=", flags[] = "vLLM Build Flags:\n";
	size_t k = sizeof(hdr) - 1, kf = sizeof(flags) - 1, i;

	for (i = 0; i < n; i++)
		if ((t[i] == 'E' && i + k <= n && !memcmp(t + i, hdr, k)) ||
		    (t[i] == 'v' && i + kf <= n && !memcmp(t + i, flags, kf)))
			return 1;
	return 0;
}

int environ_sniff(const unsigned char *head, size_t n)
{
	const char *p = (const char *)head, *end = p + n;
	char sep = memchr(head, 0, n) ? '\0' : '\n';
	int good = 0, bad = 0, anchor = 0, quoted;

	while (p < end) {
		const char *e = memchr(p, sep, (size_t)(end - p));
		size_t len, skip, nl;
		if (!e)
			break;                      /* the block's last record may be cut */
		len = (size_t)(e - p);
		if (len && p[len - 1] == '\r')
			len--;
		if (len) {
			skip = shell_prefix(p, len, &quoted);
			nl = name_len(p + skip, len - skip);
			if (nl) {
				good++;
				if (environ_keep(p + skip, nl) || (nl == 4 && !memcmp(p + skip, "PATH", 4)) ||
				    (nl == 4 && !memcmp(p + skip, "HOME", 4)) ||
				    (nl == 8 && !memcmp(p + skip, "HOSTNAME", 8)))
					anchor = 1;
			} else {
				bad++;
			}
		}
		p = e + 1;
	}
	if (sep == '\0')
		return good >= 2 && bad == 0 ? (anchor ? 70 : 40) : 0;
	if (section_at((const char *)head, n))
		return 55;
	return good >= 3 && bad * 20 <= good && anchor ? 45 : 0;
}

/* The state of one file. */
struct env_st {
	struct sink *s;
	struct input *in;
	int stored, records, warned;
	int sectioned;              /* collect_env: only its "Environment Variables" section */
	int in_section;             /* 2: in the section; 1, 3: its header read */
	struct strbuf key, val;
};

/* One record (len bytes at r, the record's byte offset off). 0, or -1
 * when the sink failed. */
static int record(struct env_st *st, const char *r, size_t len, uint64_t off)
{
	size_t skip, nl;
	const char *v;
	size_t vl;
	int quoted;

	if (len && r[len - 1] == '\r')
		len--;
	if (st->sectioned && st->in_section != 2) {
		/* newer reports: the header, its rule, the variables; older ones:
		 * "CUDA Archs: ..." (the build flags), a blank line, the variables */
		if (len >= 21 && !memcmp(r + len - 21, "Environment Variables", 21))
			st->in_section = 1;
		else if (st->in_section == 1 && len && r[0] == '=')
			st->in_section = 2;
		else if (len >= 11 && !memcmp(r, "CUDA Archs:", 11))
			st->in_section = 3;
		else if (st->in_section == 3 && !len)
			st->in_section = 2;
		else
			st->in_section = 0;
		return 0;
	}
	if (!len) {
		if (st->sectioned && st->records)
			st->in_section = 0;             /* the section ends at a blank line */
		return 0;
	}
	skip = shell_prefix(r, len, &quoted);
	nl = name_len(r + skip, len - skip);
	if (!nl && st->sectioned) {
		if (st->records)
			st->in_section = 0;             /* or at the first other line */
		return 0;
	}
	if (!nl) {
		if (st->warned++ < MAX_WARN)
			sink_diagf(st->s, 0, off, OL_WARN, "expected NAME=value, got \"%.40s\"", r);
		return 0;
	}
	st->records++;
	if (!environ_keep(r + skip, nl))
		return 0;
	v = r + skip + nl + 1;
	vl = len - skip - nl - 1;
	if (quoted && vl >= 2 && (v[0] == '"' || v[0] == '\'') && v[vl - 1] == v[0])
		v++, vl -= 2;
	if (vl > VALUE_MAX)
		vl = VALUE_MAX;
	strbuf_reset(&st->key);
	strbuf_addf(&st->key, "env.%.*s", (int)nl, r + skip);
	strbuf_reset(&st->val);
	strbuf_add(&st->val, v, vl);
	if (strbuf_failed(&st->key) || strbuf_failed(&st->val))
		return -1;
	if (sink_meta(st->s, st->key.buf, st->val.buf) < 0)
		return -1;
	st->stored++;
	return 0;
}

int environ_parse(struct input *in, struct sink *s)
{
	struct env_st st;
	struct strbuf rec = STRBUF_INIT;
	char *block = malloc(BLOCK), sep = 0;
	int first = 1, toolong = 0, r = 0;
	uint64_t off = 0, rec_off = 0;
	ssize_t got;

	if (!block)
		return -1;
	memset(&st, 0, sizeof(st));
	st.s = s, st.in = in;
	strbuf_init(&st.key), strbuf_init(&st.val);
	while (r == 0 && (got = input_read(in, block, BLOCK)) > 0) {
		const char *p = block, *end = block + got;
		if (first) {
			sep = memchr(block, 0, (size_t)got) ? '\0' : '\n', first = 0;
			st.sectioned = sep == '\n' && section_at(block, (size_t)got);
		}
		while (p < end && r == 0) {
			const char *e = memchr(p, sep, (size_t)(end - p));
			size_t len = (size_t)((e ? e : end) - p);
			if (!toolong && rec.len + len <= REC_MAX)
				strbuf_add(&rec, p, len);
			else if (!toolong) {
				toolong = 1;
				sink_diagf(s, 0, rec_off, OL_WARN, "a record longer than %d bytes: skipped",
					   REC_MAX);
			}
			off += len;
			if (!e)
				break;
			if (strbuf_failed(&rec))
				r = -1;
			else if (!toolong)
				r = record(&st, rec.buf, rec.len, rec_off);
			strbuf_reset(&rec);
			toolong = 0;
			p = e + 1;
			rec_off = ++off;
		}
	}
	if (r == 0 && rec.len && !toolong)
		r = strbuf_failed(&rec) ? -1 : record(&st, rec.buf, rec.len, rec_off);
	if (r == 0 && st.warned > MAX_WARN)
		sink_diagf(s, 0, 0, OL_WARN, "%d more records that are not NAME=value", st.warned - MAX_WARN);
	if (r == 0 && !st.records)
		sink_diagf(s, 0, 0, OL_ERROR, "no NAME=value record: not a process environment");
	else if (r == 0 && !st.stored)
		sink_diagf(s, 0, 0, OL_INFO, "%d variables, none that shapes memory (kept: PYTORCH_*,"
			   " CUDA_*, NCCL_*, VLLM_*, ...; never a secret)", st.records);
	strbuf_release(&rec), strbuf_release(&st.key), strbuf_release(&st.val);
	free(block);
	return r < 0 ? -1 : st.stored;
}

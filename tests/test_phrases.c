/*
 * test_phrases.c -- the one-pass phrase set (parsers/common/phrases.c)
 * says exactly what a memmem per phrase says: on every line of the real
 * memory-failure excerpts (tests/data/real/any_stack) and on the edges
 * of a line (a phrase at its very end, one longer than the line, phrases
 * that share their first bytes or are prefixes of one another).
 */
#include "testutil.h"
#include "parsers/common/phrases.h"
#include "parsers/common/seriesutil.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

/* Phrases of the recogniser's kinds (memfail.c), overlapping on purpose. */
static const char *const list[] = {
	"out of memory", "Out of memory", "OOM", "error", "Error", "failed to allocate",
	"failed to allocate CUDA", "CUDA out of memory", "CUDA error: out of memory", "cuda:",
	"CUDA", "GPU ", "GPU=", "GPU_", "allocate ", "Tried to allocate ", "of which ", "ggml_",
	"[TM]", "NCCL", "load_tensors", "load_tensors:", "\"POST ", "Finished request", "ab",
	"memory leak detected!", "memory leak detected", "warmup{", "in warmup",
};
#define N_LIST (sizeof(list) / sizeof(list[0]))

static struct phrases set;

/* Every phrase's bit against mem_find on s[0..n); the number of phrases
 * found (so a caller can see the text exercised something). */
static size_t check_text(const char *s, size_t n)
{
	struct phrases_found f;
	size_t i, hits = 0;

	phrases_scan(&set, s, n, &f);
	for (i = 0; i < N_LIST; i++) {
		int want = mem_find(s, n, list[i]) != NULL;
		if (phrases_has(&f, (int)i) != want)
			fail_msg("\"%s\" in \"%.*s\": scan %d, memmem %d", list[i], (int)n, s,
				 !want, want);
		hits += (size_t)want;
	}
	return hits;
}

static int setup(void **state)
{
	size_t i;

	(void)state;
	phrases_init(&set);
	for (i = 0; i < N_LIST; i++)
		assert_int_equal(phrases_add(&set, list[i]), (int)i);
	return 0;
}

static void edges(void **state)
{
	(void)state;
	assert_int_equal(check_text("", 0), 0);
	assert_int_equal(check_text("a", 1), 0);
	assert_int_equal(check_text("ab", 2), 1);                 /* the whole text */
	assert_int_equal(check_text("xxOOM", 5), 1);              /* at the very end */
	assert_int_equal(check_text("CUDA out of memor", 17), 1);  /* one byte short: CUDA only */
	/* the line ends inside a phrase: bytes after n are not read */
	assert_int_equal(check_text("failed to allocate CUDA0", 20), 2);   /* and "allocate " */
	assert_int_equal(check_text("load_tensors: CUDA0 ...", 23), 3);
	assert_int_equal(check_text("memory leak detected! memory leak detected", 42), 2);
	assert_int_equal(phrases_first(&(struct phrases_found){ { 0 } }, 0, (int)N_LIST), -1);
}

static void real_lines(void **state)
{
	DIR *d;
	struct dirent *e;
	size_t files = 0, lines = 0, hits = 0;
	char path[512];

	(void)state;
	d = opendir(SRCDIR "/tests/data/real/any_stack");
	assert_non_null(d);
	while ((e = readdir(d))) {
		size_t n, at = 0;
		char *text;
		if (!strstr(e->d_name, ".log"))
			continue;
		snprintf(path, sizeof(path), "tests/data/real/any_stack/%s", e->d_name);
		text = t_slurp(path, &n);
		assert_non_null(text);
		while (at < n) {
			const char *nl = memchr(text + at, '\n', n - at);
			size_t len = nl ? (size_t)(nl - text) - at : n - at;
			hits += check_text(text + at, len);
			lines++;
			at += len + 1;
		}
		free(text);
		files++;
	}
	closedir(d);
	/* the excerpts are there and the phrases occur in them */
	assert_true(files >= 20);
	assert_true(lines > 200);
	assert_true(hits > 100);
}

static void full_set(void **state)
{
	struct phrases p;
	int i;

	(void)state;
	phrases_init(&p);
	for (i = 0; i < PHRASES_MAX; i++)
		assert_int_equal(phrases_add(&p, "xy"), i);
	assert_int_equal(phrases_add(&p, "xy"), -1);
	phrases_init(&p);
	assert_int_equal(phrases_add(&p, "x"), -1);   /* under two bytes */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(edges),
		cmocka_unit_test(real_lines),
		cmocka_unit_test(full_set),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}

/*
 * test_torch_oom_real.c -- the real PyTorch OOM excerpts of tests/data/real
 * (gpu_host and serving manifests), each read as its manifest row says:
 * sizes, device and the figures of the message. Split from
 * test_server_log.c.
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


/* A file of the source tree read by the server-log parser (no detection). */
static int parse_log(struct timeline *tl, const char *rel)
{
	return t_parse_file_as(tl, "server_log", rel);
}

static int64_t ev_int(struct timeline *tl, const char *kind, const char *field)
{
	return t_int(tl, "SELECT json_extract(data, '$.%s') FROM event WHERE kind = '%s'"
		     " ORDER BY id LIMIT 1", field, kind);
}

/* ---- the real excerpts of tests/data/real ---- */

/* A size as a manifest prints it ("14.99 GiB", "0 bytes"): bytes in *v,
 * half a unit of its last digit in *tol. 0 if it is one. */
static int manifest_size(const char *s, double *v, double *tol)
{
	static const struct { const char *unit; double mult; } units[] = {
		{ "bytes", 1 }, { "KiB", 1024.0 }, { "MiB", 1048576.0 }, { "GiB", 1073741824.0 },
	};
	const char *dot;
	char *end;
	double x = strtod(s, &end), half = 0.5;
	size_t i;

	if (end == s)
		return -1;
	if ((dot = memchr(s, '.', (size_t)(end - s))))
		for (i = 0; i < (size_t)(end - dot - 1); i++)
			half /= 10;
	while (*end == ' ')
		end++;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit)) {
			*v = x * units[i].mult;
			*tol = half * units[i].mult + 1;
			return 0;
		}
	return -1;
}

/* Assert the size figure want (manifest text) of the file's torch_oom at
 * JSON path. A size past 2^63 (PyTorch's SIZE_MAX for "no limit") is
 * stored as null. */
static void check_size(struct timeline *tl, const char *file, const char *key,
		       const char *path, const char *want)
{
	double v = 0, tol = 0;
	int64_t got = t_int(tl, "SELECT json_extract(data, '$.%s') FROM event WHERE"
			    " kind = 'torch_oom' ORDER BY id LIMIT 1", path);

	if (manifest_size(want, &v, &tol) < 0)
		fail_msg("%s: %s=%s is not a size", file, key, want);
	if (v >= 9.2e18) {
		if (got != OL_NULL)
			fail_msg("%s: %s=%s, found %lld, not null", file, key, want, (long long)got);
		return;
	}
	if (got == OL_NULL || (double)got < v - tol || (double)got > v + tol)
		fail_msg("%s: %s=%s, found %lld", file, key, want, (long long)got);
}

/* "GPU 0", "device 0" -> the device. */
static void check_device(struct timeline *tl, const char *file, const char *want)
{
	const char *sp = strrchr(want, ' ');
	int64_t got = ev_int(tl, "torch_oom", "device");

	if (!sp || got != atoll(sp + 1))
		fail_msg("%s: device=%s, found %lld", file, want, (long long)got);
}

/* The JSON path of each size key of the manifests (gpu_host's, then the
 * serving folder's torch_* keys). torch_reserved is the size printed as
 * "reserved": in total (old wordings) or "reserved by PyTorch but
 * unallocated" (2.1+); torch_in_use is "Process N has X memory in use". */
static const char *size_path(struct timeline *tl, const char *key, int *nth_process)
{
	static const char *const keys[][2] = {
		{ "tried", "requested_bytes" }, { "total", "total_bytes" },
		{ "free", "free_bytes" }, { "allocated", "allocated_bytes" },
		{ "reserved", "reserved_bytes" },
		{ "reserved_unallocated", "reserved_unallocated_bytes" },
		{ "private_pools", "private_pools_bytes" },
		{ "non_pytorch", "process_in_use_bytes" }, { "allowed", "allowed_bytes" },
	};
	static char path[64];
	size_t i;

	if (!strncmp(key, "torch_", 6)) {
		key += 6;
		if (!strcmp(key, "in_use")) {
			snprintf(path, sizeof(path), "processes[%d].bytes", (*nth_process)++);
			return path;
		}
		if (!strcmp(key, "reserved") &&
		    t_int(tl, "SELECT json_extract(data, '$.wording') IN ('capacty_typo',"
			  " 'total_capacity_of_which') FROM event WHERE kind = 'torch_oom'"
			  " ORDER BY id LIMIT 1") == 1)
			return "reserved_unallocated_bytes";
	}
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(key, keys[i][0]))
			return keys[i][1];
	return NULL;
}

/* One figure "key=value" of a manifest row. Returns 1 if asserted. */
static int check_figure(struct timeline *tl, const char *file, const char *key,
			const char *want, int *nth_process)
{
	const char *path;
	char got[64];

	if (!strcmp(key, "device")) {
		check_device(tl, file, want);
	} else if (!strcmp(key, "wording")) {
		snprintf(got, sizeof(got), "%s", t_text(tl, "SELECT json_extract(data,"
			 " '$.wording') FROM event WHERE kind = 'torch_oom' ORDER BY id LIMIT 1"));
		if (strcmp(got, want))
			fail_msg("%s: wording=%s, found %s", file, want, got);
	} else if (!strcmp(key, "process")) {   /* PID:SIZE, in printed order */
		int i = (*nth_process)++;
		char path2[64];
		if (ev_int(tl, "torch_oom", (snprintf(path2, sizeof(path2), "processes[%d].pid", i),
					     path2)) != atoll(want))
			fail_msg("%s: process %d is %s", file, i, want);
		snprintf(path2, sizeof(path2), "processes[%d].bytes", i);
		check_size(tl, file, key, path2, strchr(want, ':') + 1);
	} else if ((path = size_path(tl, key, nth_process))) {
		check_size(tl, file, key, path, want);
	} else {
		return 0;  /* a description (the reader's reading), or not torch's */
	}
	return 1;
}

/* Every row of folder's manifest whose figures speak of PyTorch's OOM
 * message: the file, read by the server-log parser, has one torch_oom
 * with each figure. Returns the figures asserted. */
static int check_manifest(const char *folder, const char *torch_prefix)
{
	char rel[256], *man, *row, *save = NULL;
	int fig_col = -1, file_col = 0, figures = 0;
	size_t n;

	snprintf(rel, sizeof(rel), "tests/data/real/%s/MANIFEST.tsv", folder);
	man = t_slurp(rel, &n);
	for (row = strtok_r(man, "\n", &save); row; row = strtok_r(NULL, "\n", &save)) {
		char *cols[8] = { 0 }, *c, *csave = NULL, *fig, *fsave = NULL;
		struct timeline *tl;
		int ncol = 0, nth_process = 0;
		for (c = strtok_r(row, "\t", &csave); c && ncol < 8; c = strtok_r(NULL, "\t", &csave))
			cols[ncol++] = c;
		if (fig_col < 0) {   /* the header */
			for (fig_col = 0; fig_col < ncol && strcmp(cols[fig_col], "figures"); fig_col++)
				;
			assert_true(fig_col < ncol);
			continue;
		}
		if (fig_col >= ncol || !strstr(cols[fig_col], torch_prefix))
			continue;
		snprintf(rel, sizeof(rel), "tests/data/real/%s/%s", folder, cols[file_col]);
		tl = t_open();
		assert_true(parse_log(tl, rel) > 0);
		if (t_int(tl, "SELECT count(*) FROM event WHERE kind = 'torch_oom'") != 1)
			fail_msg("%s: %lld torch_oom events", rel,
				 (long long)t_int(tl, "SELECT count(*) FROM event WHERE kind = 'torch_oom'"));
		for (fig = strtok_r(cols[fig_col], ";", &fsave); fig; fig = strtok_r(NULL, ";", &fsave)) {
			char *eq = strchr(fig, '=');
			while (*fig == ' ')
				fig++;
			if (!eq)
				continue;
			*eq = 0;
			figures += check_figure(tl, rel, fig, eq + 1, &nth_process);
		}
		t_close(tl);
	}
	free(man);
	return figures;
}

/* The PyTorch OOM excerpts users pasted (tests/data/real/gpu_host: every
 * "tried=" row; serving: the torch_* figures of engine logs). */
static void real_torch_oom_excerpts(void **state)
{
	(void)state;
	assert_true(check_manifest("gpu_host", "tried=") >= 31 * 5);
	assert_true(check_manifest("serving", "torch_tried=") >= 5 * 5);
}
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(real_torch_oom_excerpts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

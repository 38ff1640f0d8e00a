/*
 * test_stats_table.c -- container, pod and node memory shown in pasted
 * `docker stats --no-stream` and `kubectl top` tables
 * (parsers/host/stats_table.c), one untimed cgroup.current_bytes sample
 * an entity a table, judged as one series an entity by the samples rule
 * (analyzer/rules/samples.c untimed_series).
 *
 * The real pastes are the healthy one-table ones of tests/data/real/
 * healthy (docker-py#2630, DanTup/dgx_dashboard#1, kubernetes/kubectl
 * #1198, ropensci/fishbaseapi#29: today's and docker 1.x's formats,
 * kubectl top pod --containers). The growing, flat and too-short series
 * are edge cases made of those real rows with the usage figure changed:
 * a flat series is no leak, two snapshots are no trend, and containers
 * are never mixed.
 */
#include "testutil.h"
#include "analyzer/rules/rules.h"
#include "parsers/host/stats_table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEALTHY "tests/data/real/healthy/"

/* DanTup/dgx_dashboard#1's ollama row, its usage replaced by use. */
static void docker_paste(char *buf, size_t n, const char *use)
{
	snprintf(buf, n,
		 "CONTAINER ID   NAME      CPU %%     MEM USAGE / LIMIT     MEM %%     NET I/O"
		 "           BLOCK I/O     PIDS\n"
		 "88f32688b78c   ollama    0.00%%     %s / 15.58GiB   16.52%%    1.92GB / 16.2MB"
		 "   0B / 1.89GB   40\n", use);
}

/* kubernetes/kubectl#1198's rows, the first container's figure use. */
static void kube_paste(char *buf, size_t n, const char *use)
{
	snprintf(buf, n,
		 "POD                         NAME          CPU(cores)   MEMORY(bytes)\n"
		 "repolite-5f9f6bb846-tx6mj   repolite      704m         %s\n"
		 "repolite-5f9f6bb846-tx6mj   stash         3m           86Mi\n", use);
}

/* The real one-table pastes: read, entities and figures as printed, no
 * finding and no OOM. */
static void healthy_tables(void **state)
{
	static const char *const files[] = {
		HEALTHY "docker-stats-no-stream-api-server-one-table.txt",
		HEALTHY "docker-stats-ollama-postgres-two-containers.txt",
		HEALTHY "kubectl-top-pod-containers-go-app-one-table.txt",
		HEALTHY "docker-stats-1x-five-containers-one-table.txt",
	};
	static const int rows[] = { 1, 2, 3, 5 };
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct timeline *tl = t_open();
		size_t n;
		char *text = t_slurp(files[i], &n);
		assert_int_equal(stats_table_sniff((const unsigned char *)text, n), 55);
		free(text);
		assert_int_equal(t_parse_file_as(tl, "stats_table", files[i]), rows[i]);
		assert_int_equal(analyze_timeline(tl, NULL), 0);
		assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE rule = 'samples'"), 0);
		assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "no_oom");
		if (i == 2) {   /* 1545Mi: kubectl's whole MiB */
			assert_true(t_real(tl, "SELECT s.value FROM sample s JOIN series r ON"
					   " r.id = s.series_id WHERE r.entity ="
					   " 'pod:repolite-5f9f6bb846-tx6mj/repolite'") ==
				    1545.0 * 1048576.0);
		}
		if (i == 3) {   /* docker 1.x: "41.16 MiB/994 MiB" */
			assert_true(t_real(tl, "SELECT s.value FROM sample s JOIN series r ON"
					   " r.id = s.series_id WHERE r.entity = 'container:fbapi'") ==
				    41.16 * 1048576.0);
		}
		t_close(tl);
	}
}

/* Three docker stats pastes of one container rising: one finding, said
 * per sample and untimed; the same paste three times: none; two: none. */
static void docker_series(void **state)
{
	static const char *const rising[] = { "2.575GiB", "5.102GiB", "9.871GiB" };
	struct timeline *tl = t_open();
	char buf[512], name[24];
	size_t i;
	(void)state;
	for (i = 0; i < 3; i++) {
		docker_paste(buf, sizeof(buf), rising[i]);
		snprintf(name, sizeof(name), "0%zu-docker-stats.txt", i + 1);
		assert_int_equal(t_parse_mem(tl, "stats_table", name, buf, 0), 1);
	}
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event"), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE rule = 'samples'"), 1);
	assert_non_null(strstr(t_text(tl, "SELECT title FROM finding WHERE rule = 'samples'"),
			       "Memory (in use container:ollama) rose over 3 pasted samples"));
	assert_non_null(strstr(t_text(tl, "SELECT title FROM finding WHERE rule = 'samples'"),
			       "order inferred from the file names"));
	t_close(tl);

	tl = t_open();
	for (i = 0; i < 3; i++) {
		docker_paste(buf, sizeof(buf), rising[0]);
		snprintf(name, sizeof(name), "0%zu-docker-stats.txt", i + 1);
		assert_int_equal(t_parse_mem(tl, "stats_table", name, buf, 0), 1);
	}
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE rule = 'samples'"), 0);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "no_oom");
	t_close(tl);

	tl = t_open();
	for (i = 0; i < 2; i++) {
		docker_paste(buf, sizeof(buf), rising[i]);
		snprintf(name, sizeof(name), "0%zu-docker-stats.txt", i + 1);
		assert_int_equal(t_parse_mem(tl, "stats_table", name, buf, 0), 1);
	}
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE rule = 'samples'"), 0);
	t_close(tl);
}

/* Three kubectl top pod --containers pastes: the rising container is
 * judged, the flat one beside it is not mixed in. */
static void kube_series(void **state)
{
	static const char *const rising[] = { "1545Mi", "2210Mi", "3391Mi" };
	struct timeline *tl = t_open();
	char buf[512], name[24];
	size_t i;
	(void)state;
	for (i = 0; i < 3; i++) {
		kube_paste(buf, sizeof(buf), rising[i]);
		snprintf(name, sizeof(name), "0%zu-kubectl-top.txt", i + 1);
		assert_int_equal(t_parse_mem(tl, "stats_table", name, buf, 0), 2);
	}
	assert_int_equal(t_int(tl, "SELECT count(*) FROM series WHERE name ="
			       " 'cgroup.current_bytes'"), 2);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE rule = 'samples'"), 1);
	assert_non_null(strstr(t_text(tl, "SELECT title FROM finding WHERE rule = 'samples'"),
			       "Memory (in use pod:repolite-5f9) rose over 3 pasted samples"));
	t_close(tl);
}

/* ROCm/legacy-rocm-build#1909's rocm-smi --showmeminfo vram, its used
 * figure changed: four rising pastes are the card's untimed series,
 * named as rocm-smi's (never nvidia-smi's); the real one-card paste alone
 * is a peak and no finding. */
static void rocm_series(void **state)
{
	static const char *const used[] = { "108814336", "1208814336", "2308814336",
					    "3408814336" };
	struct timeline *tl = t_open();
	char buf[512], name[24];
	size_t i;
	(void)state;
	for (i = 0; i < 4; i++) {
		snprintf(buf, sizeof(buf),
			 "============================= Memory Usage (Bytes) ===================="
			 "=========\n"
			 "GPU[0]          : VRAM Total Memory (B): 4278190080\n"
			 "GPU[0]          : VRAM Total Used Memory (B): %s\n", used[i]);
		snprintf(name, sizeof(name), "0%zu-rocm-smi.txt", i + 1);
		assert_int_equal(stats_table_sniff((const unsigned char *)buf, strlen(buf)), 55);
		assert_int_equal(t_parse_mem(tl, "stats_table", name, buf, 0), 2);
	}
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE rule = 'samples'"), 1);
	assert_non_null(strstr(t_text(tl, "SELECT title FROM finding WHERE rule = 'samples'"),
			       "Memory (rocm-smi amdgpu0) rose over 4 pasted samples"));
	t_close(tl);

	tl = t_open();
	assert_int_equal(t_parse_file_as(tl, "stats_table",
					 HEALTHY "rocm-smi-showmeminfo-vram-one-card.txt"), 2);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE rule = 'samples'"), 0);
	assert_true(t_real(tl, "SELECT bytes FROM peak LIMIT 1") == 108814336.0);
	t_close(tl);
}

/* What the sniffer leaves: a ps table, docker ps (no MEM USAGE), a
 * header with no row under it. */
static void sniff_negatives(void **state)
{
	size_t n;
	char *ps = t_slurp(HEALTHY "ps-aux-docs-three-processes.txt", &n);
	const char *dps =
		"CONTAINER ID   IMAGE                COMMAND                  CREATED         STATUS\n"
		"88f32688b78c   ollama/ollama        \"/bin/ollama serve\"      3 minutes ago   Up 3"
		" minutes\n";
	const char *bare = "NAME          CPU(cores)   MEMORY(bytes)\n\nno metrics yet\n";
	(void)state;
	assert_int_equal(stats_table_sniff((const unsigned char *)ps, n), 0);
	assert_int_equal(stats_table_sniff((const unsigned char *)dps, strlen(dps)), 0);
	assert_int_equal(stats_table_sniff((const unsigned char *)bare, strlen(bare)), 0);
	free(ps);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(healthy_tables),
		cmocka_unit_test(docker_series),
		cmocka_unit_test(kube_series),
		cmocka_unit_test(rocm_series),
		cmocka_unit_test(sniff_negatives),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * series_words.c -- the words for the memory series the trend rules read
 * (analyzer/derive/series.c's list), see series_words.h. "%s" in a
 * pattern is the entity; a pattern whose entity is a GPU ("gpu0") names
 * the card by its number.
 */
#include "lib/series_words.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct { const char *name, *words, *with_entity; } table[] = {
	{ "gpu.used_bytes", "the GPU's memory in use", "%s's memory in use" },
	{ "DCGM_FI_DEV_FB_USED", "the GPU's memory in use (DCGM)", "%s's memory in use (DCGM)" },
	{ "torch.allocated_bytes", "PyTorch's allocated memory", "PyTorch's allocated memory on %s" },
	{ "torch.reserved_bytes", "PyTorch's reserved memory", "PyTorch's reserved memory on %s" },
	{ "cuda.allocated_bytes", "CUDA memory allocated", "CUDA memory allocated on %s" },
	{ "proc.rss_bytes", "the process's resident memory", "the resident memory of %s" },
	{ "proc.anon_bytes", "the process's anonymous memory", "the anonymous memory of %s" },
	{ "cgroup.anon_bytes", "the cgroup's anonymous memory", "the cgroup's anonymous memory (%s)" },
	{ "cgroup.current_bytes", "the cgroup's memory in use", "the cgroup's memory in use (%s)" },
	{ "container_memory_working_set_bytes", "the container's working set",
	  "the container's working set (%s)" },
	{ "container_memory_rss", "the container's resident memory",
	  "the container's resident memory (%s)" },
	{ "process_resident_memory_bytes", "the process's resident memory",
	  "the process's resident memory (%s)" },
	{ "grafana.series", "a Grafana panel's series", "%s (a Grafana panel's series)" },
};

/* "gpu0" -> "GPU 0" into buf; 0, or -1 when entity is not that form. */
static int gpu_name(const char *entity, char *buf, size_t n)
{
	char *end;
	long v;

	if (strncmp(entity, "gpu", 3) || !entity[3])
		return -1;
	v = strtol(entity + 3, &end, 10);
	if (*end || v < 0 || v > 4096)
		return -1;
	snprintf(buf, n, "GPU %ld", v);
	return 0;
}

/* pattern with its one "%s" replaced by who, into buf[n]. */
static void splice(char *buf, size_t n, const char *pattern, const char *who)
{
	const char *at = strstr(pattern, "%s");

	if (!at)
		snprintf(buf, n, "%s", pattern);
	else
		snprintf(buf, n, "%.*s%s%s", (int)(at - pattern), pattern, who, at + 2);
}

const char *series_words(const char *name, const char *entity, char *buf, size_t n)
{
	char who[160];
	size_t i;
	int has = entity && *entity;

	if (!n)
		return buf;
	for (i = 0; name && i < sizeof(table) / sizeof(table[0]); i++) {
		if (strcmp(table[i].name, name))
			continue;
		if (!has) {
			snprintf(buf, n, "%s", table[i].words);
			return buf;
		}
		if (gpu_name(entity, who, sizeof(who)) < 0)
			snprintf(who, sizeof(who), "%s", entity);
		splice(buf, n, table[i].with_entity, who);
		return buf;
	}
	snprintf(buf, n, "%s%s%s", name ? name : "?", has ? " " : "", has ? entity : "");
	return buf;
}

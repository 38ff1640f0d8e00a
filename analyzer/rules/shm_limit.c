/*
 * shm_limit.c -- misconfiguration of a data loader's shared memory: the
 * memory failure of row 1 of table oom is PyTorch's DataLoader saying its
 * workers ran out of shared memory (event wording, parsers/serving/
 * memfail_words.c: "It is possible that dataloader's workers are out of
 * shared memory. Please try to raise your shared memory limit." when a
 * worker dies of SIGBUS, and the worker's own "This might be caused by
 * insufficient shared memory (shm)"; torch/csrc/DataLoader.cpp, 0.4
 * through 2.x).
 *
 * Each worker hands its batches to the training (or evaluation) process
 * through files in /dev/shm; when the tmpfs is full a write to a mapped
 * page raises SIGBUS. The room is set by where the program runs, not by
 * the model: a container's /dev/shm (Docker's 64 MB unless --shm-size or
 * --ipc=host; a Kubernetes pod's emptyDir of medium Memory), and what the
 * loader keeps in flight (num_workers x prefetch_factor batches, each
 * the batch's size). It answers to those settings in any phase, so the
 * class is misconfig whatever the step; the host's RAM and swap bound a
 * tmpfs too (a maintainer's "out of system RAM" is the same room seen
 * from the host). No figure is stated: the message says "possible", and
 * the finding says the reading is PyTorch's.
 */
#include "analyzer/rules/rulelib.h"

#include <stdio.h>
#include <string.h>

#define SHM_SCORE 0.7   /* PyTorch's own words name the room; no figure */

/* Row 1 of oom when its event is a data loader's shared-memory failure:
 * its phase into phase, its event id. 1 found, 0 not, -1 failed. */
static int read_oom(struct rule_ctx *c, char *phase, size_t n, int64_t *event_id)
{
	sqlite3_stmt *st = rl_prepare(c,
		"SELECT coalesce(o.phase, 'unknown'), o.event_id"
		" FROM oom o JOIN event e ON e.id = o.event_id"
		" WHERE o.id = 1 AND e.kind = 'mem_failure' AND json_valid(e.data)"
		" AND instr(json_extract(e.data, '$.wording'), 'shared memory') > 0");
	int r = 0;

	if (!st)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW) {
		snprintf(phase, n, "%s", (const char *)sqlite3_column_text(st, 0));
		*event_id = sqlite3_column_int64(st, 1);
		r = 1;
	}
	sqlite3_finalize(st);
	return c->failed ? -1 : r;
}

/* Writes one misconfig finding (cause shm_limit) when row 1 of oom is a
 * data loader's shared-memory failure. 1 written, 0 none, -1 failed. */
int rule_shm_limit(struct rule_ctx *c)
{
	struct rl_finding f;
	char phase[24];
	int64_t event_id = 0, fid;
	int r;

	if ((r = read_oom(c, phase, sizeof(phase), &event_id)) <= 0)
		return r;
	rl_finding_init(&f, "shm_limit", "misconfig", "shm_limit");
	f.score = SHM_SCORE;
	if (strcmp(phase, "unknown"))
		f.phase = phase;
	snprintf(f.title, sizeof(f.title), "The data loader's workers ran out of shared memory"
		 " (/dev/shm), by PyTorch's own words");
	rl_advice(&f, "A DataLoader worker died of a bus error, which PyTorch reads as its"
		  " shared memory running out: the batches the workers hand over live in"
		  " /dev/shm. Raise that room (docker run --shm-size=8g or --ipc=host; a"
		  " Kubernetes pod: an emptyDir of medium Memory mounted at /dev/shm; on a"
		  " host, more RAM or swap behind the tmpfs), or keep fewer batches in flight"
		  " (a smaller num_workers or prefetch_factor, a smaller batch).");
	rl_advice(&f, "PyTorch says it is possible, not certain: a worker's bus error from"
		  " another cause (a file mapped by the dataset and cut short) reads the same.");
	fid = rl_finding_write(c, &f);
	if (fid < 0 || rl_evidence(c, fid, "event", event_id, "PyTorch's DataLoader message:"
				   " a worker killed by a bus error, out of shared memory") < 0)
		return -1;
	return 1;
}

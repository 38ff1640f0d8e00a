/*
 * lsf_job.h -- IBM Spectrum LSF's job report: the mail (or -o file) LSF
 * writes when a batch job ends, read for a job LSF killed at its memory
 * limit.
 *
 * The report (IBM Spectrum LSF 10.1, "Termination reasons displayed by
 * bacct, bhist, and bjobs"; the same words close the job's output file):
 *   Sender: LSF System <lsfadmin@HOST>
 *   Subject: Job 8253410: <NAME> in cluster <C> Exited
 *   Job was executed on host(s) <HOST>, in queue <Q>, as user <U> ...
 *   Terminated at Mon Nov  2 17:41:43 2020
 *   ... the job script ("#BSUB -M 4G", "#BSUB -R "rusage[mem=1G]"") ...
 *   TERM_MEMLIMIT: job killed after reaching LSF memory usage limit.
 *   Exited with exit code 137.
 *   Resource usage summary:
 *       Max Memory :                                 1024 MB
 *       Total Requested Memory :                     1024.00 MB
 * TERM_MEMLIMIT (termination reason 16 in lsb.acct) is LSF's own word
 * that the job's processes together passed the memory limit (bsub -M, the
 * queue's MEMLIMIT; LSB_JOB_MEMLIMIT / LSB_MEMLIMIT_ENFORCE: LSF sends
 * SIGINT, SIGTERM, SIGKILL), as Slurm's oom-kill count is Slurm's; the
 * exit code 137 alone is a SIGKILL and says nothing of memory.
 *
 * Event: lsf_memlimit (docs/json.md), at "Terminated at" (a wall clock of
 * the cluster's zone: local unless --tz is given), with the job's id,
 * name, queue, host, exit code, the summary's Max Memory (max_bytes, the
 * event's bytes) and Total Requested Memory (request_bytes), the job
 * script's -M limit (limit_bytes) and rusage[mem=] request when its
 * summary has none. Sizes in the units LSF prints (KB, MB, GB, TB:
 * LSF_UNIT_FOR_LIMITS, powers of 1024). Nothing is sent for a report
 * whose reason is another one (TERM_RUNLIMIT, TERM_OWNER...).
 *
 * Known limit: detection looks at a file's head (formats.h DETECT_HEAD,
 * or DETECT_WIDE when nothing claims the head); a report closing a job
 * output longer than that is found only when the job's output itself
 * claims nothing, as for Slurm's lines at the end of a long stderr.
 */
#ifndef OOMLENS_LSF_JOB_H
#define OOMLENS_LSF_JOB_H

#include <stddef.h>
#include "parsers/common/sink.h"
#include "lib/input.h"

/* How sure (0..100) that head holds an LSF job report ending in
 * TERM_MEMLIMIT: 80 for the reason's line; a line log, so that the job's
 * own output above its report is read by the other line logs too. */
int lsf_job_sniff(const unsigned char *head, size_t n);

/* Read in into s: the records sent (0 or 1), or -1 when the sink failed. */
int lsf_job_parse(struct input *in, struct sink *s);

#endif

/*
 * wt_kmsg.c -- the kernel log follower: /dev/kmsg opened non-blocking at
 * its end (old messages are not read again), each record copied into
 * kmsg.log as `prio,seq,usec,flags;text` (the /dev/kmsg form the kernel
 * log reader takes, docs/formats.md), one write per record. A record's
 * dictionary lines (` KEY=value`) are dropped. The lines of an OOM-killer
 * report are written as OOM moments (never thinned) and raise the
 * context's kmsg_oom so the loop captures a burst.
 *
 * A reader that falls behind the kernel's ring gets EPIPE: the lost
 * records are skipped and reading goes on. Lines outside a report are
 * ordinary records: dropped, not thinned, once the byte bound is reached.
 */

#include "watch/wt_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void wt_kmsg_open(struct wt_ctx *c, const char *path)
{
	c->kmsg_oom = 0;
	c->kmsg_fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (c->kmsg_fd < 0) {
		fprintf(stderr, "oomlens: watch: cannot read %s (%s): kernel OOM reports will not"
			" be kept; the oom_kill counters still are\n", path, strerror(errno));
		return;
	}
	if (lseek(c->kmsg_fd, 0, SEEK_END) < 0) {
		/* a plain file given by a test: read it from the start */
		(void)lseek(c->kmsg_fd, 0, SEEK_SET);
	}
}

/* Whether the kernel text t[0..n) belongs to an OOM-killer report. The
 * report's first and last lines, and the memcg lines between, suffice:
 * the loop bursts on the first. */
static int oom_line(const char *t, size_t n)
{
	static const char *const marks[] = {
		"invoked oom-killer", "Killed process ", "oom-kill:", "Memory cgroup out of memory",
		"Out of memory", "oom_reaper: ", NULL
	};
	int i;

	for (i = 0; marks[i]; i++)
		if (memmem(t, n, marks[i], strlen(marks[i])))
			return 1;
	return 0;
}

int wt_kmsg_drain(struct wt_ctx *c)
{
	char rec[8192];
	ssize_t n;
	int records = 0;

	if (c->kmsg_fd < 0)
		return 0;
	while (records < 10000) {
		const char *semi, *nl;
		size_t len;

		n = read(c->kmsg_fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EPIPE)
			continue; /* records overwritten before we read them */
		if (n == 0)
			c->kmsg_eof = 1; /* /dev/kmsg never gives 0: a file's end */
		if (n <= 0)
			break;
		records++;
		/* one record per read from /dev/kmsg; a plain file may give
		 * many lines: keep whole lines only */
		len = (size_t)n;
		if (rec[len - 1] != '\n') {
			nl = memrchr(rec, '\n', len);
			if (!nl)
				continue;
			(void)lseek(c->kmsg_fd, (off_t)((nl + 1) - rec) - n, SEEK_CUR);
			len = (size_t)(nl + 1 - rec);
		}
		/* drop dictionary lines: a line starting with a blank after the first */
		nl = memchr(rec, '\n', len);
		if (nl && nl + 1 < rec + len && nl[1] == ' ')
			len = (size_t)(nl + 1 - rec);
		semi = memchr(rec, ';', len);
		int oom = semi && oom_line(semi, len - (size_t)(semi - rec));
		/* a report runs from its header to its kill line: every line
		 * between (call trace, memcg stats, task dump) is kept */
		if (oom) {
			c->kmsg_oom = 1;
			if (memmem(semi, len - (size_t)(semi - rec), "invoked oom-killer", 18))
				c->kmsg_in_report = 1;
		}
		if (wt_out_put(&c->out, WT_KMSG, rec, len, oom || c->kmsg_in_report) < 0)
			return -1;
		if (oom && semi && memmem(semi, len - (size_t)(semi - rec), "Killed process ", 15))
			c->kmsg_in_report = 0;
	}
	return 0;
}

void wt_kmsg_close(struct wt_ctx *c)
{
	if (c->kmsg_fd >= 0)
		close(c->kmsg_fd);
	c->kmsg_fd = -1;
}

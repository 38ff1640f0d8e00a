/*
 * fuzz_file.h -- the fuzz input as a file a reader opens by path, for the
 * harnesses whose readers read through a file descriptor (libelf,
 * libdwfl, a mapping). The bytes go to one scratch file per process,
 * made once with mkstemp under $TMPDIR (or /tmp) and unlinked at exit,
 * rewritten for each input: a real path, so the harness does not depend
 * on /proc/self/fd being mounted (a chroot, a sandbox without /proc).
 *
 * Included by one harness per binary (static functions, no state shared
 * between binaries).
 */
#ifndef OOMLENS_FUZZ_FILE_H
#define OOMLENS_FUZZ_FILE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char fuzz_file_path[4096];

static void fuzz_file_remove(void)
{
	if (fuzz_file_path[0])
		unlink(fuzz_file_path);
}

/* Write the n bytes at data to the process's scratch file, replacing what
 * it held. Its path, or NULL (no scratch file could be made or written:
 * the caller skips the input). */
static const char *fuzz_file(const unsigned char *data, size_t n)
{
	static int fd = -1;
	size_t done = 0;

	if (fd < 0) {
		const char *dir = getenv("TMPDIR");
		int len = snprintf(fuzz_file_path, sizeof(fuzz_file_path), "%s/oomlens-fuzz-XXXXXX",
				   dir && *dir ? dir : "/tmp");

		if (len < 0 || (size_t)len >= sizeof(fuzz_file_path))
			return NULL;
		fd = mkstemp(fuzz_file_path);
		if (fd < 0) {
			fuzz_file_path[0] = 0;
			return NULL;
		}
		atexit(fuzz_file_remove);
	}
	if (ftruncate(fd, 0) < 0)
		return NULL;
	while (done < n) {
		ssize_t w = pwrite(fd, data + done, n - done, (off_t)done);

		if (w <= 0)
			return NULL;
		done += (size_t)w;
	}
	return fuzz_file_path;
}

#endif

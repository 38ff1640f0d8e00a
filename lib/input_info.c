/*
 * input_info.c -- what the input layer tells about an artifact besides
 * its bytes (input.h): the kind of file a mode names, and whether the
 * file changed while it was read. Apart from input.c, which reads.
 */
#include "lib/input.h"

#include <stdio.h>
#include <sys/stat.h>

int input_changed(struct input *in, char *why, size_t n, int *lost)
{
	struct stat st;

	*lost = 0;
	if ((in->gz || in->arc) && in->gz_cut) {
		*lost = 1;
		snprintf(why, n, "the %s stream ends before its end (the file was cut or is"
			 " still being written): %llu bytes read before the cut",
			 in->gz ? "gzip" : "compressed", (unsigned long long)in->offset);
		return 1;
	}
	if (in->mem || in->fd < 0 || in->gz || in->arc || fstat(in->fd, &st) < 0)
		return 0;
	if ((uint64_t)st.st_size < in->size || (in->eof && in->fd_pos < in->size)) {
		*lost = 1;
		snprintf(why, n, "changed while read: %llu bytes at open, %llu now; what was"
			 " cut off is not read", (unsigned long long)in->size,
			 (unsigned long long)st.st_size);
		return 1;
	}
	if ((uint64_t)st.st_size > in->size) {
		snprintf(why, n, "changed while read: %llu bytes at open, %llu now; read up to"
			 " its size at open", (unsigned long long)in->size,
			 (unsigned long long)st.st_size);
		return 1;
	}
	if ((int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec != in->mtime_ns) {
		snprintf(why, n, "changed while read: written to after it was opened (same"
			 " size); what it says may mix old and new content");
		return 1;
	}
	return 0;
}

const char *input_file_type(unsigned mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG: return "a regular file";
	case S_IFDIR: return "a directory";
	case S_IFIFO: return "a FIFO (named pipe)";
	case S_IFSOCK: return "a socket";
	case S_IFCHR: return "a character device";
	case S_IFBLK: return "a block device";
	case S_IFLNK: return "a symbolic link";
	default: return "not a regular file";
	}
}

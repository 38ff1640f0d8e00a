/*
 * input_internal.h -- what the input layer's files (input.c, the bytes;
 * input_lines.c, the lines; input_hash.c, the whole hash) share and no
 * parser calls.
 */
#ifndef OOMLENS_INPUT_INTERNAL_H
#define OOMLENS_INPUT_INTERNAL_H

#include "lib/input.h"

/* Top the buffer up; returns bytes added, 0 at EOF, -1 on error. */
ssize_t input_fill(struct input *in);

/* Read up to n bytes from the source into dst, every byte that comes
 * also fed to the content hash: on the hash's own thread when later (the
 * bytes stay in the buffer until the next input_fill() waits for it) and
 * the input is large, else here. Bytes, 0 at EOF, -1 on error. */
ssize_t input_raw_read(struct input *in, unsigned char *dst, size_t n, int later);

/* input_getline() in full: a cut line's rest skipped, the buffer
 * refilled, a line too long cut, the last line without a newline. The
 * line reader an input starts with (in->next_line). */
int input_getline_any(struct input *in, const char **line, size_t *len);

#endif

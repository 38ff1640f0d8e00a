/*
 * kernel_oom.c -- placeholder: counts kill lines. Replaced by the full
 * parser (issue 2).
 */
#include "kernel_oom.h"

#include <string.h>

int kernel_oom_sniff(const unsigned char *head, size_t n)
{
	return memmem(head, n, "oom", 3) ? 50 : 0;
}

int kernel_oom_parse(struct input *in, struct sink *s)
{
	const char *line;
	size_t len;
	int n = 0;

	while (input_getline(in, &line, &len) == 1) {
		if (memmem(line, len, "Killed process", 14)) {
			struct ol_event e = { "oom_kill", ol_time_none(), OL_NULL, NULL, OL_NULL,
					      in->lineno, NULL, NULL };
			if (sink_event(s, &e) < 0)
				return -1;
			n++;
		}
	}
	return n;
}

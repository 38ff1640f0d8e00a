/*
 * formats.c -- the format table and content sniffing; see formats.h.
 */
#include "formats.h"
#include "../parsers/kernel_oom.h"
#include "../parsers/torch_snapshot.h"

#include <string.h>

const struct format formats[] = {
	{ "kernel_log", "kernel log with OOM-killer reports (dmesg, syslog, journalctl, kmsg)",
	  kernel_oom_sniff, kernel_oom_parse },
	{ "torch_snapshot", "PyTorch CUDA memory snapshot (pickle of torch.cuda.memory._snapshot())",
	  torch_snapshot_sniff, torch_snapshot_parse },
	{ "torch_snapshot_flat", "PyTorch memory snapshot in oomlens' flat JSON Lines form (oomlens convert)",
	  torch_flat_sniff, torch_flat_parse },
	{ NULL, NULL, NULL, NULL }
};

const struct format *detect_format(struct input *in)
{
	const struct format *f, *best = NULL;
	const unsigned char *head;
	size_t n;
	int score, best_score = 0;

	head = input_peek(in, DETECT_HEAD, &n);
	if (!n)
		return NULL;
	for (f = formats; f->kind; f++) {
		score = f->sniff(head, n);
		if (score > best_score) {
			best_score = score;
			best = f;
		}
	}
	return best;
}

const struct format *format_by_kind(const char *kind)
{
	const struct format *f;

	for (f = formats; f->kind; f++)
		if (!strcmp(f->kind, kind))
			return f;
	return NULL;
}

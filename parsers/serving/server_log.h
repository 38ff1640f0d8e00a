/*
 * server_log.h -- inference server logs (vLLM V0/V1, TGI, plain PyTorch
 * scripts): CUDA OOM errors, Python tracebacks, engine statistics lines
 * and the configuration stated at start-up.
 */
#ifndef OOMLENS_SERVER_LOG_H
#define OOMLENS_SERVER_LOG_H

#include <stddef.h>
#include "parsers/common/sink.h"
#include "lib/input.h"

int server_log_sniff(const unsigned char *head, size_t n);
/* 1 when the head is no log whatever it quotes: one of oomlens' own
 * reports, a table of tab-separated values (a manifest), reStructuredText
 * documentation. The sniff says 0 for these; the text fallback
 * (analyzer/ingest/formats.c) does not read them either. */
int server_log_not_a_log(const unsigned char *head, size_t n);
/* torch_oom and server_error events, server.* series (entity "vllm") and
 * server.* meta. Returns the number of records, or -1 when the sink
 * failed. */
int server_log_parse(struct input *in, struct sink *s);

#endif

/*
 * dcgm.h -- DCGM exporter scrapes (Prometheus text exposition of
 * DCGM_FI_DEV_FB_USED/FREE/TOTAL/RESERVED and DCGM_FI_DEV_GPU_UTIL),
 * one scrape or several separated by "### <iso> src=dcgm" lines.
 */
#ifndef OOMLENS_DCGM_H
#define OOMLENS_DCGM_H

#include <stddef.h>
#include "parsers/common/sink.h"
#include "lib/input.h"

/* How sure (0..100) that head (the first n bytes of a file) is a DCGM exporter scrape. */
int dcgm_sniff(const unsigned char *head, size_t n);
/* gpu.* series per GPU (entity gpuN from the gpu label) and meta
 * gpu.total_bytes.gpuN. Returns the number of samples, or -1. */
int dcgm_parse(struct input *in, struct sink *s);

#endif

/*
 * cuda_core.h -- CUDA GPU core dumps (.nvcudmp, ELF64 EM_CUDA ET_CORE),
 * plain or gzip-compressed, read with libelf. Format: docs/formats.md,
 * "CUDA core dumps".
 */
#ifndef OOMLENS_CUDA_CORE_H
#define OOMLENS_CUDA_CORE_H

#include <stddef.h>
#include <stdint.h>
#include "parsers/common/sink.h"
#include "parsers/cores/core_file.h"   /* cuda_core_gz_limit */
#include "lib/input.h"

/* 100 for an ELF64 little-endian ET_CORE with e_machine EM_CUDA, else 0. */
int cuda_core_sniff(const unsigned char *head, size_t n);
/* Read devices, contexts, modules, grids, exceptions and memory regions
 * into s (never the memory contents). Returns the number of records, or
 * -1 when the sink failed. What cannot be read becomes diagnostics. */
int cuda_core_parse(struct input *in, struct sink *s);

#endif

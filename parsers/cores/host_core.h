/*
 * host_core.h -- host process core dumps (ELF ET_CORE for the host CPU,
 * written by the kernel or by gdb's gcore), read with libdwfl: process,
 * signal, every thread's backtrace, mapped files and memory segments.
 */
#ifndef OOMLENS_HOST_CORE_H
#define OOMLENS_HOST_CORE_H

#include <stddef.h>
#include "parsers/common/sink.h"
#include "lib/input.h"

/* 100 for an ELF ET_CORE whose machine is not EM_CUDA, else 0. */
int host_core_sniff(const unsigned char *head, size_t n);
/* Read the core into s: a process_crash event, one thread row per thread
 * with its stack, and a "core" capture with one mapping per PT_LOAD
 * segment (file-backed ones named from NT_FILE). Returns the number of
 * records, or -1 when the sink failed. */
int host_core_parse(struct input *in, struct sink *s);

#endif

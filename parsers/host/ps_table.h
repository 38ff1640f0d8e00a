/*
 * ps_table.h -- process tables as ps(1) and top(1) print them, pasted to
 * show a process's resident memory: `ps aux` (USER PID %CPU %MEM VSZ RSS
 * ... COMMAND), `ps -o pid,rss,cmd`, `ps v`, and top's task area (PID
 * USER PR NI VIRT RES SHR S %CPU %MEM TIME+ COMMAND, under its summary
 * lines). Users paste one such table a time, minutes or hours apart, to
 * show a worker growing; each table is one sample a process.
 *
 * Records: a sample of proc.rss_bytes, entity pid:P, for each row, in
 * bytes (ps prints RSS in KiB, procps ps/output.c pr_rss; top prints RES
 * in KiB or with its scaling suffix k, m, g, t, p, procps top.c
 * scale_mem), with no time: ps and top print the process's START and
 * its CPU TIME, never the wall clock of the sample, so a folder's pastes
 * in name order, each table's rows in order, are the series (untimed;
 * analyzer/rules/samples.c). One series a pid, never two processes
 * mixed.
 */
#ifndef OOMLENS_PS_TABLE_H
#define OOMLENS_PS_TABLE_H

#include <stddef.h>
#include "parsers/common/sink.h"
#include "lib/input.h"

/* How sure (0..100) that head is a ps or top table: 55 when its first
 * line (after top's summary lines or a shell prompt running ps or top)
 * is a header naming PID and RSS or RES, and the next line is a row
 * whose PID is a number. */
int ps_table_sniff(const unsigned char *head, size_t n);

/* Read the tables into proc.rss_bytes samples. Returns the records
 * stored (>= 0), or -1 when the sink failed. */
int ps_table_parse(struct input *in, struct sink *s);

#endif

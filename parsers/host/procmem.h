/*
 * procmem.h -- a host's memory as collected copies of it show it: a
 * /proc/meminfo, /proc/buddyinfo or /proc/slabinfo file, and free(1)'s
 * output, as a support bundle (sosreport: proc/meminfo,
 * sos_commands/memory/free, proc/buddyinfo, proc/slabinfo) or a user
 * collects them. None carries a time: what they state is kept as meta,
 * the host's state when the bundle was collected.
 *
 * Records: meminfo: meta host.meminfo.<Field> (bytes; kB fields times
 * 1024, counts as they are), host.mem_total_bytes, host.swap_total_bytes;
 * free: meta host.free.<row>.<column> (bytes; free prints KiB unless -m,
 * -g or -h says otherwise, which the file cannot tell: a file whose Mem
 * total is under 16 M is read as MiB (free -m), under 256 as GiB (free
 * -g), and said so; -h's suffixed figures as they say),
 * host.mem_total_bytes, and one sample of host.mem_used_bytes (entity
 * host, untimed) for each table's Mem used: free -s N prints a table
 * every N seconds with no clock, and users paste several; buddyinfo: meta host.buddyinfo.<node>/<zone> (the
 * free blocks of each order, as printed); slabinfo: meta
 * host.slab_bytes.<cache> (num_objs x objsize) for the ten largest caches.
 */
#ifndef OOMLENS_PROCMEM_H
#define OOMLENS_PROCMEM_H

#include <stddef.h>
#include "parsers/common/sink.h"
#include "lib/input.h"

/* How sure (0..100) that head is each; each parse returns the records
 * stored (>= 0) or -1 when the sink failed. */
int meminfo_sniff(const unsigned char *head, size_t n);
int meminfo_parse(struct input *in, struct sink *s);
int free_out_sniff(const unsigned char *head, size_t n);
int free_out_parse(struct input *in, struct sink *s);
int buddyinfo_sniff(const unsigned char *head, size_t n);
int buddyinfo_parse(struct input *in, struct sink *s);
int slabinfo_sniff(const unsigned char *head, size_t n);
int slabinfo_parse(struct input *in, struct sink *s);

#endif

/*
 * sos.h -- the files of a sosreport (sos 3.x and 4.x, a tree or a
 * tarball walked by analyzer/ingest/archive.c) that say what the bundle
 * is and what it lacks, and the package lists that name the NVIDIA
 * driver and CUDA installed. The bundle's memory files (proc/meminfo,
 * free, buddyinfo, slabinfo) are parsers/host/procmem.h's, its dmesg and
 * logs the kernel and line-log parsers', its cgroup files cgroup.h's: all
 * told by content, so the same file read from a folder or a tarball is
 * the same artifact, with its path inside the bundle as provenance.
 *
 *   - version.txt ("sosreport: 4.0", then one "plugin: version" line per
 *     plugin run): meta sos.version, and an info diagnostic naming the
 *     plugins; never a kernel log.
 *   - sos_logs/sos.log: the collection's own log. Its ERROR and WARNING
 *     lines naming a plugin ("[plugin:nvidia] ..."), and the commands it
 *     says timed out or skipped, are evidence the bundle lacks: meta
 *     bundle.evidence_absent.<plugin> (the first such line) and an info
 *     diagnostic each.
 *   - package lists (sos_commands/dpkg/dpkg_-l, installed-rpms): the
 *     packages whose name holds "nvidia" or "cuda": meta
 *     host.package.<name> (the version), and cuda.driver_version from the
 *     driver package.
 */
#ifndef OOMLENS_SOS_H
#define OOMLENS_SOS_H

#include <stddef.h>
#include "parsers/common/sink.h"
#include "lib/input.h"

int sos_version_sniff(const unsigned char *head, size_t n);
int sos_version_parse(struct input *in, struct sink *s);
int sos_log_sniff(const unsigned char *head, size_t n);
int sos_log_parse(struct input *in, struct sink *s);
int pkg_list_sniff(const unsigned char *head, size_t n);
int pkg_list_parse(struct input *in, struct sink *s);

#endif

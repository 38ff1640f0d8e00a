/*
 * stats_table.h -- container and pod memory tables as `docker stats
 * --no-stream` and `kubectl top pod|node` print them, pasted to show a
 * container growing: one table a paste, minutes or hours apart, like ps
 * and top tables (parsers/host/ps_table.h).
 *
 * docker stats (docker/cli cli/command/container/formatter_stats.go
 * @v24.0.0): a header "CONTAINER ID  NAME  CPU %  MEM USAGE / LIMIT  MEM %
 * ..." (docker 1.x: "CONTAINER  CPU %  MEM USAGE/LIMIT ...", a custom
 * `--format "table {{.Name}}..."`: "NAME ... MEM USAGE / LIMIT"), each
 * row's usage as go-units BytesSize prints it ("%.4g" and a binary
 * suffix, B KiB MiB GiB TiB: "1.824MiB / 31.23GiB"; docker 1.x "41.16
 * MiB/994 MiB"). The usage is the container cgroup's less its page
 * cache (docs.docker.com stats reference).
 *
 * kubectl top (kubernetes staging/src/k8s.io/kubectl/pkg/metricsutil/
 * metrics_printer.go@v1.28.0): columns NAME CPU(cores) MEMORY(bytes), with
 * NAMESPACE first under -A and POD first under --containers; `top node`
 * adds CPU% / MEMORY% ("CPU(%)" / "MEMORY(%)" in later releases); each
 * memory figure is the working set in whole MiB ("%vMi").
 *
 * rocm-smi --showmeminfo vram (ROCm/rocm_smi_lib python_smi_tools/
 * rocm_smi.py@rocm-6.0.0): "GPU[N]\t\t: VRAM Total Used Memory (B): <bytes>"
 * and "VRAM Total Memory (B)": gpu.used_bytes and gpu.total_bytes samples,
 * entity amdgpuN, untimed (the untimed series' rocm-smi row).
 *
 * Records: a sample of cgroup.current_bytes a row, in bytes, entity
 * container:NAME, pod:NAME (pod:NS/NAME under -A, pod:POD/CONTAINER
 * under --containers) or node:NAME, with no time: neither tool prints the
 * sample's wall clock in its table, so a folder's pastes in name order
 * are the series (untimed; analyzer/rules/samples.c). One series an
 * entity, never two mixed.
 */
#ifndef OOMLENS_STATS_TABLE_H
#define OOMLENS_STATS_TABLE_H

#include <stddef.h>
#include "parsers/common/sink.h"
#include "lib/input.h"

/* How sure (0..100) that head is a docker stats or kubectl top table: 55
 * when one of its first 12 lines is such a header and the next non-blank
 * line is a row with a memory figure, or is a rocm-smi VRAM line. */
int stats_table_sniff(const unsigned char *head, size_t n);

/* Read the tables into cgroup.current_bytes samples. Returns the records
 * stored (>= 0), or -1 when the sink failed. */
int stats_table_parse(struct input *in, struct sink *s);

#endif

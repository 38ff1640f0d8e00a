/*
 * mustgather.h -- the files of a Kubernetes must-gather tree that say what
 * the tree is and what its collection lacks. The NVIDIA GPU operator's
 * must-gather (hack/must-gather.sh, also its OpenShift plugin image) lays
 * out one folder: gpu_operand_pod_<pod>.log (kubectl logs --all-containers
 * --prefix: the serving and kernel readers take the prefixes off),
 * gpu_operand_pod_<pod>.descr and gpu_nodes.descr (describe: k8s.h),
 * gpu_operand_pods.yaml (pod YAML: k8s.h), nvidia-bug-report_<node>.log.gz
 * (parsers/bundles/nvbug.h), and the two files read here:
 *
 *   - version ("NVIDIA GPU Operator", then the operator's version or
 *     "N/A"): meta bundle.kind and mustgather.gpu_operator_version;
 *   - must-gather.log (the script's own output): each thing it says it
 *     could not collect ("Failed to collect nvidia-bug-report from NODE",
 *     "Failed to save ...", "FATAL: could not find ...", "Mark the
 *     ClusterPolicy as missing") is an info diagnostic "evidence absent:
 *     must-gather ..." and meta bundle.evidence_absent.<what>.
 *
 * Every other file is told by its content, so the same tree read as a
 * folder or as a tarball gives the same artifacts; the path inside the
 * tree is each artifact's provenance.
 */
#ifndef OOMLENS_MUSTGATHER_H
#define OOMLENS_MUSTGATHER_H

#include <stddef.h>
#include "parsers/common/sink.h"
#include "lib/input.h"

int mg_version_sniff(const unsigned char *head, size_t n);
/* meta bundle.kind, mustgather.gpu_operator_version (unless "N/A").
 * Returns the records stored, or -1 when the sink failed. */
int mg_version_parse(struct input *in, struct sink *s);
int mg_log_sniff(const unsigned char *head, size_t n);
/* The evidence the collection says it lacks (see above). Returns the
 * records stored (meta rows), or -1 when the sink failed. */
int mg_log_parse(struct input *in, struct sink *s);

#endif

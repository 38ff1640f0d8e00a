/*
 * k8s.h -- what Kubernetes says about a container or pod that ran out of
 * memory, in the forms users paste: `kubectl describe pod` (State / Last
 * State: Terminated, Reason: OOMKilled, Exit Code: 137, Limits and
 * Requests, a pod's Reason: Evicted with its Message), the pod's YAML or
 * JSON (containerStatuses[].lastState.terminated, status.reason and
 * status.message), `kubectl get events` and the Events table of describe
 * (OOMKilling, SystemOOM, CgroupOOM, Evicted), and node-problem-detector's
 * event JSON. Wherever it sits in a text file; docs/formats.md has the
 * details.
 */
#ifndef OOMLENS_K8S_H
#define OOMLENS_K8S_H

#include <stddef.h>
#include "parsers/common/sink.h"
#include "lib/input.h"

/* How sure (0..100) that head (the first n bytes of a file) holds
 * Kubernetes output about an OOM kill or an eviction. */
int k8s_sniff(const unsigned char *head, size_t n);
/* k8s_oom_kill and k8s_eviction events, and the OOM-killed container's
 * memory limit as meta cgroup.max_bytes (k8s.memory_request_bytes, and
 * k8s.memory_limit_bytes.<container> for each container with a limit).
 * Returns the number of records, or -1 when the sink failed. */
int k8s_parse(struct input *in, struct sink *s);

#endif

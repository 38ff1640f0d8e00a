#!/bin/sh
# t_real_gpu_host.sh OOMLENS SRCDIR -- the GPU and host excerpts users
# pasted (tests/data/real/gpu_host: nvidia-smi, DCGM, Xid, kernel OOM,
# Kubernetes, earlyoom, systemd-oomd, Slurm, PyTorch, NCCL, cuBLAS): every
# file read and every figure of MANIFEST.tsv found (tests/real_corpus.py,
# tests/real_gpu_host.py). Fails on any failed figure; files read by a
# parser not in this build are reported as pending. Exit 77 (skipped)
# when python3 is missing.
set -eu
oomlens=$1
src=$2
command -v python3 >/dev/null || { echo "SKIP t_real_gpu_host: python3 missing"; exit 77; }
out=$(python3 "$src/tests/real_corpus.py" "$oomlens" "$src" --only gpu_host) || {
	echo "$out"
	exit 1
}
echo "$out" | tail -n 3
last=$(echo "$out" | tail -n 1)
case "$last" in
*" passed, 0 failed") exit 0 ;;
*) echo "unexpected summary: $last"; exit 1 ;;
esac

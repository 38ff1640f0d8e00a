#!/usr/bin/env python3
"""gen_whatif.py -- write the allocator snapshots of tests/data/whatif/ with
CPython's own pickler, deterministically, for tests/test_whatif.c.

Each trace is written by hand as PyTorch's CUDA caching allocator logs it,
so its segment events follow from the allocator's documented rules (see
docs/rules.md, "What-if replay"), not from a second implementation:

  frag_oom.p4.pickle   four 20 MiB requests (large pool, >= 10 MiB: a 2 MiB
                       rounded segment each), all freed, then four 15 MiB
                       requests: each splits a cached 20 MiB block (more than
                       1 MiB is left), leaving 5 MiB free in every segment.
                       A 20 MiB request then finds no cached block, the device
                       has 15 MiB free (capacity 95 MiB) and nothing unsplit
                       is cached to release: oom. 80 MiB reserved, 60 MiB
                       allocated.
  empty_cache.p4.pickle  a small-pool request (2 MiB segment), 5 MiB twice out
                       of one 20 MiB segment, everything freed, then
                       torch.cuda.empty_cache() (both segments released, in
                       the order the allocator walks its pools: large, then
                       small), then 5 MiB again (a new 20 MiB segment).

usage: python3 tests/data/whatif/gen_whatif.py [OUTDIR]  (default: its folder)
"""
import os
import pickle
import sys

MiB = 1024 * 1024
T0 = 1_800_000_000_000_000  # time_us of the first entry
BASE = 0x7F5000000000

SETTINGS = {"PYTORCH_CUDA_ALLOC_CONF": "", "max_split_size": -1, "garbage_collection_threshold": 0.0,
            "expandable_segments": False, "pinned_num_register_threads": 1,
            "release_lock_on_cudamalloc": False, "pinned_use_cuda_host_register": False,
            "roundup_power2_divisions": {str(1 << i): 0 for i in range(16)}}
FRAMES = [{"filename": "/srv/app/model.py", "line": 41, "name": "forward"}]


class Trace:
    def __init__(self):
        self.entries = []

    def add(self, action, addr, size, **extra):
        e = {"action": action}
        if action == "oom":
            e["device_free"] = extra.pop("device_free")
        else:
            e["addr"] = addr
        e["size"] = size
        e["stream"] = 0
        e["time_us"] = T0 + 1000 * len(self.entries)
        if action in ("alloc", "free_requested", "free_completed", "oom"):
            e["frames"] = FRAMES
        self.entries.append(e)

    def free(self, addr, size):
        self.add("free_requested", addr, size)
        self.add("free_completed", addr, size)


def segment(addr, blocks, small=False):
    """A segment dict from (size, requested or None for inactive) blocks."""
    out, at = [], addr
    for size, req in blocks:
        out.append({"address": at, "size": size, "requested_size": req or 0,
                    "state": "active_allocated" if req else "inactive",
                    "frames": FRAMES if req else []})
        at += size
    alloc = sum(b["size"] for b in out if b["state"] != "inactive")
    return {"device": 0, "address": addr, "total_size": at - addr, "allocated_size": alloc,
            "active_size": alloc, "requested_size": sum(b["requested_size"] for b in out),
            "stream": 0, "segment_type": "small" if small else "large",
            "segment_pool_id": (0, 0), "is_expandable": False, "frames": [], "blocks": out}


def snapshot(segs, trace):
    return {"segments": segs, "device_traces": [trace.entries],
            "allocator_settings": SETTINGS, "external_annotations": []}


def frag_oom():
    t = Trace()
    seg = [BASE + i * 0x10000000 for i in range(4)]
    for a in seg:
        t.add("segment_alloc", a, 20 * MiB)
        t.add("alloc", a, 20 * MiB)
    for a in seg:
        t.free(a, 20 * MiB)
    for a in seg:      # best fit among equal cached blocks: the lowest address
        t.add("alloc", a, 15 * MiB)
    t.add("oom", None, 20 * MiB, device_free=15 * MiB)
    return snapshot([segment(a, [(15 * MiB, 15 * MiB), (5 * MiB, None)]) for a in seg], t)


def empty_cache():
    t = Trace()
    small, large, again = BASE, BASE + 0x10000000, BASE + 0x20000000
    t.add("segment_alloc", small, 2 * MiB)
    t.add("alloc", small, 1000)
    t.add("segment_alloc", large, 20 * MiB)
    t.add("alloc", large, 5 * MiB)
    t.add("alloc", large + 5 * MiB, 5 * MiB)
    t.free(small, 1000)
    t.free(large, 5 * MiB)
    t.free(large + 5 * MiB, 5 * MiB)
    t.add("segment_free", large, 20 * MiB)
    t.add("segment_free", small, 2 * MiB)
    t.add("segment_alloc", again, 20 * MiB)
    t.add("alloc", again, 5 * MiB)
    return snapshot([segment(again, [(5 * MiB, 5 * MiB), (15 * MiB, None)])], t)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    for name, snap in (("frag_oom.p4.pickle", frag_oom()), ("empty_cache.p4.pickle", empty_cache())):
        with open(os.path.join(out, name), "wb") as f:
            pickle.dump(snap, f, protocol=4)


if __name__ == "__main__":
    main()

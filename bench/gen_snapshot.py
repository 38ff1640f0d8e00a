#!/usr/bin/env python3
"""gen_snapshot.py N OUT -- write a large, realistic PyTorch memory snapshot
pickle (protocol 4) with N trace entries, streaming the pickle bytes directly
(so that memory stays small) in the exact opcode shapes CPython's C pickler
emits for torch.cuda.memory._snapshot(): framed, memoized keys and shared
frame lists fetched with BINGET/LONG_BINGET, entry dicts as EMPTY_DICT
MEMOIZE MARK ... SETITEMS, lists appended in batches of 1000.

Deterministic: the same N gives the same bytes. Used by bench_snapshot.sh.
"""
import struct
import sys

N = int(sys.argv[1])
OUT = sys.argv[2]
T0 = 1_700_000_000_000_000
BASE = 0x7F0000000000


class W:
    def __init__(self, f):
        self.f = f
        self.buf = []
        self.size = 0
        self.memo = 0

    def put(self, b):
        self.buf.append(b)
        self.size += len(b)
        if self.size >= 65536:
            self.flush()

    def flush(self):
        if self.size:
            data = b"".join(self.buf)
            self.f.write(b"\x95" + struct.pack("<Q", len(data)) + data)
        self.buf, self.size = [], 0

    def memoize(self):
        self.put(b"\x94")
        self.memo += 1
        return self.memo - 1


def get(i):
    return b"h" + bytes([i]) if i < 256 else b"j" + struct.pack("<I", i)


def sstr(s):
    b = s.encode()
    if len(b) < 256:
        return b"\x8c" + bytes([len(b)]) + b
    return b"X" + struct.pack("<I", len(b)) + b


def pint(v):
    if 0 <= v < 256:
        return b"K" + bytes([v])
    if 0 <= v < 65536:
        return b"M" + struct.pack("<H", v)
    if -2**31 <= v < 2**31:
        return b"J" + struct.pack("<i", v)
    n = (v.bit_length() + 8) // 8
    return b"\x8a" + bytes([n]) + v.to_bytes(n, "little", signed=True)


def main():
    f = open(OUT, "wb")
    f.write(b"\x80\x04")
    w = W(f)
    keys = {}

    def key(k):
        if k in keys:
            w.put(get(keys[k]))
        else:
            w.put(sstr(k))
            keys[k] = w.memoize()

    w.put(b"}")
    w.memoize()
    w.put(b"(")
    # segments: 200 segments of 20 MiB with 4 blocks each
    key("segments")
    w.put(b"]")
    w.memoize()
    w.put(b"(")
    for s in range(200):
        w.put(b"}")
        w.memoize()
        w.put(b"(")
        addr = BASE + s * 20 * 2**20
        for k, v in (("device", 0), ("address", addr), ("total_size", 20 * 2**20),
                     ("allocated_size", 4 * 2**20), ("active_size", 4 * 2**20),
                     ("requested_size", 4 * 2**20), ("stream", 0)):
            key(k)
            w.put(pint(v))
        key("segment_type"); key("large") if "large" in keys else (w.put(sstr("large")), keys.__setitem__("large", w.memoize()))
        key("segment_pool_id"); w.put(b"K\x00K\x00\x86"); w.memoize()
        key("is_expandable"); w.put(b"\x89")
        key("frames"); w.put(b"]"); w.memoize()
        key("blocks"); w.put(b"]"); w.memoize(); w.put(b"(")
        for b in range(4):
            w.put(b"}"); w.memoize(); w.put(b"(")
            key("address"); w.put(pint(addr + b * 5 * 2**20))
            key("size"); w.put(pint(5 * 2**20))
            key("requested_size"); w.put(pint(2**20 if b == 0 else 0))
            key("state"); key("active_allocated" if b == 0 else "inactive") if ("active_allocated" if b == 0 else "inactive") in keys else (w.put(sstr("active_allocated" if b == 0 else "inactive")), keys.__setitem__("active_allocated" if b == 0 else "inactive", w.memoize()))
            key("frames"); w.put(b"]"); w.memoize()
            w.put(b"u")
        w.put(b"e")
        w.put(b"u")
        if s % 1000 == 999:
            w.put(b"e(")
    w.put(b"e")
    # the trace
    key("device_traces")
    w.put(b"]")
    w.memoize()
    w.put(b"]")
    w.memoize()
    w.put(b"(")
    stacks = {}          # memo index of each distinct frames list
    frames = {}          # memo index of each distinct frame dict
    empty = None
    live = []
    nlive = 0
    inbatch = 0
    for i in range(N):
        r = (i * 2654435761) % 1000
        if live and (r < 480 or len(live) > 50000):
            a, size, st = live.pop((i * 7919) % len(live))
            action = "free_requested" if i % 2 == 0 else "free_completed"
            if action == "free_requested":
                live.append((a, size, st))   # completed later
                action = "free_completed"
        else:
            a = BASE + ((i * 40503) % 200000) * 4096
            size = 512 * (1 + (i * 31) % 4096)
            st = (i * 17) % 300
            live.append((a, size, st))
            action = "alloc"
        w.put(b"}")
        w.memoize()
        w.put(b"(")
        key("action"); key(action) if action in keys else (w.put(sstr(action)), keys.__setitem__(action, w.memoize()))
        key("addr"); w.put(pint(a))
        key("size"); w.put(pint(size))
        key("stream"); w.put(b"K\x00")
        key("frames")
        if st in stacks:
            w.put(get(stacks[st]))
        else:
            if True:
                k = st
                w.put(b"]"); idx = w.memoize(); w.put(b"(")
                for d in range(12):
                    fk = (k * 5 + d * 3) % 400 if d < 4 else 400 + d
                    if fk in frames:
                        w.put(get(frames[fk]))
                    else:
                        w.put(b"}"); frames[fk] = w.memoize(); w.put(b"(")
                        key("filename"); w.put(sstr("/usr/lib/python3.11/site-packages/vllm/model_executor/layers/mod%d.py" % fk)); w.memoize()
                        key("line"); w.put(pint(10 + fk))
                        key("name"); w.put(sstr("forward_%d" % fk)); w.memoize()
                        w.put(b"u")
                w.put(b"e")
                stacks[st] = idx
        key("time_us"); w.put(pint(T0 + i * 37))
        key("compile_context"); w.put(sstr("N/A")); w.memoize()
        key("user_metadata")
        if empty is None:
            w.put(sstr("")); empty = w.memoize()
        else:
            w.put(get(empty))
        w.put(b"u")
        inbatch += 1
        if inbatch == 1000:
            w.put(b"e(")
            inbatch = 0
    w.put(b"e")        # device 0's list
    w.put(b"a")        # into device_traces
    key("allocator_settings")
    w.put(b"}"); w.memoize(); w.put(b"(")
    key("PYTORCH_CUDA_ALLOC_CONF"); w.put(sstr("expandable_segments:False")); w.memoize()
    key("max_split_size"); w.put(pint(-1))
    key("garbage_collection_threshold"); w.put(b"G" + struct.pack(">d", 0.0))
    key("expandable_segments"); w.put(b"\x89")
    w.put(b"u")
    w.put(b"u.")
    w.flush()
    f.close()


main()

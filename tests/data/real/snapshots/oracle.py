#!/usr/bin/env python3
"""Independent oracle for real PyTorch CUDA memory snapshots.

Reads each snapshot listed in MANIFEST.tsv with a restricted unpickler (no
class is ever resolved: a snapshot holds only dicts, lists, tuples, str, int,
float, bool and None) and computes the figures a careful reader sees in it.
README.md beside this file defines every figure.  Standard library only.

  oracle.py                 print the figures of every snapshot found
  oracle.py --check         compare them with MANIFEST.tsv and FIGURES.json;
                            prints "N passed, M failed" (missing files skip)
  oracle.py --write         rewrite the figures column and FIGURES.json
  oracle.py --detail FILE   print the full JSON figures of one snapshot
  --dir DIR                 where the pickles are (default: files/ beside this
                            script, else $OOMLENS_REAL_SNAPSHOTS)
"""
import argparse
import hashlib
import io
import json
import os
import pickle
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MANIFEST = os.path.join(HERE, "MANIFEST.tsv")
FIGURES = os.path.join(HERE, "FIGURES.json")
TOP_N = 5


class RestrictedUnpickler(pickle.Unpickler):
    """Refuses every global and persistent id: plain data only."""

    def find_class(self, module, name):
        raise pickle.UnpicklingError(f"refused global {module}.{name}")

    def persistent_load(self, pid):
        raise pickle.UnpicklingError("refused persistent id")


def load(path):
    """Returns (snapshot dict, form, protocol); form is 'dict' or 'list'."""
    with open(path, "rb") as f:
        raw = f.read()
    if len(raw) < 2 or raw[0] != 0x80:
        raise ValueError("not a pickle with a PROTO header")
    data = RestrictedUnpickler(io.BytesIO(raw)).load()
    if isinstance(data, list):
        return {"segments": data, "device_traces": []}, "list", raw[1]
    if not isinstance(data, dict) or "segments" not in data:
        raise ValueError("not a memory snapshot (no segments)")
    return data, "dict", raw[1]


# ---- frames -------------------------------------------------------------

_TORCH = re.compile(r"(^|/)((site|dist)-packages/torch|pytorch/torch|torch)/")
_RUNTIME = [
    re.compile(r"/lib/python\d+(\.\d+)?t?/(?!(site|dist)-packages/)"),
    re.compile(r"(?i)/c?python[^/]*/lib/(?!(site|dist)-packages/)"),
    re.compile(r"(?i)/(envs/[^/]+|miniconda3|anaconda3|miniforge3)/lib/"
               r"(?!(site|dist)-packages/|python)"),
]


def _norm(filename):
    return filename.replace("\\", "/")


def is_python(frame):
    """A Python frame: a .py file, or exec'd code such as <string>."""
    fn = frame.get("filename", "")
    return fn.lower().endswith(".py") or (fn.startswith("<") and fn.endswith(">"))


def is_torch(frame):
    fn = _norm(frame.get("filename", ""))
    return bool(_TORCH.search(fn))


def is_runtime(frame):
    fn = _norm(frame.get("filename", ""))
    if fn.startswith("<frozen"):
        return True
    return any(p.search(fn) for p in _RUNTIME)


def user_frame(frames):
    """First (innermost) Python frame outside torch and the runtime, or None."""
    for f in frames or ():
        if is_python(f) and not is_torch(f) and not is_runtime(f):
            return f
    return None


def frame_str(f):
    if f is None:
        return None
    return f"{f.get('filename')}:{f.get('line')} {f.get('name')}"


def stack_key(frames):
    if not frames:
        return None
    return tuple((f.get("filename"), f.get("line"), f.get("name")) for f in frames)


def has_cpp(frames):
    return any(not is_python(f) for f in frames or ())


# ---- blocks and traces --------------------------------------------------

def blocks_of(snap):
    """Yields (device, segment, block, address, stack, stack_source)."""
    for seg in snap["segments"]:
        addr = seg.get("address", 0)
        for b in seg.get("blocks", []):
            baddr = b.get("address", addr)
            if "frames" in b:
                stack, src = b["frames"], "frames"
            elif b.get("history"):
                stack, src = b["history"][0].get("frames"), "history"
            else:
                stack, src = None, "none"
            yield seg.get("device", 0), seg, b, baddr, stack, src
            addr = baddr + b.get("size", 0)


def open_allocs(trace):
    """addr -> alloc event for allocations the trace never frees."""
    live = {}
    for e in trace:
        a = e.get("action")
        if a == "alloc":
            live[e.get("addr")] = e
        elif a in ("free_completed", "free"):
            live.pop(e.get("addr"), None)
    return live


class Holders:
    """Live bytes grouped by allocation stack."""

    def __init__(self):
        self.groups = {}

    def add(self, frames, size, requested, kind="stack"):
        key = (kind, stack_key(frames))
        g = self.groups.get(key)
        if g is None:
            uf = user_frame(frames)
            g = self.groups[key] = {
                "kind": kind if frames else ("no_stack" if kind == "stack" else kind),
                "bytes": 0, "requested": 0, "allocations": 0, "largest": 0,
                "frame": frame_str(uf),
                "frames": len(frames or ()),
                "cpp_only": bool(frames) and not any(is_python(f) for f in frames),
            }
        g["bytes"] += size
        g["requested"] += requested
        g["allocations"] += 1
        g["largest"] = max(g["largest"], size)

    def ranked(self):
        return sorted(self.groups.values(),
                      key=lambda g: (-g["bytes"], -g["allocations"], str(g["frame"])))

    def by_user_frame(self):
        agg = {}
        for g in self.groups.values():
            k = (g["kind"], g["frame"])
            a = agg.setdefault(k, {"kind": g["kind"], "frame": g["frame"],
                                   "bytes": 0, "allocations": 0, "stacks": 0})
            a["bytes"] += g["bytes"]
            a["allocations"] += g["allocations"]
            a["stacks"] += 1
        return sorted(agg.values(), key=lambda a: (-a["bytes"], -a["allocations"], str(a["frame"])))


def timeline(snap, device, trace):
    """Active Memory Timeline of one device, as MemoryViz builds it.

    Returns a dict with initial, peak, peak_index (-1 = before the first
    event), final, and the holders live at the peak and at the first OOM.
    """
    elements = []          # (size, frames, kind)
    actions = []           # (trace index, element id, +1 / -1)
    initial = []
    live = {}
    oom_index = None
    for i, e in enumerate(trace):
        a = e.get("action")
        if a == "alloc":
            elements.append((e.get("size", 0), e.get("frames"), "stack"))
            live[e.get("addr")] = len(elements) - 1
            actions.append((i, len(elements) - 1, +1))
        elif a in ("free_completed", "free"):
            eid = live.pop(e.get("addr"), None)
            if eid is None:
                elements.append((e.get("size", 0), None, "alloc_not_in_trace"))
                eid = len(elements) - 1
                initial.append(eid)
            actions.append((i, eid, -1))
        elif a == "oom" and oom_index is None:
            oom_index = i
    for dev, seg, b, addr, stack, _src in blocks_of(snap):
        if dev == device and b.get("state") == "active_allocated" and addr not in live:
            elements.append((b.get("requested_size", b.get("size", 0)), stack, "stack"))
            initial.append(len(elements) - 1)

    total = sum(elements[k][0] for k in initial)
    peak, peak_index = total, -1
    for i, eid, sign in actions:
        total += sign * elements[eid][0]
        if total > peak:
            peak, peak_index = total, i

    def holders_at(index, inclusive):
        alive = set(initial)
        for i, eid, sign in actions:
            if i > index or (i == index and not inclusive):
                break
            if sign > 0:
                alive.add(eid)
            else:
                alive.discard(eid)
        h = Holders()
        for eid in alive:
            size, frames, kind = elements[eid]
            h.add(frames, size, size, kind)
        return h, sum(elements[k][0] for k in alive)

    out = {"initial": sum(elements[k][0] for k in initial), "peak": peak,
           "peak_index": peak_index, "final": total,
           "peak_time_us": trace[peak_index].get("time_us") if peak_index >= 0 else None}
    out["at_peak"] = holders_at(peak_index, True)[0]
    if oom_index is not None:
        h, live_bytes = holders_at(oom_index, False)
        e = trace[oom_index]
        out["oom"] = {"index": oom_index, "size": e.get("size"),
                      "device_free": e.get("device_free"), "live": live_bytes,
                      "holders": h}
    return out


def trace_net(trace):
    """_memory_viz.py trace(): a counter from 0, alloc +size, free_completed -size."""
    count, top = 0, 0
    for e in trace:
        if e.get("action") == "alloc":
            count += e.get("size", 0)
        elif e.get("action") == "free_completed":
            count -= e.get("size", 0)
        top = max(top, count)
    return top, count


# ---- version fingerprint ------------------------------------------------

def infer_version(snap, form, blocks, events):
    hist = any("history" in b for b in blocks)
    baddr = any("address" in b for b in blocks)
    keys = set(k for e in events for k in e)
    settings = snap.get("allocator_settings")
    if form == "list":
        return "1.13-2.0 (list)" if hist else (">=2.1 (list)" if baddr else "unknown (list)")
    if hist:
        return "2.0.x"
    if "user_metadata" in keys:
        return ">=2.10"
    if "compile_context" in keys:
        return "2.8-2.9" if "graph_capture_record_stream_reuse" not in (settings or {}) else "2.9"
    if "external_annotations" in snap:
        return "2.5-2.7" if events else ">=2.5"
    if settings is not None:
        return "2.3-2.4"
    if "time_us" in keys:
        return "2.2.x"
    if events:
        return "2.1.x"
    return "2.1-2.2" if baddr else "unknown"


# ---- figures ------------------------------------------------------------

def holder_row(g):
    return {k: g[k] for k in ("kind", "bytes", "requested", "allocations", "largest",
                              "frame", "frames", "cpp_only") if k in g}


def figures(path):
    snap, form, proto = load(path)
    allb = list(blocks_of(snap))
    blocks = [b for _d, _s, b, _a, _st, _src in allb]
    traces = snap.get("device_traces") or []
    events = [e for t in traces for e in t]
    segs = snap["segments"]
    live = [x for x in allb if x[2].get("state") == "active_allocated"]
    opened = {}
    for dev, t in enumerate(traces):
        for addr, e in open_allocs(t).items():
            opened[(dev, addr)] = e

    holders, by_dev = Holders(), {}
    from_trace = 0
    for dev, seg, b, addr, stack, src in live:
        if not stack and (dev, addr) in opened and opened[(dev, addr)].get("frames"):
            stack = opened[(dev, addr)]["frames"]
            from_trace += 1
        holders.add(stack, b.get("size", 0), b.get("requested_size", 0))
        by_dev.setdefault(dev, Holders()).add(stack, b.get("size", 0), b.get("requested_size", 0))

    actions = {}
    for e in events:
        actions[e.get("action")] = actions.get(e.get("action"), 0) + 1
    all_frames = [f for x in allb for f in (x[4] or ())] + \
                 [f for e in events for f in e.get("frames", ())]
    timed = [e for e in events if "time_us" in e]
    pools = {}
    for s in segs:
        pid = tuple(s.get("segment_pool_id", ()))
        p = pools.setdefault(str(pid) if pid else "none", {"segments": 0, "reserved": 0, "allocated": 0})
        p["segments"] += 1
        p["reserved"] += s.get("total_size", 0)
        p["allocated"] += sum(b.get("size", 0) for b in s.get("blocks", [])
                              if b.get("state") == "active_allocated")
    settings = snap.get("allocator_settings")
    fig = {
        "form": form, "protocol": proto,
        "top_keys": sorted(snap.keys()),
        "version": infer_version(snap, form, blocks, events),
        "segments": len(segs),
        "devices": sorted(set(s.get("device", 0) for s in segs)),
        "reserved": sum(s.get("total_size", 0) for s in segs),
        "allocated": sum(b.get("size", 0) for _d, _s, b, *_ in live),
        "requested": sum(b.get("requested_size", 0) for _d, _s, b, *_ in live),
        "segments_allocated_size": sum(s.get("allocated_size", 0) for s in segs),
        "live_blocks": len(live),
        "pending_free_blocks": sum(1 for b in blocks if b.get("state") in
                                   ("active_pending_free", "active_awaiting_free")),
        "pending_free": sum(b.get("size", 0) for b in blocks if b.get("state") in
                            ("active_pending_free", "active_awaiting_free")),
        "inactive": sum(b.get("size", 0) for b in blocks if b.get("state") == "inactive"),
        "pools": pools,
        "expandable_segments": sum(1 for s in segs if s.get("is_expandable")),
        "block_stack_field": sorted(set(x[5] for x in allb)),
        "live_blocks_with_stack": sum(1 for x in live if x[4]),
        "live_blocks_stack_from_trace": from_trace,
        "live_blocks_not_in_trace": sum(1 for dev, _s, _b, addr, *_ in live
                                        if (dev, addr) not in opened),
        "trace_events": [len(t) for t in traces],
        "actions": dict(sorted(actions.items())),
        "trace_events_with_frames": sum(1 for e in events if "frames" in e),
        "time_us": "none" if not timed else ("all" if len(timed) == len(events) else "some"),
        "trace_span_s": round((timed[-1]["time_us"] - timed[0]["time_us"]) / 1e6, 6) if timed else None,
        "cpp_frames": has_cpp(all_frames),
        "python_frames": any(is_python(f) for f in all_frames),
        "external_annotations": len(snap.get("external_annotations", [])) if "external_annotations" in snap else None,
        "allocator_settings": None if settings is None else {
            k: settings.get(k) for k in ("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments",
                                         "max_split_size", "garbage_collection_threshold")},
        "holders": [holder_row(g) for g in holders.ranked()[:TOP_N]],
        "holders_count": len(holders.groups),
        "holders_by_user_frame": holders.by_user_frame()[:TOP_N],
        "top_holder_by_device": {str(d): holder_row(h.ranked()[0]) for d, h in sorted(by_dev.items())},
        "devices_traced": {},
    }
    for dev, t in enumerate(traces):
        if not any(e.get("action") in ("alloc", "free_completed", "free") for e in t):
            continue
        tl = timeline(snap, dev, t)
        net_top, net_final = trace_net(t)
        d = {"events": len(t), "initial": tl["initial"], "peak": tl["peak"],
             "peak_index": tl["peak_index"], "peak_time_us": tl["peak_time_us"],
             "final": tl["final"], "trace_net_peak": net_top, "trace_net_final": net_final,
             "holders_at_peak": [holder_row(g) for g in tl["at_peak"].ranked()[:TOP_N]]}
        if "oom" in tl:
            o = tl["oom"]
            d["oom"] = {k: o[k] for k in ("index", "size", "device_free", "live")}
            d["oom"]["holders"] = [holder_row(g) for g in o["holders"].ranked()[:TOP_N]]
        fig["devices_traced"][str(dev)] = d
    return fig


def summary(fig):
    """The one-line figures column of MANIFEST.tsv."""
    def hold(g):
        if g is None:
            return "-"
        fr = g["frame"] if g["frame"] else ("no stack" if g["kind"] == "no_stack" else
                                             ("C++ only" if g.get("cpp_only") else
                                              ("no user frame" if g["kind"] == "stack" else g["kind"])))
        return f"{g['bytes']}B/{g['allocations']} @ {fr}"
    parts = [
        f"segments={fig['segments']}", f"reserved={fig['reserved']}",
        f"allocated={fig['allocated']}", f"requested={fig['requested']}",
        f"live_blocks={fig['live_blocks']}", f"inactive={fig['inactive']}",
        f"pending_free={fig['pending_free_blocks']}/{fig['pending_free']}",
        "pools=" + (",".join("%s:%d" % (k, v["segments"]) for k, v in fig["pools"].items()) or "-"),
        f"stacks={fig['live_blocks_with_stack']}/{fig['live_blocks']} via {'+'.join(fig['block_stack_field']) or '-'}",
        f"not_in_trace={fig['live_blocks_not_in_trace']}",
        f"trace={fig['trace_events']}", f"time_us={fig['time_us']}",
        f"trace_frames={fig['trace_events_with_frames']}", f"cpp={'yes' if fig['cpp_frames'] else 'no'}",
        f"top_holder={hold(fig['holders'][0] if fig['holders'] else None)}",
    ]
    for dev, d in fig["devices_traced"].items():
        parts.append(f"dev{dev}_peak={d['peak']}@{d['peak_index']}")
        parts.append(f"dev{dev}_trace_net_peak={d['trace_net_peak']}")
        parts.append(f"dev{dev}_top_at_peak={hold(d['holders_at_peak'][0] if d['holders_at_peak'] else None)}")
        if "oom" in d:
            parts.append(f"dev{dev}_oom={d['oom']['size']}@{d['oom']['index']} free={d['oom']['device_free']}")
    return "; ".join(parts)


# ---- manifest -----------------------------------------------------------

def read_manifest():
    with open(MANIFEST, encoding="utf-8") as f:
        lines = f.read().splitlines()
    head = lines[0].split("\t")
    return head, [dict(zip(head, ln.split("\t"))) for ln in lines[1:] if ln.strip()]


def write_manifest(head, rows):
    with open(MANIFEST, "w", encoding="utf-8") as f:
        f.write("\t".join(head) + "\n")
        for r in rows:
            f.write("\t".join(r.get(h, "") for h in head) + "\n")


def find_dir(arg):
    for d in (arg, os.path.join(HERE, "files"), os.environ.get("OOMLENS_REAL_SNAPSHOTS")):
        if d and os.path.isdir(d):
            return d
    return None


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--detail")
    args = ap.parse_args()
    d = find_dir(args.dir)
    if args.detail:
        print(json.dumps(figures(os.path.join(d or ".", args.detail)), indent=1))
        return 0
    head, rows = read_manifest()
    saved = {}
    if os.path.exists(FIGURES):
        with open(FIGURES, encoding="utf-8") as f:
            saved = json.load(f)
    passed = failed = skipped = 0
    out = dict(saved)
    for r in rows:
        p = os.path.join(d, r["file"]) if d else None
        if not p or not os.path.exists(p):
            skipped += 1
            continue
        if r.get("sha256") and sha256(p) != r["sha256"]:
            print(f"FAIL {r['file']}: sha256 differs from the manifest")
            failed += 1
            continue
        fig = figures(p)
        line = summary(fig)
        if args.check:
            ok = line == r.get("figures") and saved.get(r["file"]) == json.loads(json.dumps(fig))
            print(("ok   " if ok else "FAIL ") + r["file"])
            passed += ok
            failed += not ok
        else:
            print(f"{r['file']}\t{fig['version']}\t{line}")
        r["figures"] = line
        out[r["file"]] = fig
    if args.write:
        write_manifest(head, rows)
        with open(FIGURES, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=1, sort_keys=True)
            f.write("\n")
    if args.check:
        print(f"{passed} passed, {failed} failed, {skipped} skipped")
        return 1 if failed else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())

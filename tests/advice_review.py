#!/usr/bin/env python3
"""advice_review.py -- the answer never contradicts its own figures (issue 27,
round 15, w-advice16).

For every folder or file of the tuning set (tests/data/real/any_stack/
MANIFEST.tsv) and the calibration set (tests/data/incoming/any_stack/
MANIFEST.tsv, where present), run `oomlens analyze` once to a database,
render its JSON and its Markdown from that database, and check what the
first screen claims against what the files showed:

  - scope: the answer never says GPU memory ran out when the failure's
    memory is not a GPU's: ooms[0].scope host, unified, tpu or
    accelerator, or a wording family that fixes no scope (lib/mem_family.c:
    `pool`, DyNet's and cnn's preallocated pools, sized by --dynet-mem,
    host or GPU as the build runs);
  - ggml's context pool (ggml_new_object "not enough space in the
    context's memory pool"): a fixed arena the program sized itself, not
    the machine's RAM or a card: the answer says the pool and no advice
    speaks of "the card";
  - knobs the stack has: a failure whose stage line names a ggml program
    other than llama.cpp/Ollama (the OOM event's `app`: whisper.cpp) is
    never told llama.cpp's flags (--n-gpu-layers, --no-mmap, --ctx-size),
    Ollama's options (num_gpu, num_ctx) or a serving engine's knobs
    (gpu_memory_utilization, --hicache-size, --swap-space...);
  - each knob once: the answer's "Also, for this phase" item names no
    knob the "What to change" item already named;
  - one peak per account: the Markdown's first screen prints each
    headline peak (JSON peaks, headline 1) as ol_fmt_bytes does and no
    other "Peak memory" figure for it.

Prints one line per failure and a closing "N passed, N failed"; exits 1
on any failure. usage: advice_review.py OOMLENS SRC [--jobs N] [--only SUBSTR]
"""
import json
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

MANIFESTS = ("tests/data/real/any_stack/MANIFEST.tsv",
             "tests/data/incoming/any_stack/MANIFEST.tsv")
# flags and options of llama.cpp and Ollama (lib/engine_knobs.c) that
# another ggml program does not have
# and the serving engines' (vLLM, SGLang, LMCache) that a ggml program
# such as whisper.cpp does not have either
LLAMA_ONLY = ("--n-gpu-layers", "--no-mmap", "--ctx-size", "num_gpu", "num_ctx", "use_mmap",
              "gpu_memory_utilization", "mem_fraction_static", "--hicache-size", "--swap-space",
              "max_local_cpu_size", "max_num_seqs")
# the ggml programs with stage rows of their own (parsers/serving/phase_rows_*.inc)
# that are not llama.cpp or Ollama
GGML_APPS = ("whisper.cpp",)
KNOB = re.compile(r"(--[a-z][a-z0-9-]+|\b[a-z]+(?:_[a-z0-9]+)+\b)")


def items(md):
    """The first screen's '- **Label:** text' items, by label."""
    out = {}
    for line in md.splitlines():
        m = re.match(r"- \*\*([^*]+):\*\* (.*)", line)
        if m and m.group(1) not in out:
            out[m.group(1)] = m.group(2)
        if line.startswith("### "):
            break
    return out


def check(oomlens, path, tmp):
    name = os.path.basename(path.rstrip("/"))
    db = os.path.join(tmp, re.sub(r"[^A-Za-z0-9_.-]", "_", name) + ".db")
    p = subprocess.run([oomlens, "analyze", "-q", "--db", db, "--format", "json", path],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    if not os.path.exists(db):
        return name, [], True   # nothing read: no answer to review
    try:
        js = json.loads(p.stdout)
    except ValueError:
        return name, ["analyze --format json printed no JSON"], False
    q = subprocess.run([oomlens, "report", "--format", "md", db], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=120)
    md = q.stdout.decode("utf-8", "replace")
    os.unlink(db)
    fails = []
    ans = js.get("answer") or {}
    what = ans.get("what") or ""
    fix = ans.get("fix") or ""
    try_first = (ans.get("try_first") or {}).get("advice") or ""
    ooms = (js.get("summary") or {}).get("ooms") or []
    o = ooms[0] if ooms else {}
    eid = (o.get("source") or {}).get("event_id")
    ev = next((e for e in js.get("events") or [] if e.get("id") == eid), {}) if eid else {}
    scope, fam = o.get("scope"), o.get("family")
    first = items(md)
    advice = " ".join(x for x in (fix, try_first) if x)
    if o and (scope not in (None, "gpu") or fam == "pool") and "GPU memory" in what:
        fails.append("says GPU memory ran out, scope %s family %s: %s" % (scope, fam, what[:160]))
    if fam == "pool" and "--dynet-mem" not in what:
        fails.append("a DyNet/cnn pool failure whose answer does not name the pool: " + what[:160])
    if fam == "ggml" and "context's memory pool" in (ev.get("wording") or ""):
        if "memory pool" not in what:
            fails.append("a ggml context pool failure whose answer does not name the pool: "
                         + what[:160])
        if "the card" in advice:
            fails.append("a ggml context pool failure advised about the card: " + advice[:160])
    app = ev.get("app")
    if app and any(app.startswith(a) for a in GGML_APPS):
        bad = [k for k in LLAMA_ONLY if k in advice]
        if bad:
            fails.append("%s told %s" % (app, ", ".join(bad)))
    also = first.get("Also, for this phase") or first.get("Also, to try first")
    if also and first.get("What to change"):
        said = set(KNOB.findall(first["What to change"]))
        again = sorted(k for k in set(KNOB.findall(also)) & said if len(k) >= 6)
        if again:
            fails.append("knobs said twice on the first screen: " + ", ".join(again))
    for pk in js.get("peaks") or []:
        if pk.get("headline") == 1 and pk.get("bytes") is not None:
            pm = first.get("Peak memory") or ""
            if pm and pm.startswith("unknown"):
                fails.append("a headline peak in the JSON, 'unknown' on the first screen")
    return name, fails, False


def paths(src, only):
    out = []
    for man in MANIFESTS:
        mp = os.path.join(src, man)
        if not os.path.exists(mp):
            continue
        base = os.path.dirname(mp)
        with open(mp, encoding="utf-8") as f:
            for i, line in enumerate(f):
                cols = line.rstrip("\n").split("\t")
                if i == 0 or not cols[0]:
                    continue
                p = os.path.join(base, cols[0])
                if os.path.exists(p) and (not only or only in cols[0]):
                    out.append(p)
    return out


def main():
    args = sys.argv[1:]
    jobs, only = 2, None
    if "--jobs" in args:
        i = args.index("--jobs")
        jobs = int(args[i + 1])
        del args[i:i + 2]
    if "--only" in args:
        i = args.index("--only")
        only = args[i + 1]
        del args[i:i + 2]
    if len(args) != 2:
        print(__doc__.strip().splitlines()[-1])
        return 2
    oomlens, src = os.path.abspath(args[0]), args[1]
    ok = bad = unread = 0
    with tempfile.TemporaryDirectory() as tmp:
        with ThreadPoolExecutor(max_workers=jobs) as ex:
            for name, fails, none in ex.map(lambda p: check(oomlens, p, tmp), paths(src, only)):
                if none:
                    unread += 1
                elif fails:
                    bad += 1
                    for f in fails:
                        print("FAIL %s: %s" % (name, f))
                else:
                    ok += 1
    print("%d unread (no answer to review)" % unread)
    print("%d passed, %d failed" % (ok, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

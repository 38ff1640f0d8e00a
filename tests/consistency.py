#!/usr/bin/env python3
"""consistency.py -- one incident, one set of facts in every format (issue 25).

For every fixture (fixtures/*/) and every real corpus file (the files listed
by a tests/data/real/*/MANIFEST.tsv), run `oomlens analyze` once to a
database, then `oomlens report --format F` for json, text, md and html from
that same database, and check, taking the JSON as the reference, that the
first screen of the text, the Markdown and the HTML (unescaped) says

  - the verdict class (JSON verdict.class),
  - the OOM moment as printed (summary.first_oom.time, else "boot+S.SSSs"),
  - the victim: its pid and its name (summary.victim),
  - a peak read from pasted samples labelled "untimed, order from the
    paste" on the first screen, and given no time;
  - each account's headline peak (peaks rows with headline 1) as
    ol_fmt_bytes prints it: the report's peak among the key figures, every
    other account on one line with its name;

and, when the verdict is no_oom, that the title says "Memory profile", that
every account is listed in the profile with its peak, and that no format
says "before the OOM" or "at the OOM" anywhere. Every real healthy input
(tests/data/real/healthy/, and any corpus file whose JSON has no oom row)
must give no_oom. An input oomlens reads nothing from at all (analyze
writes no database: "nothing usable") has no report to compare and is
counted apart, not failed.

Prints one line per failure and a closing "N passed, N failed"; exits 1 on
any failure. usage: consistency.py OOMLENS SRC [--jobs N] [--only SUBSTR]
"""
import glob
import html
import json
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

FORMATS = ("text", "md", "html")
# OOM kinds where a process's own allocation failed and it raised
# (reports/summary.c summary_oom_kills: not a kill).
OWN_FAILURES = ("torch_oom", "torch_oom_count", "cuda_oom", "alloc_failed", "mem_failure",
                "engine_oom")
NO_OOM_WORDING = re.compile(r"(before|at) the OOM\b", re.I)


def fmt_bytes(b):
    """lib/bytes.c's ol_fmt_bytes, digit for digit."""
    units = ("B", "KiB", "MiB", "GiB", "TiB", "PiB")
    a, u = abs(b), 0
    while a >= 1024 and u < 5:
        a /= 1024
        b /= 1024
        u += 1
    if u == 0:
        return "%.0f B" % b
    if a < 9.995:
        return "%.2f %s" % (b, units[u])
    if a < 99.95:
        return "%.1f %s" % (b, units[u])
    return "%.0f %s" % (b, units[u])


def md_plain(s):
    """oomlens' Markdown as the text a reader sees: escapes undone, bold gone."""
    s = re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", s)
    return s.replace("**", "")


def html_head(s):
    """The HTML's header (its first screen) as lines of unescaped text."""
    end = s.find("</header>")
    s = s[:end if end >= 0 else len(s)]
    s = re.sub(r"<(br|/li|/p|/h1|/div)>", "\n", s)
    s = re.sub(r"<[^>]*>", "", s)
    return html.unescape(s)


def md_head(s):
    """The Markdown's head: up to the first section after the title."""
    lines = s.split("\n")
    out = []
    for i, l in enumerate(lines):
        if i > 0 and l.startswith("## "):
            break
        out.append(l)
    return md_plain("\n".join(out))


def text_head(s):
    """The text's head: up to the second underlined heading."""
    lines = s.split("\n")
    out, heads = [], 0
    for i, l in enumerate(lines):
        if l and set(l) == {"="} and i > 0:
            heads += 1
            if heads == 2:
                out.pop()
                break
        out.append(l)
    return "\n".join(out)


def expectations(rep):
    """What every format must say, from the JSON report: [(what, check)],
    check(head, whole) -> error or None."""
    out = []
    cls = (rep.get("verdict") or {}).get("class")
    summ = rep.get("summary") or {}
    if cls:
        out.append(("verdict " + cls, lambda h, w, c=cls: None if c in h else "no verdict class"))
    first = summ.get("first_oom")
    if first:
        t = first.get("time")
        if t is None and first.get("boot_s") is not None:
            t = "boot+%.3fs" % first["boot_s"]
        if t:
            out.append(("OOM moment " + t, lambda h, w, t=t: None if t in h else "no OOM moment"))
        else:   # issue 27: a moment the artifacts do not give is said so, not "unknown"
            out.append(("OOM time not recorded", lambda h, w: None if "time not recorded" in h
                        else "no 'time not recorded'"))
        if first.get("kind") in OWN_FAILURES:   # the process raised: nothing was killed
            out.append(("nothing killed", lambda h, w: "says Killed" if re.search(
                r"\bKilled\b", h) else None))
    vic = summ.get("victim")
    if vic:
        for k in ("pid", "comm"):
            v = vic.get(k)
            if v not in (None, ""):
                out.append(("victim %s %s" % (k, v),
                            lambda h, w, v=str(v): None if v in h else "no victim"))
    main = (summ.get("peak") or {}).get("account")
    peak = summ.get("peak")
    if peak and main:
        b = fmt_bytes(peak["bytes"])
        out.append(("peak %s %s" % (main, b), lambda h, w, b=b: None if b in h else "no peak"))
    # a peak read from pasted samples has no time: every format says its
    # order is the paste's (analyzer/derive/peak.c)
    if peak and "order from the paste" in (peak.get("series") or ""):
        out.append(("peak untimed", lambda h, w: None if "untimed, order from the paste" in h
                    and "order from the paste" in w else "peak not labelled untimed"))
        if peak.get("time") is not None:
            out.append(("peak untimed has no time", lambda h, w: "JSON gives it a time"))
    profile = cls == "no_oom"
    for r in rep.get("peaks") or []:
        if not r.get("headline"):
            continue
        a, b = r["account"], fmt_bytes(r["bytes"])
        if a == main and not profile:
            continue

        def same_line(h, w, a=a, b=b):
            return None if any(a in l and b in l for l in h.split("\n")) else "not on one line"
        out.append(("account %s %s" % (a, b), same_line))
    if profile:
        out.append(("title Memory profile",
                    lambda h, w: None if "Memory profile: no OOM recorded" in h else "no title"))
        out.append(("no OOM wording", lambda h, w: (
            "says %r" % NO_OOM_WORDING.search(w).group(0)) if NO_OOM_WORDING.search(w) else None))
    return out


def run(oomlens, path, tmp):
    """(name, json report, {format: (head, whole)}) or (name, error, None)."""
    name = os.path.relpath(path)
    db = os.path.join(tmp, re.sub(r"[^A-Za-z0-9]", "_", name) + ".db")
    p = subprocess.run([oomlens, "analyze", "-q", "--db", db, "--format", "json", path],
                       stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, timeout=120)
    if not os.path.exists(db):
        err = p.stderr.decode(errors="replace")
        if "nothing usable" in err:
            return name, None, None      # not read at all: no incident, no report
        return name, "analyze failed: " + err[-200:], None
    outs = {}
    for f in ("json",) + FORMATS:
        q = subprocess.run([oomlens, "report", "--format", f, db], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=120)
        if q.returncode != 0:
            return name, "report --format %s failed" % f, None
        outs[f] = q.stdout.decode("utf-8", errors="replace")
    os.unlink(db)
    rep = json.loads(outs.pop("json"))
    heads = {"text": text_head(outs["text"]), "md": md_head(outs["md"]),
             "html": html_head(outs["html"])}
    whole = {"text": outs["text"], "md": md_plain(outs["md"]),
             "html": html.unescape(re.sub(r"<[^>]*>", " ", outs["html"]))}
    return name, rep, {f: (heads[f], whole[f]) for f in FORMATS}


# Words of the first screen that do not fit the incident (issue 27's
# reading as the on-call engineer would): a raw wording-family key as the
# sentence's subject, "GPU memory" for an accelerator that is no GPU, a
# flag of another engine than the one the log shows, server load asked
# for an OOM before any request was served, a core dump for a SIGKILL.
STARTUP = ("load_weights", "profile", "kv_alloc", "graph_capture", "warmup")
# which memory ran out is oom.scope's (lib/vocab.h): XLA runs on GPUs as
# well as TPUs, so the family alone does not say "no GPU"
NOT_GPU = ("tpu", "unified", "accelerator")
ENGINE_FLAGS = {
    "vllm": ("--cuda-graph-sizes", "--max-cudagraph-capture-size", "--gpu-memory-utilization",
             "--enforce-eager"),
    "sglang": ("--cuda-graph-max-bs", "--mem-fraction-static", "--disable-cuda-graph"),
    "tgi": ("--cuda-memory-fraction", "--max-batch-prefill-tokens", "--cuda-graphs"),
    "ollama": ("num_gpu", "num_ctx"),
    "llama.cpp": ("--n-gpu-layers", "--ctx-size"),
}


def wording(rep, head, whole):
    """[error]: statements of the first screen that do not fit the incident."""
    errs = []
    ooms = (rep.get("summary") or {}).get("ooms") or []
    first = ooms[0] if ooms else {}
    m = re.search(r"What happened:\s*(\S+)[^\n]*", head)
    said = m.group(0) if m else ""
    if m and first.get("family") and m.group(1) == first.get("family"):
        errs.append("the answer's subject is a raw name: %r" % m.group(1))
    if first.get("scope") in NOT_GPU and ("GPU memory" in said or " on gpu" in said):
        errs.append("scope %s is no GPU, yet: %r" % (first.get("scope"), said[:120]))
    engines = {e.get("engine") for e in rep.get("engines") or []} & set(ENGINE_FLAGS)
    if len(engines) == 1:
        for other, flags in ENGINE_FLAGS.items():
            if other in engines:
                continue
            for fl in flags:
                if re.search(re.escape(fl) + r"(?![A-Za-z-])", head):
                    errs.append("%s flag %s advised for a %s log" % (other, fl, engines.pop()
                                if len(engines) == 1 else "?"))
                    engines = {e.get("engine") for e in rep.get("engines") or []} & set(ENGINE_FLAGS)
    if first.get("phase") in STARTUP and "server load (" in head:
        errs.append("server load asked for an OOM in phase %s, before any request"
                    % first.get("phase"))
    gpuish = [x for x in rep.get("series") or []
              if re.match(r"(gpu|torch)\.", str(x.get("name") or ""))]
    if (ooms and all(o.get("scope") == "host" for o in ooms) and not rep.get("engines")
            and not gpuish and re.search(r"_snapshot\(\)|server load \(", head)):
        errs.append("a host OOM with no GPU in sight, yet a CUDA snapshot or server load"
                    " is asked for")
    if first.get("scope") == "accelerator":
        m = re.search(r"nvidia-smi|PYTORCH_CUDA_ALLOC_CONF=|CUDA out of memory \(torch_oom\)",
                      whole)
        if m:
            errs.append("NVIDIA's words for an accelerator that is none: %r" % m.group(0))
    if first.get("phase") == "serving" and "never started" in whole:
        errs.append("an OOM while serving, yet the report says the engine never started")
    if first.get("phase") in ("training_step", "eval") and re.search(r"\(vLLM --", head):
        errs.append("vLLM's flags advised for a %s OOM" % first.get("phase"))
    sure = re.search(r"How sure:[^\n]*", head)
    if sure and sure.group(0).count("not decided") > 1:
        errs.append("'not decided' twice: %r" % sure.group(0)[:120])
    if sure and "weigh the figures" in sure.group(0) and "Evidence:" not in head:
        errs.append("asks to weigh figures the first screen does not show")
    if "for this phase:" in head and (first.get("phase") or "unknown") == "unknown":
        errs.append("'for this phase' where the evidence names no phase")
    for line in head.splitlines():
        if (re.search(r"(?<!no )core dump", line)
                and ("SIGKILL" in line or "exit code 137" in line)):
            errs.append("a SIGKILL leaves no core dump: %r" % line.strip()[:120])
    # a name or a line the evidence did not give, printed as a placeholder
    m = re.search(r"container \? |of pod \?|\bline 0\)", whole)
    if m:
        errs.append("a placeholder for what the evidence did not give: %r" % m.group(0))
    # a figure the evidence did not state, printed as its sentinel
    for f in (head, whole):
        m = re.search(r"(?<![\d.])-1 B\b[^\n]*", f)
        if m:
            errs.append("an unstated figure printed as -1 B: %r" % m.group(0)[:120])
            break
    return errs


def inputs(src):
    """[(path, healthy)]: every fixture folder, every manifest's file."""
    out = [(d.rstrip("/"), False) for d in sorted(glob.glob(os.path.join(src, "fixtures/*/")))]
    for man in sorted(glob.glob(os.path.join(src, "tests/data/real/*/MANIFEST.tsv"))):
        folder = os.path.dirname(man)
        healthy = os.path.basename(folder) == "healthy"
        with open(man, encoding="utf-8") as fh:
            for i, line in enumerate(fh):
                f = line.split("\t")[0].strip()
                if i == 0 or not f or f.startswith("#"):
                    continue
                if os.path.exists(os.path.join(folder, f)):
                    out.append((os.path.join(folder, f), healthy))
    return out


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    oomlens, src = os.path.abspath(argv[1]), argv[2]
    jobs = int(argv[argv.index("--jobs") + 1]) if "--jobs" in argv else 2
    only = argv[argv.index("--only") + 1] if "--only" in argv else None
    todo = [(p, h) for p, h in inputs(src) if not only or only in p]
    passed = failed = skipped = 0
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(jobs) as pool:
        for (path, healthy), (name, rep, outs) in zip(
                todo, pool.map(lambda t: run(oomlens, t[0], tmp), todo)):
            errs = []
            if outs is None and rep is None:
                skipped += 1
                continue
            if outs is None:
                errs.append(rep)
            else:
                cls = (rep.get("verdict") or {}).get("class")
                ooms = (rep.get("summary") or {}).get("ooms") or []
                # a leak shown by pasted memory samples or stated by the
                # program's own check (analyzer/rules/samples.c, leak_stated.c)
                # needs no OOM, nor a SIGKILL in a start-up stage
                # (analyzer/rules/startup_killed.c); a healthy log never has one
                untimed = (rep.get("verdict") or {}).get("cause") in ("untimed_growth",
                                                                      "stated_leak",
                                                                      "killed_at_startup")
                if (healthy or not ooms) and cls != "no_oom" and (healthy or not untimed):
                    errs.append("verdict %s, but no artifact records an OOM (expected no_oom)"
                                % cls)
                for e in wording(rep, *outs["text"]):
                    errs.append("text: wording: %s" % e)
                for what, check in expectations(rep):
                    for f in FORMATS:
                        e = check(*outs[f])
                        if e:
                            errs.append("%s: %s (%s)" % (f, what, e))
            if errs:
                failed += 1
                for e in errs:
                    print("FAIL %s: %s" % (name, e))
            else:
                passed += 1
    if skipped:
        print("%d inputs not read at all (nothing usable: no database, no report)" % skipped)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

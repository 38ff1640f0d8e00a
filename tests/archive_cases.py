#!/usr/bin/env python3
"""archive_cases.py OOMLENS SRCDIR -- evidence that arrives packed (issue 29).

The archives are made here, at test time, with Python's tarfile and
zipfile from real fixtures (fixtures/mixed_gpu_leak_spike: a vLLM log and
nvidia-smi CSV; fixtures/real_memcg_uwsgi: a real kernel memcg OOM report),
never from hand-written bytes. Checked:
  - the same folder given as a folder, .tar.gz, .tar.xz, .tar.bz2, .zip,
    and a zip holding a .tar.gz gives the same verdict, events and
    findings, each member keeping its container;
  - a zip bomb (a small zip unpacking past the bound) is refused quickly in
    bounded memory, the member before it still read;
  - member names are data: "../../etc/passwd" is the archive's bytes, not
    the file on disk; control bytes never reach the terminal;
  - a truncated archive is reported, what came before the cut kept;
  - --append of the same archive adds nothing;
  - --max-unpacked and --max-members set the bounds: past them the
    archive is refused with a message naming the option, a bad value is a
    usage error (exit 2).
Prints one line per failure and "N passed, M failed"; exits 1 on a failure.
"""
import io
import json
import os
import resource
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile

BIN, SRC = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
passed = failed = 0


def check(name, cond, detail=""):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL: %s %s" % (name, detail))


def analyze(work, target, *extra):
    """oomlens analyze --json on target (relative to work): (rc, json, stderr)."""
    db = os.path.join(work, os.path.basename(target) + ".db")
    out = os.path.join(work, os.path.basename(target) + ".json")
    for stale in (db, out):   # an earlier run's outputs never stand in for this one's
        if os.path.exists(stale):
            os.remove(stale)
    p = subprocess.run([BIN, "analyze", "--json", "--db", db, "-o", out, *extra, target],
                       cwd=work, capture_output=True, timeout=300)
    doc = json.load(open(out)) if os.path.exists(out) else {}
    return p.returncode, doc, p.stderr


IDS = {"id", "series_id", "ref", "artifact_id", "evidence_id", "event_id"}


def strip_ids(x):
    """x without row ids (the order of artifacts decides them)."""
    if isinstance(x, dict):
        return {k: strip_ids(v) for k, v in x.items() if k not in IDS}
    if isinstance(x, list):
        return [strip_ids(v) for v in x]
    return x


def essence(doc):
    return {k: strip_ids(doc.get(k)) for k in ("verdict", "events", "findings", "peaks")}


def tar_of(folder, name, mode):
    with tarfile.open(name, mode) as t:
        t.add(folder)


def zip_of(folder, name):
    with zipfile.ZipFile(name, "w", zipfile.ZIP_DEFLATED) as z:
        for root, _, files in sorted(os.walk(folder)):
            for f in sorted(files):
                z.write(os.path.join(root, f))


def same_as_folder(work, case):
    shutil.copytree(os.path.join(SRC, "fixtures", case), os.path.join(work, case))
    rc, ref, _ = analyze(work, case)
    check(case + ": folder analyzed", rc == 0 and ref.get("verdict"), "rc %d" % rc)
    made = {}
    for ext, mode in ((".tar.gz", "w:gz"), (".tar.xz", "w:xz"), (".tar.bz2", "w:bz2")):
        tar_of(case, os.path.join(work, case + ext), mode)
        made[case + ext] = case + ext
    zip_of(case, os.path.join(work, case + ".zip"))
    made[case + ".zip"] = case + ".zip"
    nested = os.path.join(work, case + "-nested.zip")
    with zipfile.ZipFile(nested, "w", zipfile.ZIP_STORED) as z:
        z.write(os.path.join(work, case + ".tar.gz"), case + ".tar.gz")
    made[case + "-nested.zip"] = case + "-nested.zip!/" + case + ".tar.gz"
    for target, container in made.items():
        rc, doc, err = analyze(work, target)
        check("%s: exit 0" % target, rc == 0, "rc %d: %s" % (rc, err[-300:]))
        check("%s: same verdict, events and findings as the folder" % target,
              essence(doc) == essence(ref),
              json.dumps(doc.get("verdict"))[:200] + " vs " + json.dumps(ref.get("verdict"))[:200])
        members = [a for a in doc.get("artifacts", []) if a.get("kind") not in (None, "archive")]
        check("%s: members read, each with its container" % target,
              members and all(a.get("container") == container for a in members),
              json.dumps([(a["path"], a.get("container")) for a in doc.get("artifacts", [])]))
        plain = [a for a in ref.get("artifacts", []) if a.get("kind")]
        check("%s: folder artifacts have no container" % case,
              all(a.get("container") is None for a in plain))


def zip_bomb(work):
    """A zip of a real kernel log, then 1.5 GiB of zeros (1.5 MB packed)."""
    log = open(os.path.join(SRC, "fixtures/real_memcg_uwsgi/"
                            "kernel-oom-memcg-uwsgi-header.log"), "rb").read()
    name = os.path.join(work, "bomb.zip")
    with zipfile.ZipFile(name, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        z.writestr("kern.log", log)
        with z.open("zeros.bin", "w", force_zip64=True) as f:
            block = bytes(16 << 20)
            for _ in range(96):
                f.write(block)
    check("bomb: small on disk", os.path.getsize(name) < 4 << 20, str(os.path.getsize(name)))
    t0 = time.time()
    rc, doc, err = analyze(work, "bomb.zip")
    took = time.time() - t0
    rss_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    check("bomb: refused with a message", b"refused" in err and b"bomb" in err, err[-400:])
    check("bomb: refused quickly", took < 30, "%.1f s" % took)
    check("bomb: bounded memory", rss_kib < 400 * 1024, "%d KiB" % rss_kib)
    arts = {a["path"]: a for a in doc.get("artifacts", [])}
    check("bomb: the member before it is read",
          arts.get("kern.log", {}).get("status") == "ok", json.dumps(list(arts)))
    check("bomb: the archive's row is partial, with why",
          arts.get("bomb.zip", {}).get("status") == "partial" and
          "refused" in json.dumps(arts.get("bomb.zip", {}).get("diagnostics")))
    check("bomb: the verdict from what was read", doc.get("verdict", {}).get("class")
          not in (None, "no_oom"), json.dumps(doc.get("verdict"))[:200])


def names_are_data(work):
    log = open(os.path.join(SRC, "fixtures/real_memcg_uwsgi/"
                            "kernel-oom-memcg-uwsgi-header.log"), "rb").read()
    name = os.path.join(work, "names.tar")
    with tarfile.open(name, "w", format=tarfile.GNU_FORMAT) as t:
        for member in ("../../etc/passwd", "red\x1b[31m\nlog", "/abs/kern.log"):
            info = tarfile.TarInfo(member)
            info.size = len(log)
            t.addfile(info, io.BytesIO(log))
    rc, doc, err = analyze(work, "names.tar")
    paths = {a["path"]: a for a in doc.get("artifacts", [])}
    check("names: ../../etc/passwd read from the archive, as a kernel log",
          paths.get("../../etc/passwd", {}).get("kind") == "kernel_log", json.dumps(list(paths)))
    check("names: control bytes escaped", "red\\x1b[31m\\x0alog" in paths, json.dumps(list(paths)))
    check("names: a leading / dropped", "abs/kern.log" in paths, json.dumps(list(paths)))
    check("names: no control byte on the terminal", b"\x1b" not in err, repr(err[-200:]))


def truncated(work):
    case = os.path.join(work, "mixed_gpu_leak_spike")
    tar_of(os.path.relpath(case, work), os.path.join(work, "whole.tar.gz"), "w:gz")
    data = open(os.path.join(work, "whole.tar.gz"), "rb").read()
    open(os.path.join(work, "cut.tar.gz"), "wb").write(data[:len(data) * 6 // 10])
    rc, doc, err = analyze(work, "cut.tar.gz")
    arts = {a["path"]: a for a in doc.get("artifacts", [])}
    check("cut: the archive's row is partial, with why",
          arts.get("cut.tar.gz", {}).get("status") == "partial" and
          arts["cut.tar.gz"]["diagnostics"], json.dumps(arts.get("cut.tar.gz")))
    read = [a for a in arts.values() if a.get("kind") not in (None, "archive") and
            a.get("bytes_read")]
    check("cut: what came before the cut is read", read, json.dumps(list(arts)))
    check("cut: said on stderr", b"cut.tar.gz" in err, err[-300:])


def append_twice(work):
    db = os.path.join(work, "append.db")
    cmd = [BIN, "ingest", "--db", db, "mixed_gpu_leak_spike.tar.gz"]
    subprocess.run(cmd, cwd=work, capture_output=True)
    n1 = subprocess.run(["sqlite3", db, "SELECT count(*) FROM artifact"], capture_output=True,
                        text=True).stdout.strip()
    p = subprocess.run(cmd[:2] + ["--append"] + cmd[2:], cwd=work, capture_output=True)
    n2 = subprocess.run(["sqlite3", db, "SELECT count(*) FROM artifact"], capture_output=True,
                        text=True).stdout.strip()
    check("append: the same archive again adds no row", n1 and n1 == n2,
          "%s then %s: %s" % (n1, n2, p.stderr[-300:]))


def sosreport_provenance(work):
    """The real sosreport as a .tar.xz: the kill read from its dmesg, named by
    its path inside the bundle; its memory files read, version.txt not a
    kernel log."""
    case = "real_sosreport_memcg_kill"
    rc, doc, err = analyze(work, case + ".tar.xz")
    bundle = case + "/sosreport-vm-2026-12-06-sojnyyk/"
    arts = {a["path"]: a for a in doc.get("artifacts", [])}
    dmesg = arts.get(bundle + "sos_commands/kernel/dmesg", {})
    check("sos: dmesg read in the bundle, the tarball its container",
          dmesg.get("kind") == "kernel_log" and dmesg.get("container") == case + ".tar.xz",
          json.dumps(dmesg)[:300])
    kinds = {p[len(bundle):]: a.get("kind") for p, a in arts.items() if p.startswith(bundle)}
    want = {"version.txt": "sos_version", "proc/meminfo": "meminfo", "proc/buddyinfo": "buddyinfo",
            "sos_commands/memory/free": "free", "sos_logs/sos.log": "sos_log"}
    check("sos: each bundle file read by its reader", all(kinds.get(k) == v for k, v in want.items()),
          json.dumps(kinds))
    kills = [e for e in doc.get("events", []) if e.get("kind") == "oom_kill"]
    check("sos: the victim, pid 23688", any(e.get("pid") == 23688 for e in kills),
          json.dumps(kills)[:300])


def bounds_options(work):
    """--max-unpacked / --max-members on a real fixture's .tar.gz."""
    target = "mixed_gpu_leak_spike.tar.gz"
    rc, doc, err = analyze(work, target, "--max-unpacked", "200KiB")
    arts = {a["path"]: a for a in doc.get("artifacts", [])}
    check("--max-unpacked 200KiB: refused with the bound said", b"refused" in err and
          b"200 KiB" in err, err[-400:])
    check("--max-unpacked 200KiB: the archive's row is partial, the CSV before read",
          arts.get(target, {}).get("status") == "partial" and
          arts.get("mixed_gpu_leak_spike/nvidia-smi.csv", {}).get("status") == "ok",
          json.dumps(list(arts)))
    rc, doc, err = analyze(work, target, "--max-unpacked", "1GiB")
    check("--max-unpacked 1GiB: read whole", rc == 0 and b"refused" not in err, err[-300:])
    rc, doc, err = analyze(work, target, "--max-members", "2")
    arts = {a["path"]: a for a in doc.get("artifacts", [])}
    read = [a for a in arts.values() if a.get("kind") not in (None, "archive")]
    check("--max-members 2: refused, naming the option",
          b"more than 2 members" in err and b"--max-members" in err, err[-400:])
    check("--max-members 2: at most two members read", len(read) <= 2, json.dumps(list(arts)))
    for opt, bad in (("--max-unpacked", "lots"), ("--max-unpacked", "12"),
                     ("--max-members", "0"), ("--max-members", "3x")):
        rc, _, err = analyze(work, target, opt, bad)
        check("%s %s: a usage error" % (opt, bad), rc == 2 and opt.encode() in err,
              "rc %d: %s" % (rc, err[-200:]))


def main():
    work = tempfile.mkdtemp(prefix="oomlens-archives-")
    os.chdir(work)   # archives hold relative paths, as the folder's artifacts have
    try:
        for case in ("mixed_gpu_leak_spike", "real_memcg_uwsgi", "real_sosreport_memcg_kill"):
            same_as_folder(work, case)
        sosreport_provenance(work)
        names_are_data(work)
        truncated(work)
        if shutil.which("sqlite3"):
            append_twice(work)
        bounds_options(work)
        zip_bomb(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

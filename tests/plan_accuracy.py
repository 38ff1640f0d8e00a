#!/usr/bin/env python3
"""plan_accuracy.py -- `oomlens plan` against what the engines printed.

Reads a MANIFEST.tsv of real start-up logs (tests/data/real/plan/): per
case the engine, the card's total as the engine printed it, TP, the
settings, the printed figures (weights_gib, non_kv_gib, kv_gib, kv_tokens,
gpu_blocks, max_concurrency) and the model's architecture figures from
its config.json (dotted keys for nested objects), with both URLs. Writes
each config.json to a temporary folder and runs plan three ways:

  A. given the printed KV memory: kv_cache_tokens, gpu_blocks and
     max_concurrency within 2 % of the printed ones (the per-token formula);
  B. given the printed weights and non-KV memory: the KV memory (and
     tokens, blocks) within 2 %;
  C. from the config, the card and the settings alone: weights within 5 %,
     KV tokens within 15 %, in at least 80 % of the checks.

A and B must hold for every case; C in 80 %. A case whose engine refused
to start for want of KV memory (printed fits=0) is checked the other
way: plan from the config alone must say it does not fit, with a knob
and a value, and plan run again with that value must fit. The version
column (0.6.4, 0.9.x, 0.10.1.1) is passed as --engine-version when it
reads as one. The card's memory is the printed total (gpu_gib), else the
card the settings name (card=NAME, or gpu=) from plan's own table
(--gpu NAME), or for llama.cpp/Ollama, whose cache does not depend on
the card, a nominal 79.22 GiB; each line says which. A printed free_at_start_gib (memory
other processes held) is passed as --free-memory; the model's name
(settings model_name=, else the model column) as --model-name, from which
plan infers a quantisation only when the config names none. Prints one line per check and a closing "N passed, M
failed". --markdown prints the per-case table for bench/ACCURACY.md
instead.

Engines whose pool is not vLLM's: TensorRT-LLM sizes its pool as
kv_cache_free_gpu_memory_fraction (a setting, passed as
--gpu-memory-utilization) of the memory free after the engine loads;
its log prints that free memory ("available"), kept as
free_after_load_gib and given to plan in B as the weights and non-KV
memory (total - available), its pages of tokens_per_block (64 unless
set). llama.cpp and Ollama (engine llama.cpp or ollama, run as plan's
ollama) keep no pool: the cache is n_ctx cells (num_ctx, n_ctx or ctx
settings, passed as --max-model-len) for num_parallel sequences
(n_parallel, num_parallel or parallel, --max-num-seqs), in cells of one
token. Parallelism: tp is the column's leading number; pp= or
pipeline_parallel_size= (in the settings or the tp column's words) is
--pp; dp= or data_parallel_size= is a replica of the same per-GPU
figures and changes nothing plan computes; an uneven layer split
(VLLM_PP_LAYER_PARTITION) or cards of different sizes are not modelled
and the case is not measured, with the reason.

usage: plan_accuracy.py OOMLENS MANIFEST.tsv [--markdown]
"""
import csv
import json
import os
import re
import subprocess
import sys
import tempfile

GIB = 1 << 30


def kv(s):
    out = {}
    for part in filter(None, (p.strip() for p in s.split(";"))):
        if "=" not in part:        # a note in words ("other settings default")
            continue
        k, v = part.split("=", 1)
        out[k.strip()] = v
    return out


def config(arch):
    root = {}
    for k, v in kv(arch).items():
        try:
            val = json.loads(v)
        except ValueError:
            val = v
        node = root
        keys = k.split(".")
        for key in keys[:-1]:
            node = node.setdefault(key, {})
        node[keys[-1]] = val
    return root


def version(case):
    """The manifest's version as --engine-version takes it, or None."""
    m = re.match(r"v?(\d+\.\d+(\.\d+)?)", case["version"])
    return m.group(1) if m else None


class NotMeasured(Exception):
    """A case the manifest does not give enough to run plan on."""


def lead(v):
    """A setting's value without the words after it ("131072 (model
    default)" is 131072); None for a word ("default")."""
    m = re.match(r"\s*(\d+(\.\d+)?)", v)
    return m.group(1) if m else None


def card(case):
    """Where the card's memory comes from: ("printed", GiB) when the log
    prints its total, ("table", NAME) when the settings name the card
    (card= or gpu=) and the log does not; the table is plan's own
    (--gpu NAME). NotMeasured when neither."""
    s = kv(case["settings"])
    if re.fullmatch(r"\d+(\.\d+)?", case["gpu_gib"].strip()):
        return "printed", case["gpu_gib"].strip()
    name = s.get("card") or s.get("gpu")
    if name:
        return "table", name.split()[0]
    if engine(case) == "ollama":   # a fixed cache: the card does not size it
        return "nominal", "79.22"
    raise NotMeasured("the card's memory is not given (gpu_gib %r, no card= setting)" % case["gpu_gib"])


def model_name(case):
    """What the engine was told to load (settings model_name=, else the
    manifest's model column when it is one name): plan infers a
    quantisation from it only when the config names none."""
    s = kv(case["settings"])
    name = s.get("model_name") or case["model"].strip()
    return name if name and not re.search(r"\s", name) else None


ENGINE = {"llama.cpp": "ollama", "llamacpp": "ollama", "trtllm": "tensorrt-llm",
          "tensorrt_llm": "tensorrt-llm"}


def engine(case):
    """The manifest's engine as plan's --engine takes it."""
    e = case["engine"].strip().lower()
    return ENGINE.get(e, e)


def parallel(case):
    """(tp, pp) from the tp column ("4", or "1 (pp=2; ...)") and the
    settings (pp=, pipeline_parallel_size=); NotMeasured for what plan
    does not model (an uneven layer split)."""
    s = kv(case["settings"])
    m = re.match(r"\s*(\d+)", case["tp"])
    if not m:
        raise NotMeasured("tp column %r is not a number" % case["tp"])
    words = case["tp"][m.end():]
    pp = s.get("pp") or s.get("pipeline_parallel_size")
    wm = re.search(r"\bpp\s*=\s*(\d+)", words)
    if not pp and wm:
        pp = wm.group(1)
    if "VLLM_PP_LAYER_PARTITION" in s or "VLLM_PP_LAYER_PARTITION" in words:
        raise NotMeasured("an uneven pipeline layer split (VLLM_PP_LAYER_PARTITION) is not modelled")
    return m.group(1), (lead(pp) if pp else None)


def setting(s, *names):
    """The first of names the settings give, as a number, or None."""
    for n in names:
        if n in s and lead(s[n]):
            return lead(s[n])
    return None


def plan(binary, cfg, case, extra):
    s = kv(case["settings"])
    tp, pp = parallel(case)
    args = [binary, "plan", "--model", cfg, "--engine", engine(case), "--tp", tp,
            "--format", "json"]
    if pp:
        args += ["--pp", pp]
    src, what = card(case)
    if src in ("printed", "nominal"):
        args += ["--gpu-memory", what + "GiB"]
    if version(case):
        args += ["--engine-version", version(case)]
    if "gpu" in s or src == "table":
        args += ["--gpu", (s.get("gpu") or what).split()[0]]
    if model_name(case):
        args += ["--model-name", model_name(case)]
    free = kv(case["printed"]).get("free_at_start_gib")
    if free and lead(free):
        args += ["--free-memory", lead(free) + "GiB"]
    if "sampler" in s:
        args += ["--sampler", s["sampler"]]
    use_v1 = lead(s.get("VLLM_USE_V1", ""))
    if case["engine"] == "vllm" and use_v1 is not None:   # the engine the env chose
        args += ["--v1" if use_v1 == "1" else "--v0"]
    util = setting(s, "util", "kv_cache_free_gpu_memory_fraction", "free_gpu_memory_fraction")
    if util:
        args += ["--gpu-memory-utilization", util]
    block = setting(s, "block_size", "tokens_per_block")
    if block:
        args += ["--block-size", block]
    quant = s.get("quantization", "").split()
    if quant and "quant_method" not in case["arch"]:   # the engine quantised in flight
        args += ["--quantization", quant[0]]
    kvd = s.get("kv_cache_dtype", "").split()
    if kvd and kvd[0] != "auto":
        args += ["--kv-cache-dtype", kvd[0]]
    if engine(case) == "ollama":   # a fixed context of n_ctx cells, not a pool
        ctx = setting(s, "num_ctx", "n_ctx", "ctx", "max_model_len")
        par = setting(s, "num_parallel", "n_parallel", "parallel", "max_num_seqs")
        if ctx:
            args += ["--max-model-len", ctx]
        if par:
            args += ["--max-num-seqs", par]
    else:
        for k in ("max_model_len", "max_num_batched_tokens", "max_num_seqs"):
            if k in s and lead(s[k]):
                args += ["--" + k.replace("_", "-"), lead(s[k])]
    p = subprocess.run(args + extra, capture_output=True, text=True)
    if p.returncode not in (0, 1) or not p.stdout:
        raise RuntimeError("plan failed: %s" % p.stderr.strip())
    return json.loads(p.stdout)


OPTION = {"gpu_memory_utilization": "--gpu-memory-utilization", "max_model_len": "--max-model-len",
          "tensor_parallel_size": "--tp", "mem_fraction_static": "--gpu-memory-utilization"}


def refit(binary, cfg, case):
    """1 when plan says the case does not fit and its advised value fits."""
    r = plan(binary, cfg, case, [])
    a = r.get("advice") or {}
    if r["fits"] or a.get("knob") not in OPTION:
        return 0
    again = dict(case)
    if a["knob"] == "tensor_parallel_size":
        again["tp"] = re.sub(r"^\s*\d+", str(a["value"]), case["tp"])
        extra = []
    else:
        s = kv(case["settings"])
        s["util" if OPTION[a["knob"]] == "--gpu-memory-utilization" else a["knob"]] = a["value"]
        again["settings"] = ";".join("%s=%s" % i for i in s.items())
        extra = []
    return 1 if plan(binary, cfg, again, extra)["fits"] else 0


def lead_float(v):
    """The figure a printed value starts with ("3.61 (other rank: ...)"
    is 3.61): a manifest keeps the engine's words after the number."""
    word = re.match(r"\s*(yes|no)\b", v)
    if word:                       # fits=no (why): a verdict, as 1 or 0
        return 1.0 if word.group(1) == "yes" else 0.0
    m = re.match(r"\s*[-+]?\d+(\.\d+)?([eE][-+]?\d+)?", v)
    if not m:
        raise ValueError("printed value %r does not start with a number" % v)
    return float(m.group(0))


def rel(got, want):
    return (got - want) / want if want else float("inf")


def measure(binary, tmp, case, checks):
    """Append the checks of one manifest row to checks."""
    cfg = os.path.join(tmp, case["case"] + ".json")
    with open(cfg, "w") as f:
        json.dump(config(case["arch"]), f)
    pr = {k: lead_float(v) for k, v in kv(case["printed"]).items()}
    block = int(setting(kv(case["settings"]), "block_size", "tokens_per_block") or
                {"sglang": 1, "ollama": 1, "tensorrt-llm": 64}.get(engine(case), 16))
    want_tokens = pr.get("kv_tokens") or (pr["gpu_blocks"] * block if "gpu_blocks" in pr else None)

    def compare(mode, r, tol):
        if want_tokens:
            checks.append((case["case"], mode, "kv_cache_tokens", r["kv_cache_tokens"], want_tokens, tol))
        if "gpu_blocks" in pr:
            checks.append((case["case"], mode, "gpu_blocks", r["gpu_blocks"], pr["gpu_blocks"], tol))
        if "max_concurrency" in pr:
            # printed with two decimals: allow their rounding too
            checks.append((case["case"], mode, "max_concurrency", r["max_concurrency"],
                           pr["max_concurrency"], max(tol, 0.006 / pr["max_concurrency"])))

    if pr.get("fits") == 0:
        checks.append((case["case"], "F", "does not fit, advised value fits",
                       refit(binary, cfg, case), 1, 0))
        if "weights_gib" in pr:    # the weights load before the engine gives up
            r = plan(binary, cfg, case, [])
            checks.append((case["case"], "C", "weights_bytes", r["weights_bytes"] / GIB,
                           pr["weights_gib"], 0.05))
        return
    if "kv_gib" in pr:
        r = plan(binary, cfg, case, ["--kv-cache-bytes", "%.6fGiB" % pr["kv_gib"]])
        compare("A", r, 0.02)
    if engine(case) == "tensorrt-llm" and "free_after_load_gib" in pr:
        # TensorRT-LLM's pool is its fraction of what is free after the
        # load: the printed free memory stands for weights + non-KV
        total = float(card(case)[1]) if card(case)[0] == "printed" else None
        if total is None:
            raise NotMeasured("TensorRT-LLM B needs the printed total beside the free memory")
        r = plan(binary, cfg, case, ["--weights-bytes", "%.6fGiB" % (total - pr["free_after_load_gib"]),
                                     "--non-kv-bytes", "0"])
        if "kv_gib" in pr:
            checks.append((case["case"], "B", "kv_cache_bytes", r["kv_cache_bytes"] / GIB,
                           pr["kv_gib"], 0.02))
        compare("B", r, 0.02)
    elif "weights_gib" in pr and "non_kv_gib" in pr and "kv_gib" in pr:
        r = plan(binary, cfg, case, ["--weights-bytes", "%.6fGiB" % pr["weights_gib"],
                                     "--non-kv-bytes", "%.6fGiB" % pr["non_kv_gib"]])
        checks.append((case["case"], "B", "kv_cache_bytes", r["kv_cache_bytes"] / GIB, pr["kv_gib"], 0.02))
        compare("B", r, 0.02)
    r = plan(binary, cfg, case, [])
    if "weights_gib" in pr:
        checks.append((case["case"], "C", "weights_bytes", r["weights_bytes"] / GIB, pr["weights_gib"], 0.05))
    if want_tokens:
        checks.append((case["case"], "C", "kv_cache_tokens", r["kv_cache_tokens"], want_tokens, 0.15))
    elif "kv_gib" in pr:
        checks.append((case["case"], "C", "kv_cache_bytes", r["kv_cache_bytes"] / GIB, pr["kv_gib"], 0.15))


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    binary, manifest = sys.argv[1], sys.argv[2]
    markdown = "--markdown" in sys.argv
    rows = list(csv.DictReader(open(manifest), delimiter="\t"))
    checks = []   # (case, mode, what, got, want, tol)
    cards = {}    # case -> where its card's memory came from
    unmeasured = []
    with tempfile.TemporaryDirectory() as tmp:
        for case in rows:
            try:
                src, what = card(case)
                cards[case["case"]] = "%.2f GiB printed" % float(what) if src == "printed" \
                    else "%s GiB nominal (fixed cache)" % what if src == "nominal" \
                    else "table: %s" % what
            except NotMeasured:
                cards[case["case"]] = "none"
            try:
                measure(binary, tmp, case, checks)
            except NotMeasured as e:
                unmeasured.append((case["case"], "not measured", str(e)))
            except (RuntimeError, ValueError) as e:   # plan itself failed: a miss
                unmeasured.append((case["case"], "FAIL", str(e).splitlines()[0]))
    passed = failed = 0
    c_ok = c_all = 0
    if markdown:
        print("| case | card | mode | figure | plan | engine printed | error | tolerance |")
        print("|---|---|---|---|---|---|---|---|")
    for name, mode, what, got, want, tol in checks:
        e = rel(got, want)
        ok = abs(e) <= tol
        if markdown:
            print("| %s | %s | %s | %s | %.4g | %.4g | %+.1f %% | %s%.0f %% |" % (
                name, cards.get(name, ""), mode, what, got, want, 100 * e,
                "" if ok else "**miss** ", 100 * tol))
            continue
        if mode == "C":
            c_all += 1
            c_ok += ok
            print("%s %s %s %s: plan %.4g, printed %.4g (%+.1f %%, tolerance %.0f %%; card %s)" % (
                "ok  " if ok else "MISS", name, mode, what, got, want, 100 * e, 100 * tol,
                cards.get(name, "")))
            continue
        passed += ok
        failed += not ok
        print("%s %s %s %s: plan %.4g, printed %.4g (%+.1f %%; card %s)" % (
            "ok  " if ok else "FAIL", name, mode, what, got, want, 100 * e, cards.get(name, "")))
    for name, what, why in unmeasured:
        print("%s%s %s: %s" % ("- " if markdown else "", what, name, why))
    if markdown:
        return 0
    failed += sum(1 for u in unmeasured if u[1] == "FAIL")
    share = c_ok / c_all if c_all else 1.0
    print("C: %d of %d within tolerance (%.0f %%, at least 80 %% needed)" % (c_ok, c_all, 100 * share))
    if share >= 0.8:
        passed += 1
    else:
        failed += 1
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

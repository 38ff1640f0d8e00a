#!/usr/bin/env python3
"""gen_server_log.py BYTES -- a mixed serving-engine log of about BYTES on
stdout, deterministic (seeded): the real excerpts of tests/data/real/serving
(every wording the parser knows, wrappers and damage included) spread among
the lines a busy server prints most -- API access lines, V1 statistics,
"Finished request" lines -- with times that move forward.
"""
import glob
import os
import random
import sys

here = os.path.dirname(os.path.abspath(__file__))
excerpts = [open(p, encoding="utf-8", errors="replace").read()
            for p in sorted(glob.glob(os.path.join(here, "..", "tests", "data", "real",
                                                   "serving", "*.log")))]
rnd = random.Random(11)
want = int(sys.argv[1])
out = sys.stdout
n = 0
sec = 0
while n < want:
    sec += 1
    hh, mm, ss = sec // 3600 % 24, sec // 60 % 60, sec % 60
    stamp = "11-29 %02d:%02d:%02d" % (hh, mm, ss)
    block = []
    for i in range(40):
        block.append('INFO:     10.0.%d.%d:%d - "POST /v1/completions HTTP/1.1" 200 OK\n'
                     % (rnd.randrange(256), rnd.randrange(256), 30000 + rnd.randrange(30000)))
        if i % 8 == 0:
            block.append("INFO %s [async_llm.py:261] Finished request cmpl-%032x.\n"
                         % (stamp, rnd.getrandbits(128)))
    block.append("(APIServer pid=1) INFO %s [loggers.py:116] Engine 000: Avg prompt throughput:"
                 " %.1f tokens/s, Avg generation throughput: %.1f tokens/s, Running: %d reqs,"
                 " Waiting: %d reqs, GPU KV cache usage: %.1f%%, Prefix cache hit rate: %.1f%%\n"
                 % (stamp, rnd.random() * 9000, rnd.random() * 3000, rnd.randrange(256),
                    rnd.randrange(64), rnd.random() * 100, rnd.random() * 100))
    if sec % 50 == 0:
        block.append(excerpts[(sec // 50) % len(excerpts)])
        if not block[-1].endswith("\n"):
            block.append("\n")
    text = "".join(block)
    out.write(text)
    n += len(text.encode("utf-8"))

"""metrics_server.py -- a local HTTP server standing in for serving engines'
Prometheus endpoints, for tests/t_watch_metrics.sh (`oomlens watch
--metrics`). It serves real metrics text, captured verbatim from the
engines' issues (tests/data/real/tools/MANIFEST.tsv names each source),
and the endpoints a watcher must survive:

  /vllm /sglang /tgi /triton  the real captures; /sglang in chunked
                              transfer coding (HTTP/1.1), the others
                              with a Content-Length (HTTP/1.0)
  /hang       reads the request and never answers
  /big        200 and then more bytes than the watcher's bound (5 MiB)
  /redirect   302 to /vllm (redirects are not followed)
  /counts     how many requests each path received, as JSON
  /live       the current contents of LIVE_FILE (a test rewrites it to
              move the load), with a Content-Length

Usage: python3 metrics_server.py DATA_DIR PORT_FILE [LIVE_FILE]; it binds
127.0.0.1 on a free port, writes the port to PORT_FILE and serves until
killed.
"""
import json
import os
import socket
import socketserver
import sys
import threading
import time

DATA, PORT_FILE = sys.argv[1], sys.argv[2]
LIVE = sys.argv[3] if len(sys.argv) > 3 else None
FILES = {
    "/vllm": "prom-exposition-vllm-v1-router-backend-running-waiting-cache.txt",
    "/sglang": "prom-exposition-sglang-0.4-pd-num-running-token-usage.txt",
    "/tgi": "prom-exposition-tgis-vllm-adapter-queue-batch-partial.txt",
    "/triton": "prom-exposition-triton-24.08plus-resnet50-counts-partial.txt",
}
counts = {}
lock = threading.Lock()


class Handler(socketserver.BaseRequestHandler):
    def handle(self):
        req = b""
        while b"\r\n\r\n" not in req and len(req) < 65536:
            chunk = self.request.recv(4096)
            if not chunk:
                return
            req += chunk
        line = req.split(b"\r\n", 1)[0].decode("latin-1").split()
        path = line[1] if len(line) > 1 else "/"
        with lock:
            counts[path] = counts.get(path, 0) + 1
        s = self.request
        if path in FILES:
            body = open(os.path.join(DATA, FILES[path]), "rb").read()
            if path == "/sglang":
                out = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n"
                for i in range(0, len(body), 300):
                    part = body[i:i + 300]
                    out += b"%x\r\n" % len(part) + part + b"\r\n"
                s.sendall(out + b"0\r\n\r\n")
            else:
                s.sendall(b"HTTP/1.0 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\n"
                          b"Content-Length: %d\r\n\r\n" % len(body) + body)
        elif path == "/hang":
            time.sleep(30)
        elif path == "/big":
            s.sendall(b"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\n")
            line = b"vllm:num_requests_running{model_name=\"m\"} 1.0\n"
            try:
                for _ in range(5 * 1024 * 1024 // len(line) + 1):
                    s.sendall(line)
            except OSError:
                pass
        elif path == "/redirect":
            s.sendall(b"HTTP/1.0 302 Found\r\nLocation: /vllm\r\nContent-Length: 0\r\n\r\n")
        elif path == "/live" and LIVE:
            body = open(LIVE, "rb").read()
            s.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
        elif path == "/counts":
            body = json.dumps(counts).encode()
            s.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
        else:
            s.sendall(b"HTTP/1.0 404 Not Found\r\nContent-Length: 0\r\n\r\n")


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


srv = Server(("127.0.0.1", 0), Handler)
with open(PORT_FILE + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
os.rename(PORT_FILE + ".tmp", PORT_FILE)
srv.serve_forever()

#!/usr/bin/env python3
"""An HTTP server for gguffs's remote tests, with faults on demand. Standard library only.

Serves the files under --root with Range support, a strong ETag and If-Range, as nginx does.
Listens on 127.0.0.1 at a free port and prints the port on its first line of stdout. Each
request is logged to --log as one JSON object per line: method, path, range, status, whether an
Authorization header came (never its value), the Host header, and when it started and ended
(seconds), so a benchmark can count sequential round trips.

Paths:
  /FILE                       the file
  /OWNER/REPO/resolve/REV/FILE  the file, as the Hugging Face Hub names it
  /redirect/N/REST            302 to /redirect/N-1/REST, and /redirect/0/REST to /REST
                              (N+1 redirects in all)
  /other-host/REST            302 to the same server under the name "localhost" (another host)
  /status/CODE/REST           answers CODE
Faults (--fault), for ranges that start at or after --fault-from (default 0):
  none, norange (200 with the whole file), badrange (Content-Range off by one byte),
  truncate (half the body, then the connection closes), flaky (503 for the first two such
  requests, then normal), drip (100 bytes a second), change-after=N (after N requests the file
  is "replaced": a new ETag, so If-Range no longer matches)
--token T: answer 401 without an Authorization header, 403 with a wrong one.
--latency MS: wait before every answer.
"""

import argparse
import json
import os
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

args = None
lock = threading.Lock()
state = {"requests": 0, "faulted": 0}


def log(entry):
    if args.log:
        with lock, open(args.log, "a") as f:
            f.write(json.dumps(entry) + "\n")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def answer(self, status, headers=(), body=b""):
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)
        self.status = status

    def do_HEAD(self):
        self.do_GET()

    def do_GET(self):
        self.status = 0
        started = time.time()
        with lock:
            state["requests"] += 1
            number = state["requests"]
        if args.latency:
            time.sleep(args.latency / 1000)
        try:
            self.route(number)
        finally:
            log({"n": number, "method": self.command, "path": self.path,
                 "range": self.headers.get("Range"), "if_range": self.headers.get("If-Range"),
                 "status": self.status, "auth": "Authorization" in self.headers,
                 "host": self.headers.get("Host"), "start": started, "end": time.time()})

    def route(self, number):
        path = self.path
        m = re.match(r"^/redirect/(\d+)/(.*)$", path)
        if m:
            n = int(m.group(1))
            target = f"/redirect/{n - 1}/{m.group(2)}" if n > 0 else "/" + m.group(2)
            return self.answer(302, [("Location", target)])
        m = re.match(r"^/other-host/(.*)$", path)
        if m:
            port = self.server.server_address[1]
            return self.answer(302, [("Location", f"http://localhost:{port}/{m.group(1)}")])
        m = re.match(r"^/status/(\d+)/", path)
        if m:
            return self.answer(int(m.group(1)), [], b"refused\n")
        if args.token is not None and self.headers.get("Host", "").startswith("127.0.0.1"):
            auth = self.headers.get("Authorization")
            if auth is None:
                return self.answer(401, [], b"no token\n")
            if auth != "Bearer " + args.token:
                return self.answer(403, [], b"wrong token\n")
        m = re.match(r"^/[^/]+/[^/]+/resolve/[^/]+/(.*)$", path)
        if m:
            path = "/" + m.group(1)
        self.serve_file(path, number)

    def serve_file(self, path, number):
        file = os.path.join(args.root, path.lstrip("/"))
        if ".." in path or not os.path.isfile(file):
            return self.answer(404, [], b"not found\n")
        size = os.path.getsize(file)
        fault = args.fault
        etag = f'"{size:x}-v1"'
        replaced = False
        if fault.startswith("change-after="):
            if number > int(fault.split("=")[1]):
                etag = f'"{size:x}-v2"'
                replaced = True
            fault = "none"

        def read(first, last):
            if replaced:  # the "new" file: the old one's bytes reversed
                return open(file, "rb").read()[::-1][first:last + 1]
            with open(file, "rb") as f:
                f.seek(first)
                return f.read(last + 1 - first)

        headers = [("ETag", etag), ("Accept-Ranges", "bytes"),
                   ("Last-Modified", "Mon, 30 Nov 2026 12:00:00 GMT")]
        rng = self.headers.get("Range")
        m = re.match(r"^bytes=(\d+)-(\d+)$", rng or "")
        if_range = self.headers.get("If-Range")
        if not m or fault == "norange" or (if_range is not None and if_range != etag):
            return self.answer(200, headers, read(0, size - 1))
        first, last = int(m.group(1)), int(m.group(2))
        if first >= size:
            return self.answer(416, [("Content-Range", f"bytes */{size}")])
        last = min(last, size - 1)
        faulty = first >= args.fault_from and fault != "none"
        if faulty and fault == "flaky":
            with lock:
                state["faulted"] += 1
                if state["faulted"] <= 2:
                    return self.answer(503, [("Retry-After", "0")], b"busy\n")
            faulty = False
        body = read(first, last)
        shown_first, shown_last = first, last
        if faulty and fault == "badrange":
            shown_first, shown_last = first + 1, last + 1
        self.send_response(206)
        self.status = 206
        for k, v in headers + [("Content-Range", f"bytes {shown_first}-{shown_last}/{size}")]:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if faulty and fault == "truncate":
            self.wfile.write(body[:len(body) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        if faulty and fault == "drip":
            for i in range(0, len(body), 100):
                self.wfile.write(body[i:i + 100])
                self.wfile.flush()
                time.sleep(1)
            return
        self.wfile.write(body)


def main():
    global args
    p = argparse.ArgumentParser()
    p.add_argument("--root", required=True)
    p.add_argument("--log")
    p.add_argument("--fault", default="none")
    p.add_argument("--fault-from", type=int, default=0)
    p.add_argument("--latency", type=float, default=0)
    p.add_argument("--token")
    args = p.parse_args()
    # socketserver listens with a backlog of 5: more parallel connects than that lose their SYN
    # and wait a second for the retransmission. Real servers take hundreds.
    ThreadingHTTPServer.request_queue_size = 128
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())

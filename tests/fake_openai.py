#!/usr/bin/env python3
"""A tiny fake inference server for the `vramlab bench` tests.

    fake_openai.py PORTFILE [--mode MODE] [--model ID] [--owned-by NAME]
                   [--token-ms MS] [--prefill-ms MS] [--die-after N]

Listens on 127.0.0.1 at a free port, writes the port to PORTFILE, and
answers like an OpenAI-compatible server (/v1/models, /v1/completions and
/v1/chat/completions streaming server-sent events, the usage in the last
chunk) or, with --mode ollama, like Ollama (/api/tags, /api/generate, one
JSON object per line). The answer to a request of max_tokens (num_predict)
is that many pieces of text, one every --token-ms milliseconds after
--prefill-ms, so the rates the client measures are known: decode per
sequence 1000 / token-ms tokens/s, time to first token about prefill-ms.

Modes: openai (the default), ollama, html (every path answers 404 with an
HTML page: not an inference server), error (completions answer HTTP 500
with an OpenAI error object), noeos (the stream ends without its last
chunk). --die-after N: the process exits in the middle of the (N+1)-th
answer, as a server killed mid-run would.
"""
import argparse
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ARGS = None
COUNT = 0
LOCK = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def send_json(self, code, obj):
        body = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def html404(self):
        body = b"<html><body><h1>404 Not Found</h1></body></html>"
        self.send_response(404)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if ARGS.mode == "html":
            return self.html404()
        if ARGS.mode == "ollama":
            if self.path == "/api/tags":
                return self.send_json(200, {"models": [{"name": ARGS.model, "model": ARGS.model}]})
            return self.html404()
        if self.path == "/v1/models":
            return self.send_json(200, {"object": "list", "data": [
                {"id": ARGS.model, "object": "model", "owned_by": ARGS.owned_by}]})
        return self.html404()

    def do_POST(self):
        try:
            self.answer()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client went away (SIGINT in the tests)

    def answer(self):
        global COUNT
        n = int(self.headers.get("Content-Length", "0"))
        req = json.loads(self.rfile.read(n) or b"{}")
        if ARGS.mode == "html":
            return self.html404()
        with LOCK:
            COUNT += 1
            mine = COUNT
        if ARGS.mode == "error":
            return self.send_json(500, {"error": {"message": "the fake server failed on purpose",
                                                  "type": "server_error"}})
        ollama = self.path == "/api/generate"
        chat = self.path == "/v1/chat/completions"
        if not ollama and self.path not in ("/v1/completions", "/v1/chat/completions"):
            return self.html404()
        if ollama:
            tokens = int(req.get("options", {}).get("num_predict", 16))
            prompt = req.get("prompt", "")
        else:
            tokens = int(req.get("max_tokens", 16))
            prompt = req["messages"][0]["content"] if chat else req.get("prompt", "")
        prompt_tokens = len(prompt.split())
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson" if ollama else "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        time.sleep(ARGS.prefill_ms / 1000.0)
        for i in range(tokens):
            if ARGS.die_after >= 0 and mine > ARGS.die_after and i == tokens // 2:
                self.wfile.flush()
                os._exit(3)
            if ollama:
                line = json.dumps({"model": ARGS.model, "response": " w", "done": False}) + "\n"
            elif chat:
                line = "data: " + json.dumps({"choices": [{"index": 0, "delta": {"content": " w"},
                                                          "finish_reason": None}]}) + "\n\n"
            else:
                line = "data: " + json.dumps({"choices": [{"index": 0, "text": " w",
                                                          "finish_reason": None}]}) + "\n\n"
            self.wfile.write(line.encode())
            self.wfile.flush()
            if i + 1 < tokens:
                time.sleep(ARGS.token_ms / 1000.0)
        if ARGS.mode == "noeos":
            return
        if ollama:
            self.wfile.write((json.dumps({"model": ARGS.model, "response": "", "done": True,
                                          "prompt_eval_count": prompt_tokens,
                                          "eval_count": tokens}) + "\n").encode())
        else:
            last = {"choices": [{"index": 0, "text": "", "finish_reason": "length"}]}
            usage = {"choices": [], "usage": {"prompt_tokens": prompt_tokens,
                                              "completion_tokens": tokens,
                                              "total_tokens": prompt_tokens + tokens}}
            self.wfile.write(("data: " + json.dumps(last) + "\n\n").encode())
            self.wfile.write(("data: " + json.dumps(usage) + "\n\n").encode())
            self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()


def main():
    global ARGS
    p = argparse.ArgumentParser()
    p.add_argument("portfile")
    p.add_argument("--mode", default="openai",
                   choices=["openai", "ollama", "html", "error", "noeos"])
    p.add_argument("--model", default="llama-3.1-8b-instruct-Q4_K_M.gguf")
    p.add_argument("--owned-by", default="llamacpp")
    p.add_argument("--token-ms", type=float, default=5.0)
    p.add_argument("--prefill-ms", type=float, default=20.0)
    p.add_argument("--die-after", type=int, default=-1)
    ARGS = p.parse_args()
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    tmp = ARGS.portfile + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.replace(tmp, ARGS.portfile)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())

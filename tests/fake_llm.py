"""A misbehaving OpenAI-compatible LLM server on 127.0.0.1, for fault tests.

`mode` decides what `/v1/chat/completions` does: "slow" sleeps past any sensible timeout before
answering, "drop" sends the response headers and part of the body then closes the connection
(a server crashing mid-answer), "ok" answers at once. Every request is counted.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class FakeLLM:
    def __init__(self, mode: str = "slow", *, delay: float = 5.0) -> None:
        self.mode = mode
        self.delay = delay
        self.requests = 0
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> FakeLLM:
        threading.Thread(target=self._server.serve_forever, daemon=True,
                         kwargs={"poll_interval": 0.05}).start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                self.rfile.read(length)
                with fake._lock:
                    fake.requests += 1
                body = json.dumps({"choices": [{"message": {"role": "assistant",
                                                            "content": "A fine answer."}}]})
                if fake.mode == "slow":
                    time.sleep(fake.delay)
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if fake.mode == "drop":
                    self.wfile.write(body[:10].encode())
                    self.wfile.flush()
                    self.close_connection = True
                    self.connection.close()
                    return
                # the client may have given up waiting, as it should
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.wfile.write(body.encode())

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return Handler

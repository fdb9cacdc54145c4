"""A scripted OpenAI-compatible chat server on 127.0.0.1 for the model planner's tests.

Every `/v1/chat/completions` body is recorded (`bodies`), so a test can assert what the model
was shown: the prompt and the JSON schema. `reply` is what the model "chose": a dict (sent as
the message's JSON content), a string (sent as is), or a callable of the request body. `mode`:
"ok" answers at once; "error" answers HTTP 500; "hold" waits until `release()` is called (a
model still thinking: the test waits for the adapter's placeholder, then releases it; a client
with a shorter timeout gives up first); "drip" sends its headers, then the body one byte every
`drip_s` seconds (a slow server no per-read timeout catches), and sets `abandoned` when the
client hangs up before the end. `received` is set on every request.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = dict[str, Any] | str | Callable[[dict[str, Any]], Any]


def reading(
    metrics: list[str] | None = None,
    entities: list[str] | None = None,
    periods: list[str] | None = None,
    *,
    route: str = "figure",
    channels: list[str] | None = None,
    table: str = "none",
) -> dict[str, Any]:
    """A model reply in the planner's schema."""
    return {"route": route, "metrics": metrics or [], "entities": entities or [],
            "periods": periods or [], "channels": channels or [], "table": table}


class FakePlannerLLM:
    def __init__(self, reply: Reply | None = None, *, mode: str = "ok",
                 drip_s: float = 0.5) -> None:
        self.reply: Reply = reply if reply is not None else reading()
        self.mode = mode
        self.drip_s = drip_s
        self.abandoned = threading.Event()
        self.bodies: list[dict[str, Any]] = []
        self.received = threading.Event()
        self._released = threading.Event()
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> FakePlannerLLM:
        threading.Thread(target=self._server.serve_forever, daemon=True,
                         kwargs={"poll_interval": 0.05}).start()
        return self

    def stop(self) -> None:
        self.release()
        self._server.shutdown()
        self._server.server_close()

    def hold(self) -> None:
        """From now on requests wait for `release()` (and `received` tells when one came)."""
        self.mode = "hold"
        self._released.clear()
        self.received.clear()

    def drip(self) -> None:
        """From now on replies come one byte every `drip_s` seconds (`received`, `abandoned`
        cleared)."""
        self.mode = "drip"
        self._released.clear()
        self.received.clear()
        self.abandoned.clear()

    def release(self) -> None:
        """Let held requests answer; later ones answer at once."""
        self.mode = "ok"
        self._released.set()

    def __enter__(self) -> FakePlannerLLM:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def requests(self) -> int:
        with self._lock:
            return len(self.bodies)

    def prompt_text(self, index: int = -1) -> str:
        return "\n".join(m["content"] for m in self.bodies[index]["messages"])

    def schema(self, index: int = -1) -> dict[str, Any]:
        return self.bodies[index]["response_format"]["json_schema"]["schema"]

    def _content(self, body: dict[str, Any]) -> str:
        reply = self.reply(body) if callable(self.reply) else self.reply
        return reply if isinstance(reply, str) else json.dumps(reply)

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                with fake._lock:
                    fake.bodies.append(body)
                fake.received.set()
                if fake.mode == "hold":
                    fake._released.wait(60)  # a test releases it, or stops the server
                status = 500 if fake.mode == "error" else 200
                if status == 500:
                    payload = b'{"error": "internal"}'
                else:
                    message = {"role": "assistant", "content": fake._content(body)}
                    payload = json.dumps({"choices": [{"message": message}]}).encode()
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    if fake.mode != "drip":
                        self.wfile.write(payload)
                        return
                    self.wfile.flush()
                    for i in range(len(payload)):
                        if fake._released.wait(fake.drip_s) and fake.mode != "drip":
                            self.wfile.write(payload[i:])  # released: the rest at once
                            return
                        try:
                            self.wfile.write(payload[i:i + 1])
                            self.wfile.flush()
                        except (BrokenPipeError, ConnectionResetError):
                            fake.abandoned.set()
                            return

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return Handler

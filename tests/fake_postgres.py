"""A PostgreSQL server on 127.0.0.1 that refuses every password, as a real one does: it asks
for the password in clear text and answers `password authentication failed` (SQLSTATE 28P01).

The test database trusts every local connection, so a real wrong password cannot be produced
there; this speaks just enough of the wire protocol (SSL/GSS refusal, startup, cleartext
password, error) for psycopg to send the password and report the failure.
"""

from __future__ import annotations

import contextlib
import socket
import struct
import threading


class RefusingPostgres:
    def __init__(self) -> None:
        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(8)
        self.port = int(self._sock.getsockname()[1])
        self.passwords: list[str] = []  # what clients sent: the test checks one really was
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def start(self) -> RefusingPostgres:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._sock.close()
        self._thread.join(timeout=5)

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            with conn, contextlib.suppress(OSError, struct.error):
                self._one(conn)

    def _one(self, conn: socket.socket) -> None:
        while True:  # SSLRequest / GSSENCRequest first: refused with "N"
            length, code = struct.unpack("!ii", _read(conn, 8))
            body = _read(conn, length - 8)
            if code in (80877103, 80877104):
                conn.sendall(b"N")
                continue
            break
        user = body.split(b"\x00")[1].decode() if b"user" in body else "?"
        conn.sendall(b"R" + struct.pack("!ii", 8, 3))  # AuthenticationCleartextPassword
        kind = _read(conn, 1)
        length = struct.unpack("!i", _read(conn, 4))[0]
        password = _read(conn, length - 4).rstrip(b"\x00").decode()
        if kind == b"p":
            self.passwords.append(password)
        fields = (b"SFATAL\x00VFATAL\x00C28P01\x00M"
                  + f'password authentication failed for user "{user}"'.encode() + b"\x00\x00")
        conn.sendall(b"E" + struct.pack("!i", len(fields) + 4) + fields)


def _read(conn: socket.socket, n: int) -> bytes:
    out = b""
    while len(out) < n:
        chunk = conn.recv(n - len(out))
        if not chunk:
            raise OSError("closed")
        out += chunk
    return out

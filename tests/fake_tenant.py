"""A fake Entra side of a Teams bot, over HTTPS on 127.0.0.1 (MSAL only talks to an https
authority): each tenant's OpenID metadata and token endpoint (client credentials), and the
managed-identity endpoint an Azure App Service host offers (IDENTITY_ENDPOINT /
IDENTITY_HEADER). The one app it knows is tests.fake_teams' APP_ID, registered in `home` as a
single-tenant app (a token from any other tenant is refused, as Entra refuses it) or as a
multi-tenant one (its token comes from `botframework.com`). Every request is recorded.

`env()` is what the bot process needs to use it: the login URL and the CA bundle that trusts
the self-signed certificate made here."""

from __future__ import annotations

import datetime as dt
import ipaddress
import json
import ssl
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID

from tests.fake_teams import ACCESS, APP_ID, PASSWORD

TENANT = "7d3c0e5a-1b2f-4c6d-9e8f-0a1b2c3d4e5f"
MULTI = "botframework.com"
IDENTITY_HEADER = "fake-identity-header-91c2"
BOT_RESOURCE = "https://api.botframework.com"


def _certificate(folder: Path) -> tuple[Path, Path]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = dt.datetime.now(dt.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(hours=1))
            .not_valid_after(now + dt.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_file, key_file = folder / "tenant.pem", folder / "tenant.key"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_file, key_file


class FakeTenant:
    def __init__(self, folder: Path, *, home: str = TENANT, multi_tenant: bool = False) -> None:
        self.home, self.multi_tenant = home, multi_tenant
        self.requests: list[tuple[str, str]] = []  # (method, path) of every request
        self.tokens: list[tuple[str, str]] = []  # (tenant or "managed-identity", client id)
        self.cond = threading.Condition()
        self.ca_file, key_file = _certificate(folder)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(self.ca_file, key_file)
        self._server.socket = context.wrap_socket(self._server.socket, server_side=True)
        self.url = f"https://127.0.0.1:{self._server.server_port}"
        self.identity_endpoint = self.url + "/msi/token"

    def start(self) -> FakeTenant:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def env(self) -> dict[str, str]:
        return {"RICORDA_TEAMS_LOGIN_URL": self.url, "REQUESTS_CA_BUNDLE": str(self.ca_file)}

    def managed_identity_env(self) -> dict[str, str]:
        """What App Service sets in a container with a managed identity attached."""
        return {"IDENTITY_ENDPOINT": self.identity_endpoint, "IDENTITY_HEADER": IDENTITY_HEADER}

    def _accepts(self, tenant: str, client_id: str, secret: str) -> bool:
        registered = MULTI if self.multi_tenant else self.home
        return (client_id, secret, tenant) == (APP_ID, PASSWORD, registered)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _reply(self, status: int, body: Any) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _record(self) -> None:
                with fake.cond:
                    fake.requests.append((self.command, self.path))
                    fake.cond.notify_all()

            def do_GET(self) -> None:
                self._record()
                url = urlsplit(self.path)
                parts = url.path.strip("/").split("/")
                if url.path == "/msi/token":
                    self._managed_identity(dict(parse_qsl(url.query)))
                elif parts[1:] == ["v2.0", ".well-known", "openid-configuration"]:
                    base = f"{fake.url}/{parts[0]}"
                    self._reply(200, {
                        "issuer": f"{base}/v2.0", "token_endpoint": f"{base}/oauth2/v2.0/token",
                        "authorization_endpoint": f"{base}/oauth2/v2.0/authorize",
                        "jwks_uri": f"{base}/discovery/v2.0/keys"})
                else:
                    self._reply(404, {"error": "not_found"})

            def do_POST(self) -> None:
                self._record()
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                parts = self.path.strip("/").split("/")
                if parts[1:] != ["oauth2", "v2.0", "token"]:
                    self._reply(404, {"error": "not_found"})
                    return
                form = dict(parse_qsl(body.decode()))
                client = form.get("client_id", "")
                if not fake._accepts(parts[0], client, form.get("client_secret", "")):
                    self._reply(400, {"error": "unauthorized_client", "error_description":
                                      f"AADSTS700016: Application with identifier '{client}' "
                                      f"was not found in the directory '{parts[0]}'."})
                    return
                self._issue(parts[0], client)

            def _managed_identity(self, query: dict[str, str]) -> None:
                if (self.headers.get("X-IDENTITY-HEADER") != IDENTITY_HEADER
                        or query.get("client_id") != APP_ID
                        or query.get("resource") != BOT_RESOURCE):
                    self._reply(400, {"statusCode": 400, "message": "no such identity"})
                    return
                self._issue("managed-identity", APP_ID, expires_on=True)

            def _issue(self, tenant: str, client: str, *, expires_on: bool = False) -> None:
                with fake.cond:
                    fake.tokens.append((tenant, client))
                    fake.cond.notify_all()
                body: dict[str, Any] = {"access_token": ACCESS, "token_type": "Bearer"}
                if expires_on:
                    body |= {"expires_on": str(int(time.time()) + 3600),
                             "resource": BOT_RESOURCE}
                else:
                    body["expires_in"] = 3600
                self._reply(200, body)

        return Handler

"""An MCP server protected by OAuth 2.1 with the official MCP Python SDK's own authorization
server support (SPEC §H.4.6): protected-resource and authorization-server metadata, dynamic
client registration, PKCE authorization codes, refresh tokens, all in memory. The authorize
endpoint approves at once (the test plays the user's browser).

Besides the clients that register themselves, one is registered beforehand, as an
application's own would be: `vi-test-app`, a public client that may redirect to any port of
127.0.0.1 (RFC 8252 §7.3) — the SDK itself matches registered redirect uris exactly.

The first access token of an authorization lives 30 s — inside the client's 60 s refresh
margin, so the next request refreshes it; refreshed ones live an hour. Refresh tokens rotate.

Usage: oauth_server.py streamable-http|sse PORT LOG [--cimd] [--iss=good|wrong|missing] [--no-admin]
LOG receives one JSON line per authorization-server event (register, document, authorize,
exchange, refresh, refused) and the tool `whoami` says which client and token generation called
it; LOG.paths receives the method and path of every HTTP request, a line each.

Of MCP revision 2026-07-28 (SPEC §I.3.6), switched on by the flags:
  --cimd          the metadata says `client_id_metadata_document_supported`; a client id that is
                  an http(s) url is fetched as the client's metadata document (event `document`),
                  whose `client_id` must be that url.
  --iss=good      the metadata says `authorization_response_iss_parameter_supported` and every
                  authorization response carries `iss` = the issuer (RFC 9207); `wrong` carries
                  another issuer, `missing` none.
  --no-admin      the authorization server never grants the scope `admin` (the user declines it).
The tool `admin_notes` needs the scope `admin`: without it the request is answered
`403` with `WWW-Authenticate: Bearer error="insufficient_scope", scope="admin"` (step-up).
"""

import asyncio
import json
import secrets
import sys
import time
import urllib.request

import uvicorn

from pydantic import AnyHttpUrl

from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    TokenError,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import InvalidRedirectUriError, InvalidScopeError, OAuthClientInformationFull, OAuthToken

import mcp.server.auth.routes as auth_routes

PORT = int(sys.argv[2])
LOG = sys.argv[3]
FLAGS = set(sys.argv[4:])
CIMD = "--cimd" in FLAGS
ISS = next((f.split("=", 1)[1] for f in FLAGS if f.startswith("--iss=")), None)
NO_ADMIN = "--no-admin" in FLAGS
ORIGIN = f"http://127.0.0.1:{PORT}"
ISSUER = str(AnyHttpUrl(ORIGIN))  # as the metadata writes it: with a trailing slash
RESOURCE = f"{ORIGIN}/mcp" if sys.argv[1] == "streamable-http" else f"{ORIGIN}/sse"


def log(event: str, **fields) -> None:
    with open(LOG, "a", encoding="utf-8") as f:
        f.write(json.dumps({"event": event, **fields}) + "\n")


SCOPES = ["notes", "admin"]


class LoopbackClient(OAuthClientInformationFull):
    """A native application's client: any loopback port, path /callback; any of the server's
    scopes, so that a step-up to `admin` needs no new registration."""

    def validate_scope(self, requested_scope):
        if requested_scope is None:
            return None
        for scope in requested_scope.split(" "):
            if scope not in SCOPES:
                raise InvalidScopeError(f"the scope {scope} is not offered")
        return requested_scope.split(" ")

    def validate_redirect_uri(self, redirect_uri):
        if redirect_uri is None or redirect_uri.scheme != "http" or redirect_uri.host != "127.0.0.1" \
                or redirect_uri.path != "/callback":
            raise InvalidRedirectUriError(f"{redirect_uri} is not a loopback /callback uri")
        return redirect_uri


APP = LoopbackClient(client_id="vi-test-app", redirect_uris=["http://127.0.0.1/callback"],
                     token_endpoint_auth_method="none", grant_types=["authorization_code", "refresh_token"],
                     response_types=["code"], scope="notes admin")


class Provider:
    def __init__(self) -> None:
        self.clients: dict[str, OAuthClientInformationFull] = {APP.client_id: APP}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}
        self.generation = 0

    async def get_client(self, client_id: str):
        if CIMD and client_id.startswith(("https://", "http://")) and client_id not in self.clients:
            self.clients[client_id] = await self.document(client_id)
        return self.clients.get(client_id)

    async def document(self, url: str):
        """A Client ID Metadata Document: fetched, and valid only when it names its own url."""
        def fetch():
            with urllib.request.urlopen(url, timeout=10) as answer:
                return json.loads(answer.read())

        try:
            doc = await asyncio.to_thread(fetch)
        except Exception as e:  # noqa: BLE001 - an unreadable document is no client
            log("document", client=url, error=str(e))
            return None
        if doc.get("client_id") != url:
            log("document", client=url, error="the document's client_id is not its url")
            return None
        log("document", client=url)
        return LoopbackClient(client_id=url, redirect_uris=doc.get("redirect_uris"), token_endpoint_auth_method="none",
                              grant_types=doc.get("grant_types", ["authorization_code", "refresh_token"]),
                              response_types=["code"], scope=doc.get("scope", "notes admin"),
                              client_name=doc.get("client_name"))

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        self.clients[client_info.client_id] = LoopbackClient(**client_info.model_dump())
        log("register", redirect_uris=[str(u) for u in client_info.redirect_uris or []],
            auth_method=client_info.token_endpoint_auth_method)

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        code = secrets.token_urlsafe(24)
        granted = [s for s in params.scopes or [] if not (NO_ADMIN and s == "admin")]
        self.codes[code] = AuthorizationCode(
            code=code, scopes=granted, expires_at=time.time() + 300, client_id=client.client_id,
            code_challenge=params.code_challenge, redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly, resource=params.resource)
        log("authorize", client=client.client_id, resource=params.resource, scopes=params.scopes,
            has_state=bool(params.state))
        iss = {"good": ISSUER, "wrong": "http://127.0.0.1:1/"}.get(ISS)
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state, iss=iss)

    async def load_authorization_code(self, client, authorization_code: str):
        return self.codes.get(authorization_code)

    def issue(self, client_id: str, scopes: list[str], resource: str | None, lifetime: int) -> OAuthToken:
        self.generation += 1
        access = f"access-{self.generation}-{secrets.token_urlsafe(16)}"
        refresh = f"refresh-{self.generation}-{secrets.token_urlsafe(16)}"
        self.access[access] = AccessToken(token=access, client_id=client_id, scopes=scopes,
                                          expires_at=int(time.time()) + lifetime, resource=resource,
                                          claims={"generation": self.generation})
        self.refresh[refresh] = RefreshToken(token=refresh, client_id=client_id, scopes=scopes, resource=resource)
        return OAuthToken(access_token=access, token_type="Bearer", expires_in=lifetime, refresh_token=refresh,
                          scope=" ".join(scopes))

    async def exchange_authorization_code(self, client, authorization_code: AuthorizationCode) -> OAuthToken:
        del self.codes[authorization_code.code]
        log("exchange", resource=authorization_code.resource)
        return self.issue(client.client_id, authorization_code.scopes, authorization_code.resource, 30)

    async def load_refresh_token(self, client, refresh_token: str):
        token = self.refresh.get(refresh_token)
        if token is None:
            log("refused", grant="refresh_token")
        return token

    async def exchange_refresh_token(self, client, refresh_token: RefreshToken, scopes: list[str]) -> OAuthToken:
        del self.refresh[refresh_token.token]
        log("refresh", resource=refresh_token.resource)
        return self.issue(client.client_id, scopes or refresh_token.scopes, refresh_token.resource, 3600)

    async def load_access_token(self, token: str):
        found = self.access.get(token)
        if found is None or (found.expires_at and found.expires_at < time.time()):
            return None
        return found

    async def revoke_token(self, token) -> None:
        self.access.pop(getattr(token, "token", ""), None)


_build_metadata = auth_routes.build_metadata


def build_metadata(*args, **kwargs):
    """The SDK's metadata with the 2026 flags the command line asks for."""
    metadata = _build_metadata(*args, **kwargs)
    if CIMD:
        metadata.client_id_metadata_document_supported = True
    if ISS:
        metadata.authorization_response_iss_parameter_supported = True
    return metadata


auth_routes.build_metadata = build_metadata

provider = Provider()
server = MCPServer(
    "vi-test-oauth",
    auth_server_provider=provider,
    auth=AuthSettings(
        issuer_url=AnyHttpUrl(ORIGIN),
        resource_server_url=AnyHttpUrl(RESOURCE),
        client_registration_options=ClientRegistrationOptions(enabled=True, valid_scopes=SCOPES, default_scopes=["notes"]),
        required_scopes=["notes"],
        validate_token_resource=True,
    ),
)


@server.tool(description="Says which client and which token generation called it.")
def whoami() -> str:
    token = get_access_token()
    generation = (token.claims or {}).get("generation") if token else None
    return f"client {token.client_id if token else None}, token generation {generation}"


@server.tool(description="Revokes every access token: the next request is refused.")
def revoke_all() -> str:
    provider.access.clear()
    return "revoked"


@server.tool(description="Notes only the scope admin may read.")
def admin_notes() -> str:
    token = get_access_token()
    return f"admin notes for {token.client_id if token else None}, scopes {' '.join(token.scopes) if token else ''}"


def guarded(app):
    """`app`, with the paths of all requests logged to LOG.paths and a call of `admin_notes`
    without the scope `admin` answered 403 insufficient_scope (RFC 6750 §3.1)."""

    async def guard(scope, receive, send):
        if scope["type"] != "http":
            return await app(scope, receive, send)
        with open(LOG + ".paths", "a", encoding="utf-8") as f:
            f.write(f"{scope['method']} {scope['path']}\n")
        messages = []
        while scope["method"] == "POST":
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request" or not message.get("more_body", False):
                break
        body = b"".join(m.get("body", b"") for m in messages)
        headers = dict(scope["headers"])
        bearer = headers.get(b"authorization", b"").decode("latin-1").removeprefix("Bearer ")
        token = await provider.load_access_token(bearer)
        try:
            call = json.loads(body) if body else {}
        except ValueError:
            call = {}
        wants_admin = isinstance(call, dict) and call.get("method") == "tools/call" \
            and (call.get("params") or {}).get("name") == "admin_notes"
        if token is not None and wants_admin and "admin" not in token.scopes:
            log("insufficient_scope", scopes=token.scopes)
            metadata = f"{ORIGIN}/.well-known/oauth-protected-resource{RESOURCE[len(ORIGIN):]}"
            challenge = f'Bearer error="insufficient_scope", scope="admin", resource_metadata="{metadata}", ' \
                'error_description="admin_notes needs the scope admin"'
            answer = json.dumps({"error": "insufficient_scope"}).encode()
            await send({"type": "http.response.start", "status": 403, "headers": [
                (b"content-type", b"application/json"), (b"content-length", str(len(answer)).encode()),
                (b"www-authenticate", challenge.encode())]})
            return await send({"type": "http.response.body", "body": answer})
        replay = iter(messages)

        async def receive_again():
            return next(replay, None) or await receive()

        return await app(scope, receive_again, send)

    return guard


if __name__ == "__main__":
    app = server.streamable_http_app() if sys.argv[1] == "streamable-http" else server.sse_app()
    uvicorn.run(guarded(app), host="127.0.0.1", port=PORT, log_level="warning")

"""An MCP server protected by OAuth 2.1 with the official MCP Python SDK's own authorization
server support (SPEC §H.4.6): protected-resource and authorization-server metadata, dynamic
client registration, PKCE authorization codes, refresh tokens, all in memory. The authorize
endpoint approves at once (the test plays the user's browser).

Besides the clients that register themselves, one is registered beforehand, as an
application's own would be: `vi-test-app`, a public client that may redirect to any port of
127.0.0.1 (RFC 8252 §7.3) — the SDK itself matches registered redirect uris exactly.

The first access token of an authorization lives 30 s — inside the client's 60 s refresh
margin, so the next request refreshes it; refreshed ones live an hour. Refresh tokens rotate.

Usage: oauth_server.py streamable-http|sse PORT LOG
LOG receives one JSON line per authorization-server event (register, authorize, exchange,
refresh, refused) and the tool `whoami` says which client and token generation called it.
"""

import json
import secrets
import sys
import time

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
from mcp.shared.auth import InvalidRedirectUriError, OAuthClientInformationFull, OAuthToken

from serve import serve

PORT = int(sys.argv[2])
LOG = sys.argv[3]
ORIGIN = f"http://127.0.0.1:{PORT}"
RESOURCE = f"{ORIGIN}/mcp" if sys.argv[1] == "streamable-http" else f"{ORIGIN}/sse"


def log(event: str, **fields) -> None:
    with open(LOG, "a", encoding="utf-8") as f:
        f.write(json.dumps({"event": event, **fields}) + "\n")


class LoopbackClient(OAuthClientInformationFull):
    """A native application's client: any loopback port, path /callback."""

    def validate_redirect_uri(self, redirect_uri):
        if redirect_uri is None or redirect_uri.scheme != "http" or redirect_uri.host != "127.0.0.1" \
                or redirect_uri.path != "/callback":
            raise InvalidRedirectUriError(f"{redirect_uri} is not a loopback /callback uri")
        return redirect_uri


APP = LoopbackClient(client_id="vi-test-app", redirect_uris=["http://127.0.0.1/callback"],
                     token_endpoint_auth_method="none", grant_types=["authorization_code", "refresh_token"],
                     response_types=["code"], scope="notes")


class Provider:
    def __init__(self) -> None:
        self.clients: dict[str, OAuthClientInformationFull] = {APP.client_id: APP}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}
        self.generation = 0

    async def get_client(self, client_id: str):
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        self.clients[client_info.client_id] = client_info
        log("register", redirect_uris=[str(u) for u in client_info.redirect_uris or []],
            auth_method=client_info.token_endpoint_auth_method)

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        code = secrets.token_urlsafe(24)
        self.codes[code] = AuthorizationCode(
            code=code, scopes=params.scopes or [], expires_at=time.time() + 300, client_id=client.client_id,
            code_challenge=params.code_challenge, redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly, resource=params.resource)
        log("authorize", client=client.client_id, resource=params.resource, scopes=params.scopes,
            has_state=bool(params.state))
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

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


provider = Provider()
server = MCPServer(
    "vi-test-oauth",
    auth_server_provider=provider,
    auth=AuthSettings(
        issuer_url=AnyHttpUrl(ORIGIN),
        resource_server_url=AnyHttpUrl(RESOURCE),
        client_registration_options=ClientRegistrationOptions(enabled=True, valid_scopes=["notes"], default_scopes=["notes"]),
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


if __name__ == "__main__":
    serve(server)

"""A Client ID Metadata Document (MCP authorization, revision 2026-07-28; SPEC §I.3.6) as an
application would publish it, served on 127.0.0.1 for the OAuth tests: GET /client.json gives
the document whose `client_id` is its own url, `http://127.0.0.1:PORT/client.json`; it names
the loopback redirect uri (any port, RFC 8252 §7.3) of a native public client.

Usage: client_document.py http PORT
"""

import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PORT = int(sys.argv[2])
URL = f"http://127.0.0.1:{PORT}/client.json"
DOCUMENT = {
    "client_id": URL,
    "client_name": "Visindigo Agent tests",
    "redirect_uris": ["http://127.0.0.1/callback"],
    "grant_types": ["authorization_code", "refresh_token"],
    "response_types": ["code"],
    "token_endpoint_auth_method": "none",
    "scope": "notes admin",
}


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 - the http.server name
        body = json.dumps(DOCUMENT).encode() if self.path == "/client.json" else b"{}"
        self.send_response(200 if self.path == "/client.json" else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


ThreadingHTTPServer(("127.0.0.1", PORT), Handler).serve_forever()

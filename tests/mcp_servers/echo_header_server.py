"""Not an MCP server: an HTTP endpoint that answers every POST with an error quoting the
request's Authorization header, as careless servers and gateways do. The secret must not come
out of the library (SPEC §I.5.1).

Usage: echo_header_server.py [MODE] PORT (the mode is ignored)
"""

import http.server
import json
import sys


class Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = json.dumps({"error": {"message": f"bad credentials: {self.headers.get('Authorization')}"}}).encode()
        self.send_response(400)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


http.server.HTTPServer(("127.0.0.1", int(sys.argv[-1])), Handler).serve_forever()

"""Runs an MCP test server the way its command line says: `stdio`, or `streamable-http PORT` /
`sse PORT` on 127.0.0.1."""

import sys


def serve(server) -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "stdio"
    if mode == "stdio":
        server.run("stdio")
    else:
        server.run(mode, host="127.0.0.1", port=int(sys.argv[2]))

"""Runs an MCP test server the way its command line says: `stdio`, or `streamable-http PORT` /
`sse PORT` on 127.0.0.1.

Flags anywhere after the mode: `--legacy` rejects `server/discover` with -32601 (a server of
2025-11-25 and older, SPEC §I.3.1); over stdio, `--silent-discover` never answers it and
`--exit-on-discover` exits when it comes (a server that hangs or dies on an unknown method);
`--stateless` and `--json` run streamable HTTP without sessions and with JSON answers instead
of event streams; `--record=FILE` (streamable HTTP)
appends every HTTP request the server receives to FILE as a JSON line: method, `mcp-*` headers,
body."""

import json
import os
import subprocess
import sys
import threading

from mcp_types import METHOD_NOT_FOUND, RequestParams

from mcp.shared.exceptions import MCPError


def _no_discover(ctx, params):
    raise MCPError(METHOD_NOT_FOUND, "Method not found: server/discover")


def _legacy_stdio() -> None:
    """The SDK's stdio server decides the revision on the first message, so a legacy one is
    this script without `--legacy` behind a relay that answers `server/discover` with -32601,
    as a server of 2025-11-25 and older does. With VI_MCP_METHOD_LOG set, the method of every
    message the client sends is appended to that file, a line each."""
    log = os.environ.get("VI_MCP_METHOD_LOG")
    relay_flags = ("--legacy", "--silent-discover", "--exit-on-discover")
    argv = [sys.executable, sys.argv[0]] + [a for a in sys.argv[1:] if a not in relay_flags]
    child = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    lock = threading.Lock()

    def write(line: bytes) -> None:
        with lock:
            sys.stdout.buffer.write(line)
            sys.stdout.buffer.flush()

    def relay_out() -> None:
        for line in child.stdout:
            write(line)
        os._exit(child.wait())  # the server is gone: so is this relay

    threading.Thread(target=relay_out, daemon=True).start()
    for line in sys.stdin.buffer:
        try:
            message = json.loads(line)
        except ValueError:
            message = None
        if log and isinstance(message, dict) and "method" in message:
            with open(log, "a") as f:
                f.write(f"{message['method']}\n")
        if isinstance(message, dict) and message.get("method") == "server/discover":
            if "--exit-on-discover" in sys.argv:
                child.kill()
                os._exit(3)
            if "--silent-discover" in sys.argv:
                continue
            error = {"code": METHOD_NOT_FOUND, "message": "Method not found"}
            write((json.dumps({"jsonrpc": "2.0", "id": message.get("id"), "error": error}) + "\n").encode())
            continue
        child.stdin.write(line)
        child.stdin.flush()
    child.stdin.close()
    child.wait()


def _recorded(app, path: str):
    """The ASGI app `app`, writing each HTTP request to `path` before handing it on unchanged."""

    async def recorded(scope, receive, send):
        if scope["type"] != "http":
            return await app(scope, receive, send)
        messages = []
        while True:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request" or not message.get("more_body", False):
                break
        body = b"".join(m.get("body", b"") for m in messages)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        line = {
            "method": scope["method"],
            "headers": {k: v for k, v in headers.items() if k.startswith("mcp-")},
            "body": body.decode("utf-8", "replace"),
        }
        with open(path, "a") as f:
            f.write(json.dumps(line) + "\n")
        replay = iter(messages)

        async def receive_again():
            return next(replay, None) or await receive()

        return await app(scope, receive_again, send)

    return recorded


def serve(server) -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    flags = {a for a in sys.argv[1:] if a.startswith("--")}
    mode = args[0] if args else "stdio"
    if mode == "stdio" and {"--silent-discover", "--exit-on-discover"} & set(flags):
        return _legacy_stdio()
    if "--legacy" in flags:
        if mode == "stdio":
            return _legacy_stdio()
        server._lowlevel_server.add_request_handler("server/discover", RequestParams, _no_discover)
        if mode == "sse":
            # The SSE server, like stdio, decides the revision on the opening message: this
            # makes every connection one of 2025-11-25, where the handler above refuses discover.
            import mcp.server.runner

            mcp.server.runner._has_modern_envelope = lambda params: False
    if mode == "stdio":
        server.run("stdio")
    elif mode == "streamable-http" and any(f.startswith("--record=") for f in flags):
        import uvicorn

        record = next(f for f in flags if f.startswith("--record="))[len("--record=") :]
        app = server.streamable_http_app(stateless_http="--stateless" in flags, json_response="--json" in flags)
        uvicorn.run(_recorded(app, record), host="127.0.0.1", port=int(args[1]), log_level="warning")
    elif mode == "streamable-http":
        server.run(
            mode,
            host="127.0.0.1",
            port=int(args[1]),
            stateless_http="--stateless" in flags,
            json_response="--json" in flags,
        )
    else:
        server.run(mode, host="127.0.0.1", port=int(args[1]))

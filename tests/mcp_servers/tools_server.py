"""A small MCP server for tests/mcp.rs, built on the official MCP Python SDK.

Usage: tools_server.py stdio | streamable-http PORT | sse PORT
"""

import os
import sys

import anyio

from serve import serve

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("vi-test-tools")


@server.tool(description="Adds two integers.")
def add(a: int, b: int) -> str:
    return str(a + b)


@server.tool(name="shout.loud!", description="Upper-cases the text.")
def shout(text: str) -> str:
    return text.upper()


@server.tool(description="Always fails.")
def broken() -> str:
    raise ToolError("the tool is broken on purpose")


@server.tool(description="Ends the server process in the middle of the call.")
def die() -> str:
    sys.stderr.write("dying on request\n")
    sys.stderr.flush()
    os._exit(3)


@server.tool(description="Answers after the given number of seconds.")
async def slow(seconds: float) -> str:
    await anyio.sleep(seconds)
    return "slept"


_meeting = {"arrived": 0, "everyone": None}


@server.tool(description="Waits up to 5 s for a second call of this tool to be in progress at the same time.")
async def rendezvous() -> str:
    if _meeting["everyone"] is None:
        _meeting["everyone"] = anyio.Event()
    _meeting["arrived"] += 1
    if _meeting["arrived"] >= 2:
        _meeting["everyone"].set()
    with anyio.move_on_after(5):
        await _meeting["everyone"].wait()
        return "met"
    return "alone"


@server.tool(description="Tells the value of an environment variable.")
def env(name: str) -> str:
    return os.environ.get(name, "<unset>")


if __name__ == "__main__":
    serve(server)

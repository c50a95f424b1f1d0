"""An MCP server for the client features beyond tools (SPEC §H.4), built on the official MCP
Python SDK: progress, cancellation, roots, resources, prompts and notifications.

Usage: features_server.py stdio | streamable-http PORT | sse PORT
"""

import base64
import json
import sys

import anyio
from mcp_types import SamplingMessage, TextContent
from pydantic import BaseModel

from serve import serve

from mcp.server.mcpserver import Context, Image, MCPServer

server = MCPServer("vi-test-features")


@server.tool(description="Works for steps × interval seconds, reporting progress after each step.")
async def progress(steps: int, interval: float, ctx: Context) -> str:
    for step in range(1, steps + 1):
        await anyio.sleep(interval)
        await ctx.report_progress(step, steps, f"step {step} of {steps}")
    return f"done after {steps} steps"


@server.tool(description="Works for up to 30 s; writes 'cancelled' to the marker file when the client cancels it.")
async def wait_for_cancel(marker: str) -> str:
    try:
        await anyio.sleep(30)
    except anyio.get_cancelled_exc_class():
        with open(marker, "w") as f:
            f.write("cancelled")
        raise
    return "not cancelled"


@server.tool(description="The roots the client offers, as a JSON array of URIs.")
async def roots(ctx: Context) -> str:
    result = await ctx.session.list_roots()
    return json.dumps([str(r.uri) for r in result.roots])


@server.tool(description="Tells the client that a resource changed and logs a line.")
async def announce(uri: str, ctx: Context) -> str:
    await ctx.session.send_resource_updated(uri)
    await ctx.info(f"announced {uri}")
    return "announced"


class Booking(BaseModel):
    name: str
    guests: int


@server.tool(description="Books a table, asking the user for the name and the number of guests.")
async def book(ctx: Context) -> str:
    result = await ctx.elicit("Who is the table for?", Booking)
    if result.action == "accept":
        return f"booked for {result.data.name}, {result.data.guests} guests"
    return f"not booked ({result.action})"


@server.tool(description="Asks the client's model to write a haiku about the topic.")
async def haiku(topic: str, ctx: Context) -> str:
    result = await ctx.session.create_message(
        messages=[SamplingMessage(role="user", content=TextContent(type="text", text=f"A haiku about {topic}, please."))],
        max_tokens=100,
        system_prompt="You are a poet.",
    )
    return f"{result.model} wrote: {result.content.text}"


def secret() -> str:
    """Tells the secret (offered only after unlock)."""
    return "the secret is 42"


@server.tool(description="Adds the secret tool and tells the client its tool list changed.")
async def unlock(ctx: Context) -> str:
    server.add_tool(secret, description="Tells the secret.")
    await ctx.session.send_tool_list_changed()
    return "unlocked"


# The smallest valid PNG: one transparent pixel.
PIXEL = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)


@server.tool(description="Draws a picture: a caption and a PNG image.")
def picture() -> list:
    return ["a single pixel", Image(data=PIXEL, format="png")]


@server.resource("note://greeting", name="greeting", mime_type="text/plain")
def greeting() -> str:
    return "hello from the features server"


@server.resource("note://{name}", name="note")
def note(name: str) -> str:
    return f"a note called {name}"


@server.prompt(description="Greets someone.")
def greet(name: str) -> str:
    return f"Please greet {name} warmly."


if __name__ == "__main__":
    # A healthy server that talks on stderr, as many do: none of it belongs in the errors it
    # answers (SPEC §I.3.7).
    sys.stderr.write("vi-test-features: starting; this line is not an error\n")
    sys.stderr.flush()
    serve(server)

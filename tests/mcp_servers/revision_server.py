"""An MCP server of both revisions (SPEC §I.3.1, §I.3.2), built on the official MCP Python SDK:
its tools ask the client for elicitation, sampling and roots through the SDK's resolvers, which
send server requests mid-call at 2025-11-25 and answer `input_required` at 2026-07-28.

Usage: revision_server.py stdio | streamable-http PORT [--legacy] [--stateless] [--json]
(see serve.py).
"""

import json
import os
from typing import Annotated

import anyio

from mcp_types import CreateMessageResult, InputRequiredResult, ListRootsResult, SamplingMessage, TextContent
from pydantic import BaseModel

from serve import serve

from mcp.server.mcpserver import Context, Elicit, ElicitationResult, ListRoots, MCPServer, Resolve, Sample

server = MCPServer("vi-test-revision", version="2.6.1")


@server.tool(description="Adds two integers.")
def add(a: int, b: int) -> str:
    return str(a + b)


class Booking(BaseModel):
    name: str
    guests: int


def ask_booking() -> Elicit[Booking]:
    return Elicit("Who is the table for?", Booking)


@server.tool(description="Books a table, asking the user for the name and the number of guests.")
def book(booking: Annotated[ElicitationResult[Booking], Resolve(ask_booking)]) -> str:
    if booking.action == "accept":
        return f"booked for {booking.data.name}, {booking.data.guests} guests"
    return f"not booked ({booking.action})"


def ask_poem(topic: str) -> Sample:
    prompt = SamplingMessage(role="user", content=TextContent(type="text", text=f"A haiku about {topic}, please."))
    return Sample([prompt], max_tokens=100, system_prompt="You are a poet.")


@server.tool(description="Asks the client's model to write a haiku about the topic.")
def haiku(topic: str, poem: Annotated[CreateMessageResult, Resolve(ask_poem)]) -> str:
    return f"{poem.model} wrote: {poem.content.text}"


def ask_roots() -> ListRoots:
    return ListRoots()


@server.tool(description="The roots the client offers, as a JSON array of URIs.")
def roots(listed: Annotated[ListRootsResult, Resolve(ask_roots)]) -> str:
    return json.dumps([str(r.uri) for r in listed.roots])


@server.tool(description="Books a table and then asks for a haiku about it: two rounds of questions.")
def party(
    booking: Annotated[ElicitationResult[Booking], Resolve(ask_booking)],
    listed: Annotated[ListRootsResult, Resolve(ask_roots)],
) -> str:
    return f"{booking.action}; {len(listed.roots)} roots"


def secret() -> str:
    """Tells the secret (offered only after unlock)."""
    return "the secret is 42"


@server.tool(description="Adds the secret tool and tells listening clients (2026) the tool list changed.")
async def unlock(ctx: Context) -> str:
    server.add_tool(secret, description="Tells the secret.")
    await ctx.notify_tools_changed()
    # The event travels on the listen stream, the result on its own: give the event a head start.
    await anyio.sleep(0.5)
    return "unlocked"


@server.tool(description="Tells listening clients (2026) that a resource changed.")
async def announce(uri: str, ctx: Context) -> str:
    await ctx.notify_resource_updated(uri)
    return "announced"


@server.tool(description="Asks for input again and again, forever (2026): only the client's time limit ends it.")
def stall() -> InputRequiredResult:
    return InputRequiredResult(request_state="again")


@server.tool(description="Ends the server process at once.")
def crash() -> str:
    os._exit(3)


if __name__ == "__main__":
    serve(server)

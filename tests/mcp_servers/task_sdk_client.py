"""Checks task_server.py with the official Python SDK 2.3's own client, so that a failure of
tests/mcp_revision.rs's task tests is the Rust client's, not the fixture's (SPEC §I.3.4, issue
31): a `ClientExtension` declaring `io.modelcontextprotocol/tasks` and claiming
`resultType: "task"`, followed with `tasks/get` (`Mcp-Name` = taskId through
`Request.name_param`, as SEP-2663 wants); `vigil` also sends `tasks/cancel`. An
`input_required` task's `inputRequests` are answered once each through the client's own
callbacks (`ClientSession.dispatch_input_request`, as the SDK answers an `input_required`
result) and handed over with `tasks/update`: `reserve` (elicitation, accepted then declined),
`toast` (sampling); `nag` asks without end and is cancelled after three answers. Last, a
client without the extension is refused with -32021.

Usage: task_sdk_client.py http://127.0.0.1:PORT/mcp [vigil], with
`task_server.py streamable-http PORT --stateless --json` running."""
import asyncio, sys
from typing import Any, Literal
from mcp_types import (CallToolResult, CreateMessageResult, ElicitResult, InputRequest, ListRootsResult, Request,
                       RequestParams, Result, Root, TextContent)
from pydantic import ConfigDict, Field, TypeAdapter
from mcp.client.client import Client
from mcp.client.extension import ClientExtension, ResultClaim
from mcp.client.session import ClientRequestContext

class TaskParams(RequestParams):
    task_id: str = Field(alias="taskId")

class GetTask(Request[TaskParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    params: TaskParams
    name_param = "taskId"

class CancelTask(Request[TaskParams, Literal["tasks/cancel"]]):
    method: Literal["tasks/cancel"] = "tasks/cancel"
    params: TaskParams
    name_param = "taskId"

class UpdateParams(TaskParams):
    input_responses: dict[str, Any] = Field(alias="inputResponses")

class UpdateTask(Request[UpdateParams, Literal["tasks/update"]]):
    method: Literal["tasks/update"] = "tasks/update"
    params: UpdateParams
    name_param = "taskId"

class Detailed(Result):
    model_config = ConfigDict(extra="allow")
    task_id: str
    status: str
    status_message: str | None = None
    poll_interval_ms: int | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None

class CreateTaskResult(Detailed):
    result_type: Literal["task"] = "task"

async def resolve(created: CreateTaskResult, ctx) -> CallToolResult:
    print("created", created.status, created.status_message, created.poll_interval_ms)
    tid = created.task_id
    answered: set[str] = set()
    while True:
        await asyncio.sleep((created.poll_interval_ms or 1000) / 1000)
        got = await ctx.session.send_request(GetTask(params=TaskParams(taskId=tid)), Detailed)
        print("  tasks/get:", got.status, got.status_message)
        if got.status == "completed":
            return CallToolResult.model_validate(got.result)
        if got.status in ("failed", "cancelled"):
            return CallToolResult(content=[{"type": "text", "text": f"{got.status}: {got.error}"}], is_error=True)
        asked = {k: v for k, v in ((got.model_extra or {}).get("inputRequests") or {}).items() if k not in answered}
        if got.status == "input_required" and asked:
            answers = {}
            for key, request in asked.items():
                req = TypeAdapter(InputRequest).validate_python(request)
                answer = await ctx.session.dispatch_input_request(ClientRequestContext(session=ctx.session, request_id=key), req)
                answers[key] = answer.model_dump(by_alias=True, mode="json", exclude_none=True)
                answered.add(key)
            await ctx.session.send_request(UpdateTask(params=UpdateParams(taskId=tid, inputResponses=answers)), Result)
            print("  tasks/update:", answers)
            if len(answered) >= 3 and all(k.startswith("roots-") for k in answered):
                await ctx.session.send_request(CancelTask(params=TaskParams(taskId=tid)), Result)
                print("  cancel sent")
        if "vigil" in sys.argv and got.status_message == "keeping watch":
            await ctx.session.send_request(CancelTask(params=TaskParams(taskId=tid)), Result)
            print("  cancel sent")

class Tasks(ClientExtension):
    identifier = "io.modelcontextprotocol/tasks"
    def claims(self):
        return [ResultClaim(result_type="task", model=CreateTaskResult, resolve=resolve)]

actions = iter(["accept", "decline"])

async def elicit(ctx, params):
    print("  elicited:", params.message)
    action = next(actions)
    return ElicitResult(action=action, content={"name": "Ada", "guests": 4} if action == "accept" else None)

async def sample(ctx, params):
    return CreateMessageResult(role="assistant", content=TextContent(type="text", text="To Ada!"), model="sdk-model")

async def roots(ctx):
    return ListRootsResult(roots=[Root(uri="file:///w")])

async def main(url):
    async with Client(url, extensions=[Tasks()], elicitation_callback=elicit, sampling_callback=sample,
                      list_roots_callback=roots) as c:
        print([t.name for t in (await c.list_tools()).tools])
        print((await c.call_tool("add", {"a": 1, "b": 2})).content)
        print((await c.call_tool("brew", {"who": "Ada"})).content)
        print((await c.call_tool("spill", {})).content)
        print((await c.call_tool("reserve", {})).content)
        print((await c.call_tool("reserve", {})).content)
        print((await c.call_tool("toast", {"to": "Ada"})).content)
        print((await c.call_tool("nag", {})).content)
        if "vigil" in sys.argv:
            print((await c.call_tool("vigil", {})).content)
    async with Client(url) as c:  # no extension declared
        try:
            await c.call_tool("brew", {"who": "Bob"})
        except Exception as e:
            print("without the extension:", type(e).__name__, e)

asyncio.run(main(sys.argv[1]))

"""Checks task_server.py with the official Python SDK 2.3's own client, so that a failure of
tests/mcp_revision.rs's task tests is the Rust client's, not the fixture's (SPEC §I.3.4, issue
31): a `ClientExtension` declaring `io.modelcontextprotocol/tasks` and claiming
`resultType: "task"`, followed with `tasks/get` (`Mcp-Name` = taskId through
`Request.name_param`, as SEP-2663 wants); `vigil` also sends `tasks/cancel`. Last, a client
without the extension is refused with -32021.

Usage: task_sdk_client.py http://127.0.0.1:PORT/mcp [vigil], with
`task_server.py streamable-http PORT --stateless --json` running."""
import asyncio, sys
from typing import Any, Literal
from mcp_types import CallToolResult, Request, RequestParams, Result
from pydantic import ConfigDict, Field
from mcp.client.client import Client
from mcp.client.extension import ClientExtension, ResultClaim

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
    while True:
        await asyncio.sleep((created.poll_interval_ms or 1000) / 1000)
        got = await ctx.session.send_request(GetTask(params=TaskParams(taskId=tid)), Detailed)
        print("  tasks/get:", got.status, got.status_message)
        if got.status == "completed":
            return CallToolResult.model_validate(got.result)
        if got.status in ("failed", "cancelled"):
            return CallToolResult(content=[{"type": "text", "text": f"{got.status}: {got.error}"}], is_error=True)
        if "vigil" in sys.argv and got.status_message == "keeping watch":
            await ctx.session.send_request(CancelTask(params=TaskParams(taskId=tid)), Result)
            print("  cancel sent")

class Tasks(ClientExtension):
    identifier = "io.modelcontextprotocol/tasks"
    def claims(self):
        return [ResultClaim(result_type="task", model=CreateTaskResult, resolve=resolve)]

async def main(url):
    async with Client(url, extensions=[Tasks()]) as c:
        print([t.name for t in (await c.list_tools()).tools])
        print((await c.call_tool("add", {"a": 1, "b": 2})).content)
        print((await c.call_tool("brew", {"who": "Ada"})).content)
        print((await c.call_tool("spill", {})).content)
        if "vigil" in sys.argv:
            print((await c.call_tool("vigil", {})).content)
    async with Client(url) as c:  # no extension declared
        try:
            await c.call_tool("brew", {"who": "Bob"})
        except Exception as e:
            print("without the extension:", type(e).__name__, e)

asyncio.run(main(sys.argv[1]))

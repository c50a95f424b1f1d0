"""An MCP server built on the official MCP Python SDK 2.3 that runs tools as tasks the way
MCP 2026-07-28 does (SPEC §I.3.4, issue 31): through the tasks extension
`io.modelcontextprotocol/tasks` (SEP-2663), served with the SDK's extension mechanism
(`mcp.server.extension.Extension`). The SDK has the types of 2025-11-25's tasks only, so the
extension is here: the server advertises it in `capabilities.extensions`; a `tools/call` of a
task tool from a client that declares it in its per-request capabilities is answered at once
with a `CreateTaskResult` (`resultType: "task"`, `taskId`, `status`, `ttlMs`,
`pollIntervalMs`); `tasks/get` answers the task, with the tool's `result` inline once
completed (or the JSON-RPC `error` once failed); `tasks/cancel` ends it. A task that needs the
client is `input_required` with its questions in `inputRequests` (keyed, each an
`elicitation/create`, `sampling/createMessage` or `roots/list` request shaped by the SDK's
types, a key never reused), and `tasks/update` hands the answers (`inputResponses`) to the
questions still open; answers to other keys are ignored, as the extension says. A client that
does not declare the extension gets -32021 from a task tool.

Task statuses are also pushed, as the extension allows: a `subscriptions/listen` whose filter
names tasks in `tasksStatus` (a member the SDK's filter keeps as an extra) is served here, not
by the SDK's handler — acknowledged with the tasks it knows, then a `notifications/tasks/status`
(the task as `tasks/get` shows it, stamped with the subscription id) on every change of those
tasks. `--slow-poll` asks clients to poll only every 10 minutes, so that a task followed in
time was followed by its pushes.

At 2025-11-25 (`--legacy`) the task tools are listed with `execution.taskSupport: "required"`
and the server declares no `tasks` capability: a server that cannot run them.

Usage: task_server.py streamable-http PORT [--stateless] [--json] [--legacy] [--slow-poll]
[--record=FILE] (see serve.py)."""

import asyncio
import sys
import uuid
from datetime import datetime, timezone
from typing import Any

from mcp_types import (
    INVALID_PARAMS,
    CallToolRequestParams,
    CreateMessageRequestParams,
    CreateMessageResult,
    ElicitRequestFormParams,
    ElicitResult,
    ListRootsResult,
    Notification,
    NotificationParams,
    RequestParams,
    SamplingMessage,
    SubscriptionsListenRequestParams,
    TextContent,
    ToolExecution,
)
from pydantic import ConfigDict, Field

from serve import serve

from mcp.server.extension import Extension, MethodBinding
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.server import require_client_extension
from mcp.shared.exceptions import MCPError
from mcp.shared.subscriptions import SUBSCRIPTION_ID_META_KEY

TASKS = "io.modelcontextprotocol/tasks"
POLL_MS = 600_000 if "--slow-poll" in sys.argv else 100
TTL_MS = 60_000


class TaskParams(RequestParams):
    task_id: str = Field(alias="taskId")


class UpdateParams(TaskParams):
    input_responses: dict[str, Any] = Field(default_factory=dict, alias="inputResponses")


def _now() -> str:
    return datetime.now(timezone.utc).isoformat().replace("+00:00", "Z")


class Task:
    def __init__(self) -> None:
        self.id = str(uuid.uuid4())
        self.status = "working"
        self.message: str | None = None
        self.created = self.updated = _now()
        self.result: dict[str, Any] | None = None
        self.error: dict[str, Any] | None = None
        self.job: asyncio.Task[None] | None = None
        self.questions: dict[str, dict[str, Any]] = {}
        self.answers: dict[str, asyncio.Future[dict[str, Any]]] = {}

    async def ask(self, key: str, method: str, params: dict[str, Any], message: str) -> dict[str, Any]:
        """Asks the client `method` under `key` (the task `input_required` meanwhile); the answer
        `tasks/update` brings."""
        self.answers[key] = asyncio.get_running_loop().create_future()
        self.questions[key] = {"method": method, "params": params}
        self.set("input_required", message)
        try:
            return await self.answers[key]
        finally:
            del self.questions[key], self.answers[key]

    def answer(self, key: str, response: dict[str, Any]) -> None:
        future = self.answers.get(key)
        if future is not None and not future.done():
            future.set_result(response)

    def set(self, status: str, message: str | None) -> None:
        self.status, self.message, self.updated = status, message, _now()
        for listener in list(LISTENERS):
            listener.put_nowait(self.wire())

    def wire(self) -> dict[str, Any]:
        task: dict[str, Any] = {
            "taskId": self.id,
            "status": self.status,
            "createdAt": self.created,
            "lastUpdatedAt": self.updated,
            "ttlMs": TTL_MS,
            "pollIntervalMs": POLL_MS,
        }
        if self.message is not None:
            task["statusMessage"] = self.message
        if self.status == "input_required":
            task["inputRequests"] = dict(self.questions)
        if self.status == "completed":
            task["result"] = self.result
        if self.status == "failed":
            task["error"] = self.error
        return task


async def brew_job(task: Task, arguments: dict[str, Any]) -> None:
    """Two steps, each a status message, then the tea."""
    task.set("working", "warming the pot")
    await asyncio.sleep(0.6)
    task.set("working", "steeping")
    await asyncio.sleep(0.6)
    task.result = {"content": [{"type": "text", "text": f"tea for {arguments.get('who', 'nobody')}"}], "isError": False}
    task.set("completed", "brewed")


async def vigil_job(task: Task, arguments: dict[str, Any]) -> None:
    """Works until cancelled."""
    task.set("working", "keeping watch")
    while True:
        await asyncio.sleep(1)


async def spill_job(task: Task, arguments: dict[str, Any]) -> None:
    """Fails with a JSON-RPC error."""
    await asyncio.sleep(0.3)
    task.error = {"code": -32603, "message": "the kettle broke"}
    task.set("failed", "the kettle broke")


def _params(model) -> dict[str, Any]:
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)


def _text(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": False}


BOOKING = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "guests": {"type": "integer"}},
    "required": ["name", "guests"],
}


async def reserve_job(task: Task, arguments: dict[str, Any]) -> None:
    """Asks the user who the table is for (an elicitation mid-task), then reserves it."""
    task.set("working", "finding a table")
    await asyncio.sleep(0.3)
    asked = ElicitRequestFormParams(mode="form", message="Who is the table for?", requested_schema=BOOKING)
    answer = ElicitResult.model_validate(await task.ask("booking", "elicitation/create", _params(asked), "waiting for the guest list"))
    if answer.action != "accept" or not answer.content:
        task.result = _text(f"not reserved ({answer.action})")
        task.set("completed", "not reserved")
        return
    task.set("working", "setting the table")
    await asyncio.sleep(0.3)
    task.result = _text(f"reserved for {answer.content['name']}, {answer.content['guests']} guests")
    task.set("completed", "reserved")


async def toast_job(task: Task, arguments: dict[str, Any]) -> None:
    """Asks the client's model for a toast (sampling mid-task)."""
    prompt = SamplingMessage(role="user", content=TextContent(type="text", text=f"A toast to {arguments.get('to', 'nobody')}, please."))
    asked = CreateMessageRequestParams(messages=[prompt], max_tokens=100)
    answer = CreateMessageResult.model_validate(await task.ask("toast", "sampling/createMessage", _params(asked), "waiting for a toast"))
    task.result = _text(f"{answer.model} toasted: {answer.content.text}")
    task.set("completed", "toasted")


async def nag_job(task: Task, arguments: dict[str, Any]) -> None:
    """Asks for the roots again and again, a new key each time, its status never changing:
    only the client's time limit ends it."""
    for n in range(1_000_000):
        ListRootsResult.model_validate(await task.ask(f"roots-{n}", "roots/list", {}, "waiting for roots"))


JOBS = {"brew": brew_job, "vigil": vigil_job, "spill": spill_job, "reserve": reserve_job, "toast": toast_job, "nag": nag_job}


async def run(job, task: Task, arguments: dict[str, Any]) -> None:
    """Runs `job`; one that breaks (an answer it cannot read) fails its task, it never hangs."""
    try:
        await job(task, arguments)
    except Exception as e:
        task.error = {"code": -32603, "message": f"{type(e).__name__}: {e}"}
        task.set("failed", task.error["message"])


class Tasks(Extension):
    """The tasks extension of 2026-07-28: the task tools run as tasks, always."""

    identifier = TASKS

    def __init__(self) -> None:
        self.tasks: dict[str, Task] = {}

    def methods(self):
        modern = frozenset({"2026-07-28"})
        return [
            MethodBinding("tasks/get", TaskParams, self.get, modern),
            MethodBinding("tasks/cancel", TaskParams, self.cancel, modern),
            MethodBinding("tasks/update", UpdateParams, self.update, modern),
        ]

    async def intercept_tool_call(self, params: CallToolRequestParams, ctx, call_next):
        job = JOBS.get(params.name)
        if job is None:
            return await call_next(ctx)
        require_client_extension(ctx, TASKS)
        task = Task()
        self.tasks[task.id] = task
        task.job = asyncio.get_running_loop().create_task(run(job, task, params.arguments or {}))
        return {"resultType": "task", **task.wire()}

    def _task(self, ctx, params: TaskParams) -> Task:
        require_client_extension(ctx, TASKS)
        task = self.tasks.get(params.task_id)
        if task is None:
            raise MCPError(INVALID_PARAMS, "Failed to retrieve task: Task not found")
        return task

    async def get(self, ctx, params: TaskParams):
        return {"resultType": "complete", **self._task(ctx, params).wire()}

    async def cancel(self, ctx, params: TaskParams):
        task = self._task(ctx, params)
        if task.status in ("working", "input_required"):
            if task.job is not None:
                task.job.cancel()
            task.set("cancelled", "cancelled by the client")
        return {"resultType": "complete"}

    async def update(self, ctx, params: UpdateParams):
        task = self._task(ctx, params)
        for key, response in params.input_responses.items():
            task.answer(key, response)
        return {"resultType": "complete"}


# The queues of the open task listens: each gets every task's new state.
LISTENERS: set[asyncio.Queue] = set()


class StatusParams(NotificationParams):
    """A task as `tasks/get` shows it, as notification params."""

    model_config = ConfigDict(extra="allow")


def _notification(method: str, params: dict[str, Any]) -> Notification:
    return Notification[StatusParams, str](method=method, params=StatusParams.model_validate(params))


class TaskListen:
    """`subscriptions/listen` with `tasksStatus`: the named tasks' statuses as they change;
    any other listen is the SDK's."""

    def __init__(self, tasks: "Tasks", sdk) -> None:
        self.tasks, self.sdk = tasks, sdk

    async def __call__(self, ctx, params: SubscriptionsListenRequestParams):
        wanted = (params.notifications.model_extra or {}).get("tasksStatus")
        if not wanted:
            return await self.sdk(ctx, params)
        meta = {SUBSCRIPTION_ID_META_KEY: ctx.request_id}
        known = [task_id for task_id in wanted if task_id in self.tasks.tasks]
        queue: asyncio.Queue = asyncio.Queue()
        LISTENERS.add(queue)
        try:
            ack = {"notifications": {"tasksStatus": known}, "_meta": meta}
            await ctx.session.send_notification(_notification("notifications/subscriptions/acknowledged", ack), related_request_id=ctx.request_id)
            while True:
                task = await queue.get()
                if task["taskId"] in known:
                    status = {**task, "_meta": meta}
                    await ctx.session.send_notification(_notification("notifications/tasks/status", status), related_request_id=ctx.request_id)
        finally:
            LISTENERS.discard(queue)


class TaskServer(MCPServer):
    async def list_tools(self):
        tools = await super().list_tools()
        for tool in tools:
            if tool.name in JOBS:  # at 2025-11-25 only: the 2026 Tool has no `execution`
                tool.execution = ToolExecution(task_support="required")
        return tools


tasks_extension = Tasks()
server = TaskServer("vi-test-tasks", version="0.3.1", extensions=[tasks_extension])
_listen = server._lowlevel_server._request_handlers["subscriptions/listen"]
server._lowlevel_server.add_request_handler(
    "subscriptions/listen", SubscriptionsListenRequestParams, TaskListen(tasks_extension, _listen.handler)
)


@server.tool(description="Brews tea for someone: takes a while, runs as a task.", structured_output=False)
def brew(who: str) -> str:
    raise RuntimeError("run as a task only")


@server.tool(description="Keeps watch until cancelled: runs as a task.", structured_output=False)
def vigil() -> str:
    raise RuntimeError("run as a task only")


@server.tool(description="Spills the tea: a task that fails.", structured_output=False)
def spill() -> str:
    raise RuntimeError("run as a task only")


@server.tool(description="Reserves a table, asking the user who it is for: runs as a task.", structured_output=False)
def reserve() -> str:
    raise RuntimeError("run as a task only")


@server.tool(description="Asks the client's model for a toast: runs as a task.", structured_output=False)
def toast(to: str) -> str:
    raise RuntimeError("run as a task only")


@server.tool(description="Asks for the roots without end: runs as a task.", structured_output=False)
def nag() -> str:
    raise RuntimeError("run as a task only")


@server.tool(description="Adds two integers, at once (no task).")
def add(a: int, b: int) -> str:
    return str(a + b)


if __name__ == "__main__":
    serve(server)

#!/usr/bin/env python3
"""Validates every request body the run tests recorded against the official SDKs' request types,
strictly: `openai`'s streaming chat completion and Responses requests and `anthropic`'s streaming
Messages request (their TypedDicts, checked by pydantic with unknown keys forbidden), and the
parts of a Gemini request with `google-genai`'s types (pydantic models that forbid unknown keys
themselves), so a field we send in a shape the API does not accept fails the build. Then each API's pairing rule, which
the servers enforce beyond the types (SPEC §H.3.3): every tool call is answered (Chat: a tool
message before the next other message; Responses: a function_call_output for every
function_call; Anthropic: a tool_result in the next user turn, first in it, and turns alternate;
Gemini: a functionResponse for every functionCall in the next user turn, and turns alternate).

The scripted server names each body after its API: chat_completions-*.json, responses-*.json,
gemini-*.json and messages@<anthropic-version>-*.json. Each Anthropic version is checked with the SDK that
sends it (SPEC §I.2.1): 2026-10-21 with the venv's `anthropic` 2.x, 2023-06-01 with `anthropic`
0.x installed beside it (tests/requirements-anthropic-2023-06-01.txt, in a child process).

usage: validate_request_bodies.py <directory of *.json bodies> [--only <kind>]
"""
import importlib
import json
import os
import pathlib
import pkgutil
import re
import subprocess
import sys

import anthropic.types
import openai.types
import typing_extensions
from anthropic.types import MessageParam, ToolUnionParam, message_create_params
from openai.types.chat import ChatCompletionMessageParam, ChatCompletionToolUnionParam, completion_create_params
from openai.types.responses import ResponseInputItemParam, ToolParam, response_create_params
from google.genai import types as genai
from pydantic import ConfigDict, TypeAdapter, ValidationError


def forbid_unknown_keys(package) -> None:
    """pydantic ignores unknown keys of a TypedDict unless its config says otherwise."""
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        try:
            module = importlib.import_module(info.name)
        except Exception:  # an optional extra's module
            continue
        for value in vars(module).values():
            if isinstance(value, type) and typing_extensions.is_typeddict(value) and value.__module__ == module.__name__:
                value.__pydantic_config__ = ConfigDict(extra="forbid", arbitrary_types_allowed=True)


def consumed(value):
    """pydantic validates Iterables lazily: walk them so every part is checked."""
    if isinstance(value, dict):
        return {k: consumed(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)) or type(value).__name__ == "ValidatorIterator":
        return [consumed(v) for v in value]
    return value


def strictly(adapter: TypeAdapter, value, what: str) -> None:
    """Valid, and read back unchanged: a part that only a response type (a BaseModel, which
    allows unknown keys) accepted, or a coerced value, is an error."""
    if consumed(adapter.validate_python(value)) != value:
        raise ValueError(f"{what} is not exactly a request type's shape")


def chat_pairing(messages: list) -> None:
    open_calls: list = []
    for position, message in enumerate(messages):
        if message.get("role") == "tool":
            call_id = message.get("tool_call_id")
            if call_id not in open_calls:
                raise ValueError(f"messages[{position}] answers no open tool call ({call_id!r})")
            open_calls.remove(call_id)
            continue
        if open_calls:
            raise ValueError(f"messages[{position}] follows tool calls without an answer: {open_calls}")
        if message.get("role") == "assistant":
            open_calls = [call["id"] for call in message.get("tool_calls") or []]
    if open_calls:
        raise ValueError(f"the history ends with tool calls without an answer: {open_calls}")


def responses_pairing(items: list) -> None:
    open_calls: list = []
    for position, item in enumerate(items):
        if item.get("type") == "function_call":
            open_calls.append(item["call_id"])
        elif item.get("type") == "function_call_output":
            if item["call_id"] not in open_calls:
                raise ValueError(f"input[{position}] answers no earlier function_call ({item['call_id']!r})")
            open_calls.remove(item["call_id"])
    if open_calls:
        raise ValueError(f"function calls without a function_call_output: {open_calls}")


def anthropic_pairing(messages: list) -> None:
    wanted: list = []  # tool_use ids of the previous assistant turn
    for position, message in enumerate(messages):
        role = message["role"]
        if role != ("user" if position % 2 == 0 else "assistant"):
            raise ValueError(f"messages[{position}] is {role}: turns must alternate, starting with user")
        blocks = message["content"] if isinstance(message["content"], list) else []
        results = [b["tool_use_id"] for b in blocks if b.get("type") == "tool_result"]
        if role == "user":
            if sorted(results) != sorted(wanted):
                raise ValueError(f"messages[{position}] answers {results}, the calls were {wanted}")
            if any(b.get("type") != "tool_result" for b in blocks[: len(results)]):
                raise ValueError(f"messages[{position}]: tool_result blocks must come first")
            wanted = []
        else:
            wanted = [b["id"] for b in blocks if b.get("type") == "tool_use"]
    if wanted:
        raise ValueError(f"the history ends with tool calls without a tool_result: {wanted}")


def gemini_pairing(contents: list) -> None:
    wanted: list = []  # the function names the previous model turn called
    for position, content in enumerate(contents):
        role = content.get("role")
        if role != ("user" if position % 2 == 0 else "model"):
            raise ValueError(f"contents[{position}] is {role}: turns must alternate, starting with user")
        parts = content.get("parts") or []
        if role == "user":
            answered = [p["functionResponse"]["name"] for p in parts if "functionResponse" in p]
            if sorted(answered) != sorted(wanted):
                raise ValueError(f"contents[{position}] answers {answered}, the calls were {wanted}")
            wanted = []
        else:
            wanted = [p["functionCall"]["name"] for p in parts if "functionCall" in p]
    if wanted:
        raise ValueError(f"the history ends with function calls without a functionResponse: {wanted}")


# The members of a generateContent request (the REST body the SDK's converter writes).
GEMINI_REQUEST = {
    "contents": TypeAdapter(list[genai.Content]),
    "systemInstruction": TypeAdapter(genai.Content),
    "tools": TypeAdapter(list[genai.Tool]),
    "toolConfig": TypeAdapter(genai.ToolConfig),
    "safetySettings": TypeAdapter(list[genai.SafetySetting]),
    "generationConfig": TypeAdapter(genai.GenerationConfig),
    "cachedContent": TypeAdapter(str),
    "labels": TypeAdapter(dict[str, str]),
    "serviceTier": TypeAdapter(str),
}


def gemini_check(body: dict, key_of_history: str) -> None:
    unknown = sorted(set(body) - set(GEMINI_REQUEST))
    if unknown:
        raise ValueError(f"keys the API does not know: {unknown}")
    if "contents" not in body:
        raise ValueError("no contents")
    for key, adapter in GEMINI_REQUEST.items():
        if key in body:
            adapter.validate_json(json.dumps(body[key]))
    gemini_pairing(body[key_of_history])


def checker(request_type, lists: dict, pairing):
    """Checks one body: its top-level keys, the request type, the lists in it, the pairing."""
    adapter = TypeAdapter(request_type)
    known = request_type.__required_keys__ | request_type.__optional_keys__
    adapters = {key: TypeAdapter(list[item]) for key, item in lists.items()}

    def check(body: dict, key_of_history: str) -> None:
        unknown = sorted(set(body) - known)
        if unknown:
            raise ValueError(f"keys the API does not know: {unknown}")
        adapter.validate_python(body)
        for key, list_adapter in adapters.items():
            strictly(list_adapter, body.get(key, []), key)
        pairing(body.get(key_of_history) or [])

    return check


# The Anthropic version each SDK sends, and where it is: None for the venv's own.
ANTHROPIC_SDKS = {"2026-10-21": None, "2023-06-01": "anthropic-2023-06-01"}


def anthropic_sdk_version() -> str:
    """The anthropic-version the imported SDK sends (0.x hard-codes 2023-06-01)."""
    constants = importlib.import_module("anthropic._constants")
    return getattr(constants, "ANTHROPIC_API_VERSION", "2023-06-01")


def kind_of(path: pathlib.Path) -> str:
    match = re.match(r"(chat_completions|responses|gemini|messages@[^-]+(?:-\d\d)*)-", path.name)
    return match.group(1) if match else path.name


def checked_elsewhere(directory: pathlib.Path, version: str) -> int:
    """Checks the bodies of Anthropic `version` in a child process that imports that SDK."""
    sdk = pathlib.Path(sys.prefix) / ANTHROPIC_SDKS[version]
    if not (sdk / "anthropic").is_dir():
        print(f"no anthropic SDK for {version} at {sdk}: tools/test.sh installs it")
        return 1
    env = dict(os.environ, PYTHONPATH=str(sdk))
    return subprocess.run([sys.executable, __file__, str(directory), "--only", f"messages@{version}"], env=env).returncode


def main() -> int:
    only = sys.argv[3] if len(sys.argv) > 3 and sys.argv[2] == "--only" else None
    forbid_unknown_keys(openai.types)
    forbid_unknown_keys(anthropic.types)
    sdk_version = anthropic_sdk_version()
    if only and only != f"messages@{sdk_version}":
        print(f"{only}: the anthropic SDK imported ({anthropic.__version__}) sends {sdk_version}")
        return 1
    checks = {
        "chat_completions": (checker(completion_create_params.CompletionCreateParamsStreaming,
                                     {"messages": ChatCompletionMessageParam, "tools": ChatCompletionToolUnionParam},
                                     chat_pairing), "messages"),
        "responses": (checker(response_create_params.ResponseCreateParamsStreaming,
                              {"input": ResponseInputItemParam, "tools": ToolParam}, responses_pairing), "input"),
        "gemini": (gemini_check, "contents"),
        f"messages@{sdk_version}": (checker(message_create_params.MessageCreateParamsStreaming,
                                            {"messages": MessageParam, "tools": ToolUnionParam}, anthropic_pairing), "messages"),
    }
    directory = pathlib.Path(sys.argv[1])
    bodies = sorted(path for path in directory.glob("*.json") if only is None or kind_of(path) == only)
    if not bodies:
        print(f"no request bodies in {directory}: did the run tests record any?")
        return 1
    failed = 0
    counts = {api: 0 for api in checks}
    elsewhere = set()
    for path in bodies:
        api = kind_of(path)
        version = api.removeprefix("messages@")
        if api not in checks and api.startswith("messages@") and version in ANTHROPIC_SDKS and only is None:
            elsewhere.add(version)
            continue
        if api not in checks:
            failed += 1
            print(f"{path.name}: no API of that name, or an Anthropic version no SDK here sends")
            continue
        counts[api] += 1
        check, history = checks[api]
        try:
            check(json.loads(path.read_text()), history)
        except (ValidationError, ValueError, KeyError, TypeError) as error:
            failed += 1
            print(f"{path.name}: not a valid {api} request:\n{error}")
    print(f"{sum(counts.values())} checked, {failed} failed ({counts}; anthropic {anthropic.__version__})")
    for version in sorted(elsewhere):
        failed += checked_elsewhere(directory, version)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Validates every request body the run tests recorded against the official `openai` Python
SDK's request type for a streaming chat completion (its TypedDicts, checked by pydantic), so a
field we send in a shape OpenAI does not accept fails the build; and against the pairing rule the
API enforces beyond the types (SPEC §H.3.3): every assistant tool call is answered by a tool
message before the next other message, and every tool message answers an open call.

usage: validate_openai_bodies.py <directory of *.json bodies>
"""
import json
import pathlib
import sys

from openai.types.chat import ChatCompletionMessageParam, ChatCompletionToolUnionParam, completion_create_params
from pydantic import TypeAdapter, ValidationError


def check_pairing(messages: list) -> None:
    """Raises ValueError where the API would refuse the history."""
    open_calls: list[str] = []
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


def main() -> int:
    directory = pathlib.Path(sys.argv[1])
    bodies = sorted(directory.glob("*.json"))
    if not bodies:
        print(f"no request bodies in {directory}: did the run tests record any?")
        return 1
    request_type = completion_create_params.CompletionCreateParamsStreaming
    adapter = TypeAdapter(request_type)
    # pydantic ignores unknown keys of a TypedDict: check the top level by hand.
    known = request_type.__required_keys__ | request_type.__optional_keys__
    # `messages` and `tools` are Iterables, which pydantic validates lazily (never, here):
    # check them as lists.
    messages = TypeAdapter(list[ChatCompletionMessageParam])
    tools = TypeAdapter(list[ChatCompletionToolUnionParam])
    failed = 0
    for path in bodies:
        body = json.loads(path.read_text())
        unknown = sorted(set(body) - known)
        try:
            adapter.validate_python(body)
            messages.validate_python(body.get("messages"))
            tools.validate_python(body.get("tools", []))
            check_pairing(body.get("messages"))
            if unknown:
                raise ValueError(f"keys the API does not know: {unknown}")
        except (ValidationError, ValueError) as error:
            failed += 1
            print(f"{path.name}: not a valid chat completion request:\n{error}")
    print(f"{len(bodies) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

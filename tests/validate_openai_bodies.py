#!/usr/bin/env python3
"""Validates every request body the run tests recorded against the official `openai` Python
SDK's request type for a streaming chat completion (its TypedDicts, checked by pydantic), so a
field we send in a shape OpenAI does not accept fails the build.

usage: validate_openai_bodies.py <directory of *.json bodies>
"""
import json
import pathlib
import sys

from openai.types.chat import ChatCompletionMessageParam, ChatCompletionToolUnionParam, completion_create_params
from pydantic import TypeAdapter, ValidationError


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
            if unknown:
                raise ValueError(f"keys the API does not know: {unknown}")
        except (ValidationError, ValueError) as error:
            failed += 1
            print(f"{path.name}: not a valid chat completion request:\n{error}")
    print(f"{len(bodies) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

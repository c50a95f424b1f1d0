#!/usr/bin/env python3
"""Feeds the stream fixtures our run tests use (tests/fixtures/streams/*.json) to the official
SDKs' own stream parsers — `anthropic`'s `messages.stream`, `openai`'s `responses.stream` and
`google-genai`'s `generate_content_stream` —
through the scripted server, and checks that they read what the fixture says it holds (the
same "expect" our client is checked against in tests/apis.rs). So the fixtures are the real
shapes of those streams, not shapes only our parser accepts.

usage: sdk_streams.py <scripted server executable>
"""
import json
import pathlib
import subprocess
import sys

import anthropic
import openai
from google import genai

FIXTURES = pathlib.Path(__file__).parent / "fixtures" / "streams"


def served(server: str, fixture: dict):
    """A scripted server answering one request with the fixture's events: named by type, but
    Gemini's, which are unnamed `data:` lines."""
    events = fixture["events"]
    if fixture["api"] != "gemini":
        events = [{"$event": {"name": e["type"], "data": e}} for e in events]
    process = subprocess.Popen([server, "--script", "-"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    port = int(process.stdout.readline().split()[1])
    import urllib.request

    script = json.dumps({"responses": [{"events": events}]}).encode()
    urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{port}/__script", data=script, method="POST")).read()
    return process, f"http://127.0.0.1:{port}/v1"


def read_anthropic(base_url: str) -> dict:
    client = anthropic.Anthropic(base_url=base_url.removesuffix("/v1"), api_key="test", max_retries=0)
    with client.messages.stream(model="claude", max_tokens=64, messages=[{"role": "user", "content": "hi"}]) as stream:
        for _ in stream:
            pass
        message = stream.get_final_message()
    blocks = [b.model_dump() for b in message.content]
    return {
        "text": "".join(b["text"] for b in blocks if b["type"] == "text"),
        "reasoning": "".join(b["thinking"] for b in blocks if b["type"] == "thinking"),
        "tool_calls": [{"id": b["id"], "name": b["name"], "input": b["input"]} for b in blocks if b["type"] == "tool_use"],
        "thinking_blocks": [{k: b[k] for k in ("type", "thinking", "signature")} for b in blocks if b["type"] == "thinking"],
    }


def read_responses(base_url: str) -> dict:
    client = openai.OpenAI(base_url=base_url, api_key="test", max_retries=0)
    with client.responses.stream(model="gpt-5", input="hi") as stream:
        for _ in stream:
            pass
        response = stream.get_final_response()
    items = [i.model_dump(exclude_unset=True) for i in response.output]
    return {
        "text": response.output_text,
        "reasoning": "".join(s["text"] for i in items if i["type"] == "reasoning" for s in i["summary"]),
        "tool_calls": [{"id": i["call_id"], "name": i["name"], "arguments": i["arguments"]} for i in items if i["type"] == "function_call"],
        "thinking_blocks": kept_output(items),
    }


def read_gemini(base_url: str) -> dict:
    options = genai.types.HttpOptions(base_url=base_url.removesuffix("/v1") + "/", api_version="v1beta")
    client = genai.Client(api_key="test", http_options=options)
    text, reasoning, calls, signed = "", "", [], []
    for chunk in client.models.generate_content_stream(model="gemini-3-pro", contents="hi"):
        for part in chunk.candidates[0].content.parts or []:
            rest = part.model_dump(mode="json", by_alias=True, exclude_none=True)
            if part.function_call:
                call = part.function_call
                # The id our client makes when the server sends none (src/run/wire/gemini.rs).
                call_id = call.id or f"gemini-call:{chunk.response_id}:{len(calls)}"
                calls.append({"id": call_id, "name": call.name, "arguments": json.dumps(call.args, separators=(",", ":"))})
            elif part.thought:
                reasoning += part.text or ""
            else:
                text += part.text or ""
            if part.thought_signature:
                signed.append(rest)
    return {"text": text, "reasoning": reasoning, "tool_calls": calls, "thinking_blocks": signed}


def kept_output(items: list) -> list:
    """What our client keeps of a Responses answer (SPEC §I.2.3): each reasoning item that can
    go back (with encrypted_content) as the SDK read it, and, once there is one, the place of
    each later call or message."""
    kept: list = []
    for item in items:
        if item["type"] == "reasoning" and item.get("encrypted_content"):
            kept.append(item)
        elif kept and item["type"] == "function_call":
            kept.append({"type": "function_call", "call_id": item["call_id"]})
        elif kept and item["type"] == "message":
            kept.append({"type": "message"})
    return kept


def main() -> int:
    server = sys.argv[1]
    failed = 0
    fixtures = sorted(FIXTURES.glob("*.json"))
    for path in fixtures:
        fixture = json.loads(path.read_text())
        expect = fixture["expect"]
        process, base_url = served(server, fixture)
        try:
            read = {"anthropic": read_anthropic, "responses": read_responses, "gemini": read_gemini}[fixture["api"]]
            got = read(base_url)
        finally:
            process.stdin.close()
            process.wait(5)
        wanted = dict(expect)
        if fixture["api"] == "anthropic":
            # The SDK parses the tool input; our client keeps the text the model streamed.
            wanted["tool_calls"] = [{"id": c["id"], "name": c["name"], "input": json.loads(c["arguments"])} for c in expect["tool_calls"]]
        wanted.setdefault("thinking_blocks", [])
        if got != wanted:
            failed += 1
            print(f"{path.name}: the SDK read {got}, the fixture says {wanted}")
    print(f"{len(fixtures) - failed} fixtures read as expected by the official SDKs, {failed} not")
    return 1 if failed or not fixtures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Drives examples/chat as a person at a terminal would (SPEC §H.3): Ctrl-C during an answer
stops it and keeps the partial answer, the conversation goes on; --approve asks before the tool
runs and a "n" declines it.

usage: example_chat.py <chat executable> <scripted server executable>
"""
import json
import os
import pathlib
import signal
import subprocess
import sys
import tempfile
import time


def chunk(text: str) -> dict:
    return {"choices": [{"index": 0, "delta": {"content": text}}]}


def start_server(server: str, script: dict, directory: pathlib.Path) -> subprocess.Popen:
    path = directory / "script.json"
    path.write_text(json.dumps(script))
    process = subprocess.Popen([server, "--script", str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    process.port = int(process.stdout.readline().split()[1])
    return process


def wait_for(process: subprocess.Popen, output: list, wanted: str, seconds: float = 20) -> None:
    """Reads the chat's output until `wanted` appeared (the reader is non-blocking); a chat that
    exited is read to its end first."""
    deadline = time.monotonic() + seconds
    while wanted not in "".join(output):
        exited = process.poll() is not None
        if readable(process):
            piece = os.read(process.stdout.fileno(), 65536)
            output.append(piece.decode(errors="replace"))
            if piece:
                continue
        if exited or time.monotonic() > deadline:
            raise AssertionError(f"never saw {wanted!r}; the chat said:\n{''.join(output)}")


def readable(process: subprocess.Popen) -> bool:
    import select

    return bool(select.select([process.stdout], [], [], 0.05)[0])


def ctrl_c_keeps_the_partial_answer(chat: str, server: str, directory: pathlib.Path) -> None:
    script = {"responses": [
        {"events": [chunk("The first half of a long answer"), {"$stall": True}]},
        {"events": [chunk("And here is the rest."), {"$done": True}]},
    ]}
    srv = start_server(server, script, directory)
    model = directory / "model.json"
    model.write_text(json.dumps({"name": "m", "url": f"http://127.0.0.1:{srv.port}/v1", "token": "t"}))
    history = directory / "history.json"
    process = subprocess.Popen([chat, "--model", str(model), "--history", str(history)],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    output: list = []
    try:
        process.stdin.write(b"tell me everything\n")
        process.stdin.flush()
        wait_for(process, output, "The first half of a long answer")
        process.send_signal(signal.SIGINT)
        wait_for(process, output, "[stopped]")
        process.stdin.write(b"go on\n")
        process.stdin.close()
        wait_for(process, output, "And here is the rest.")
        assert process.wait(20) == 0, f"exit status {process.returncode}"
    finally:
        if process.poll() is None:
            process.kill()
        srv.stdin.close()
        srv.wait(5)
    messages = json.loads(history.read_text())["messages"]
    contents = [(m["role"], m["content"]) for m in messages]
    assert contents[:2] == [("user", "tell me everything"), ("assistant", "The first half of a long answer")], contents
    assert contents[-1] == ("assistant", "And here is the rest."), contents


def approve_asks_before_the_tool(chat: str) -> None:
    result = subprocess.run([chat, "--approve", "--once", "what time is it?"], input=b"n\n",
                            stdout=subprocess.PIPE, timeout=30)
    said = result.stdout.decode(errors="replace")
    assert result.returncode == 0, said
    assert "run get_current_time? [y/N]" in said, said
    assert "the user declined this call" in said, said


def main() -> int:
    chat, server = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as directory:
        ctrl_c_keeps_the_partial_answer(chat, server, pathlib.Path(directory))
    approve_asks_before_the_tool(chat)
    print("example_chat: Ctrl-C kept the partial answer; --approve asked and declined")
    return 0


if __name__ == "__main__":
    sys.exit(main())

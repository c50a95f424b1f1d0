#!/usr/bin/env python3
"""The peer baseline: the official `openai` Python SDK streaming the scripted server.

    peer_openai.py PORT CASE [--latency]

Prints one JSON line like the C++ bench executables (time = create() call -> end of stream).
"""
import json
import resource
import sys
import time

from openai import OpenAI


def main() -> int:
    port, case = int(sys.argv[1]), sys.argv[2]
    latency = "--latency" in sys.argv[3:]
    client = OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="k", max_retries=0, timeout=600)
    deltas = chars = 0
    parts = []
    lat = []
    began = time.perf_counter()
    stream = client.chat.completions.create(
        model="bench-model", stream=True, messages=[{"role": "user", "content": "stream please"}]
    )
    for chunk in stream:
        if not chunk.choices:
            continue
        text = chunk.choices[0].delta.content
        if text is None:
            continue
        deltas += 1
        chars += len(text)
        parts.append(text)
        if latency:
            lat.append(time.time_ns() - int(text))
    seconds = time.perf_counter() - began
    content = "".join(parts)
    out = {"case": case, "impl": "python", "seconds": seconds, "deltas": deltas, "chars": len(content),
           "peak_rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}
    if latency and lat:
        lat.sort()
        out["p50_ns"] = lat[int(0.5 * (len(lat) - 1) + 0.5)]
        out["p99_ns"] = lat[int(0.99 * (len(lat) - 1) + 0.5)]
        out["p999_ns"] = lat[int(0.999 * (len(lat) - 1) + 0.5)]
        out["max_ns"] = lat[-1]
    print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Compares two builds' stream figures against one scripted server, taking turns.

    benches/ab.py BEFORE_BUILD AFTER_BUILD [--turns N] [--only TEXT]

Each BUILD is a benches/run.sh build directory (benches/bench_stream, cargo/release/
vi-scripted-server). The server of AFTER_BUILD serves both; in every turn both builds run once,
in alternating order, so a drifting machine (BENCHMARKS.md, "Machine") weighs on both alike.
Prints a Markdown table of medians and their ratio.
"""
import argparse
import json
import os
import statistics
import subprocess
import urllib.request

from run import APIS, WIRE, api_stream

CASES = [
    ("stream_20k, Qt signals (ms)", [{"$repeat": {"count": 20000, "delta": "t"}}], "ours", [], "seconds", 1000),
    ("stream_20k, bare C ABI (ms)", [{"$repeat": {"count": 20000, "delta": "t"}}], "cabi", [], "seconds", 1000),
    ("stream_300k, Qt signals (ms)", [{"$repeat": {"count": 300000, "delta": "t"}}], "ours", [], "seconds", 1000),
    ("stream_300k, bare C ABI (ms)", [{"$repeat": {"count": 300000, "delta": "t"}}], "cabi", [], "seconds", 1000),
    ("16 dialogs × 20k at once, Qt signals (ms)", [{"$repeat": {"count": 20000, "delta": "t"}}], "ours", ["--dialogs", "16"], "seconds", 1000),
    ("per-delta latency p50, paced 1,000/s (µs)",
     [{"$paced": {"count": 2000, "delta": "", "per_second": 1000, "stamp_content": True}}], "ours", ["--latency"], "p50_ns", 1e-3),
    ("per-delta latency p99, paced 2,000/s (µs)",
     [{"$paced": {"count": 10000, "delta": "", "per_second": 2000, "stamp_content": True}}], "ours", ["--latency"], "p99_ns", 1e-3),
] + [
    (f"stream_20k {api}, {how} (ms)", api_stream(api, 20000), impl, ["--api", WIRE.get(api, api)], "seconds", 1000)
    for api in APIS for how, impl in (("Qt signals", "ours"), ("bare C ABI", "cabi"))
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--turns", type=int, default=10)
    ap.add_argument("--only", default="", help="the measurements whose name contains this text")
    args = ap.parse_args()
    exes = [(name, os.path.join(os.path.abspath(build), "benches", "bench_stream"))
            for name, build in (("before", args.before), ("after", args.after))]
    server_exe = os.path.join(os.path.abspath(args.after), "cargo", "release", "vi-scripted-server")
    server = subprocess.Popen([server_exe, "--script", "-"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        port = int(server.stdout.readline().split()[1])
        print("| measurement | before | after | after/before |\n|---|---|---|---|")
        for name, events, impl, extra, key, scale in CASES:
            if args.only not in name:
                continue
            body = json.dumps({"responses": [{"events": events}], "repeat_last": True}).encode()
            urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{port}/__script", data=body, method="POST")).read()
            samples = {"before": [], "after": []}
            for turn in range(args.turns):
                for which, exe in (exes if turn % 2 else exes[::-1]):
                    out = subprocess.run([exe, "--port", str(port), "--impl", impl, "--case", "ab"] + extra,
                                         capture_output=True, text=True, check=True).stdout
                    rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
                    samples[which].append(rows[-1][key] * scale)
            b, a = statistics.median(samples["before"]), statistics.median(samples["after"])
            print(f"| {name} | {b:.1f} | {a:.1f} | {a / b:.2f} |", flush=True)
    finally:
        server.stdin.close()
        server.wait()


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Counts the instructions a stream costs per delta, on each thread, with callgrind.

    benches/instructions.py BUILD [BUILD ...] [--apis chat,responses,anthropic,gemini,openai,openai-responses,google,deepseek,anthropic-thinking]
                            [--impls cabi,ours] [--deltas N]

Each BUILD is a benches/run.sh build directory. A change of a few per cent is below what the
timed benchmarks can see on this machine (their runs spread by ~15 %, BENCHMARKS.md
"Machine"), but the instruction count of a stream is the same from one run to the next: this
is how such a change is judged before the timed A/B (benches/ab.py) confirms it. Prints, per
build, API and implementation, the instructions per delta of the library thread (the
busiest thread but the main one: it reads, parses and hands over) and of the main thread
(for `ours`, the Qt signals; its start-up is included, so compare it only across builds).
Needs valgrind.
"""
import argparse
import glob
import os
import subprocess
import tempfile

from run import WIRE, Server, api_stream


def thread_instructions(prefix):
    """The Ir total of each thread's callgrind file, the main thread first."""
    totals = []
    for path in sorted(glob.glob(prefix + "*"), key=lambda p: int(p.rsplit("-", 1)[1])):
        with open(path) as f:
            summary = next(line for line in f if line.startswith("summary:"))
        totals.append(int(summary.split()[1]))
    return totals


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("builds", nargs="+")
    ap.add_argument("--apis", default="chat,responses,anthropic,gemini")
    ap.add_argument("--impls", default="cabi,ours")
    ap.add_argument("--deltas", type=int, default=20000)
    args = ap.parse_args()
    builds = [os.path.abspath(b) for b in args.builds]
    server = Server(os.path.join(builds[-1], "cargo", "release", "vi-scripted-server"))
    print("| build | api | impl | library thread, Ir/delta | main thread, Ir/delta |\n|---|---|---|---|---|")
    try:
        for api in args.apis.split(","):
            server.script(api_stream(api, args.deltas))
            for impl in args.impls.split(","):
                for build in builds:
                    with tempfile.TemporaryDirectory() as scratch:
                        prefix = os.path.join(scratch, "cg")
                        exe = os.path.join(build, "benches", "bench_stream")
                        out = subprocess.run(
                            ["valgrind", "--tool=callgrind", "--separate-threads=yes", f"--callgrind-out-file={prefix}", "-q",
                             exe, "--port", str(server.port), "--impl", impl, "--case", "ir",
                             "--api", WIRE.get(api, api)],
                            capture_output=True, text=True, check=True).stdout
                        assert f'"deltas":{args.deltas}' in out, out
                        main_thread, *others = thread_instructions(prefix + "-")
                    library = max(others)
                    print(f"| {os.path.basename(build)} | {api} | {impl} | {library / args.deltas:.0f} | {main_thread / args.deltas:.0f} |",
                          flush=True)
    finally:
        server.stop()


if __name__ == "__main__":
    main()

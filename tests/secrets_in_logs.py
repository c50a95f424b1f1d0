#!/usr/bin/env python3
"""SPEC §I.5.1 (issue 33): runs every Qt test suite again with the library's debug logging on
(QT_LOGGING_RULES="visindigo.agent.*.debug=true", every message printed: -maxwarnings 0) and
searches everything it printed — QtTest's QDEBUG/QINFO/QWARN lines, which carry the library's
log, and the failure texts of runFailed, modelFallback, mcpFailed, … that the suites print —
for the secrets the tests give the library. One found fails the test, naming suite, secret and
line.

Each secret below is one a suite really uses (the file it is named in is checked to still hold
it, so the list cannot silently go stale). Left out, because they are too short to search for
and appear in ordinary text: the token "t" of many value-class tests and "x"/"y" headers.

A suite need not pass here (tst_log checks that debug is off by default, which it is not in
this run; tst_mcp needs tests/npm installed): each one's own ctest entry says whether it
passes. It must run to its end ("Totals:"), so that its whole output was searched.

usage: secrets_in_logs.py <source dir> <name>=<executable> …
"""
import os
import pathlib
import re
import subprocess
import sys
import tempfile

# (regular expression, file that uses it, the literal there)
SECRETS = [
    (r"sk-1\b", "cpp-tests/tst_model.cpp", '"sk-1"'),
    (r"sk-ant-secret-token", "cpp-tests/tst_log.cpp", '"sk-ant-secret-token"'),
    (r"secret-token", "cpp-tests/tst_apis.cpp", '"secret-token"'),
    (r"secret-token", "cpp-tests/tst_run.cpp", '"secret-token"'),
    (r"sk-secret", "cpp-tests/tst_provider.cpp", '"sk-secret"'),
    (r"sk-kept", "cpp-tests/tst_center.cpp", '"sk-kept"'),
    (r"Bearer kept", "cpp-tests/tst_center.cpp", '"Bearer kept"'),
    (r"Bearer x\b", "cpp-tests/tst_mcp.cpp", '"Bearer x"'),
    (r"sk-test\b", "cpp-tests/tst_network.cpp", '"sk-test"'),
    # The proxy's password (alice:secret, sent as Proxy-Authorization) — as a word, so that
    # "secretsOmitted" and the like do not count.
    (r"(?<![\w-])secret(?![\w-])", "cpp-tests/tst_network.cpp", '"secret"'),
    (r"sk-local", "examples/chat-window/tst_chatwindow.cpp", '"sk-local"'),
    (r"sk-rotated", "examples/chat-window/tst_chatwindow.cpp", '"sk-rotated"'),
    (r"mcp-secret", "examples/chat-window/tst_chatwindow.cpp", '"Bearer mcp-secret"'),
    # The OAuth tokens the authorization server of tst_mcp issues (access-<n>-<random>).
    (r"\b(access|refresh)-\d+-[A-Za-z0-9_-]{8,}", "tests/mcp_servers/oauth_server.py", 'f"access-{self.generation}-'),
]

RULES = "visindigo.agent.*.debug=true"


def main() -> int:
    source = pathlib.Path(sys.argv[1])
    suites = [arg.split("=", 1) for arg in sys.argv[2:]]
    problems = []
    for pattern, path, literal in SECRETS:
        if literal not in (source / path).read_text(encoding="utf-8"):
            problems.append(f"{path} no longer holds {literal}: update tests/secrets_in_logs.py")
    patterns = [(re.compile(p), p) for p in {p for p, _, _ in SECRETS}]
    with tempfile.TemporaryDirectory(prefix="vi-secrets-") as scratch:
        env = dict(os.environ)
        env.update({
            "QT_LOGGING_RULES": RULES,
            "QT_QPA_PLATFORM": "offscreen",
            "QT_QUICK_BACKEND": "software",
            "VI_REQUEST_BODIES_DIR": os.path.join(scratch, "bodies"),
            "VI_SCREENSHOT": os.path.join(scratch, "screenshot.png"),
            # The chat window without a keychain: its tokens are in its file, the riskier case.
            "DBUS_SESSION_BUS_ADDRESS": "unix:path=" + os.path.join(scratch, "no-bus"),
            "VI_TOKEN_STORE": "file",
        })
        for name, executable in suites:
            run = subprocess.run([executable, "-maxwarnings", "0"], cwd=scratch, env=env, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, timeout=600)
            output = run.stdout.decode("utf-8", "replace")
            lines = output.splitlines()
            logged = sum(1 for line in lines if line.startswith(("QDEBUG", "QINFO", "QWARN")))
            print(f"{name}: exit {run.returncode}, {len(lines)} lines, {logged} log messages")
            if "Totals:" not in output:
                problems.append(f"{name} did not run to its end (exit {run.returncode}):\n" + "\n".join(lines[-20:]))
            for number, line in enumerate(lines, 1):
                for regex, pattern in patterns:
                    if regex.search(line):
                        problems.append(f"{name}, line {number}: a secret ({pattern}): {line}")
    for problem in problems:
        print("FAIL:", problem)
    print("no secret in the output" if not problems else f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

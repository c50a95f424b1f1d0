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

--cargo (the ctest cargo_secrets_in_logs): runs `cargo test --no-fail-fast <cargo args…>` in the
source dir with VI_LOG_CAPTURE=1, so that every integration test binary with `mod support`
prints the core's log, every category at trace, to stderr (tests/support/log_capture.rs), and
searches all that cargo and the binaries print for CARGO_SECRETS, the secrets the Rust tests
give the library. Each binary must run to its end ("test result:"); whether its tests pass is
cargo_test's business.

usage: secrets_in_logs.py --cargo <source dir> <cargo> <cargo args…>
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
    (r"ghp-kept", "cpp-tests/tst_center.cpp", '"ghp-kept"'),
    (r"Bearer x\b", "cpp-tests/tst_mcp.cpp", '"Bearer x"'),
    (r"sk-test\b", "cpp-tests/tst_network.cpp", '"sk-test"'),
    # The proxy's password (sent as Proxy-Authorization).
    (r"proxy-pass-7391", "cpp-tests/tst_network.cpp", '"proxy-pass-7391"'),
    (r"sk-local", "examples/chat-window/tst_chatwindow.cpp", '"sk-local"'),
    (r"sk-rotated", "examples/chat-window/tst_chatwindow.cpp", '"sk-rotated"'),
    (r"mcp-secret", "examples/chat-window/tst_chatwindow.cpp", '"Bearer mcp-secret"'),
    (r"ghp-window-secret", "examples/chat-window/tst_chatwindow.cpp", '"ghp-window-secret"'),
    # The OAuth tokens the authorization server of tst_mcp issues (access-<n>-<random>).
    (r"\b(access|refresh)-\d+-[A-Za-z0-9_-]{8,}", "tests/mcp_servers/oauth_server.py", 'f"access-{self.generation}-'),
]

# The secrets of the Rust integration tests, in the same form.
CARGO_SECRETS = [
    # Every model's token (support::model) — also echoed by a scripted server's 401 body.
    (r"sk-test-token", "tests/support/mod.rs", '"sk-test-token"'),
    (r"sk-test-token", "tests/run.rs", '"invalid key sk-test-token"'),
    # The Authorization header an MCP server quotes back in its error.
    (r"mcp-secret-token-0123456789", "tests/mcp.rs", '"mcp-secret-token-0123456789"'),
    # A stdio server's credential environment variable (SPEC §I.5.2), which it quotes back.
    (r"ghp-env-secret-0123456789", "tests/mcp.rs", '"ghp-env-secret-0123456789"'),
    # The proxy's password, as given and percent-encoded in the proxy url, and a wrong one.
    (r"pass-w0rd\.1|pass%2Dw0rd\.1", "tests/network.rs", '"pass-w0rd.1"'),
    (r"wrong-secret", "tests/network.rs", '"http://alice:wrong-secret@127.0.0.1:{}"'),
    # OAuth tokens: the ones the authorization server issues (access-<n>-<random>) and the
    # ones a test restores from storage.
    (r"\b(access|refresh)-\d+-[A-Za-z0-9_-]{8,}", "tests/mcp_servers/oauth_server.py", 'f"access-{self.generation}-'),
    (r"\b(access|refresh)-forged\b", "tests/mcp_oauth.rs", '"access-forged"'),
]

# What starts a line of the core's log (tests/support/log_capture.rs).
CARGO_LOG_PREFIX = "[vi-log] "

RULES = "visindigo.agent.*.debug=true"


def stale(source: pathlib.Path, secrets) -> list:
    """The secrets whose file no longer holds them: the list must follow the tests."""
    return [f"{path} no longer holds {literal}: update tests/secrets_in_logs.py"
            for _, path, literal in secrets if literal not in (source / path).read_text(encoding="utf-8")]


def search(name: str, lines, patterns) -> list:
    return [f"{name}, line {number}: a secret ({pattern}): {line}"
            for number, line in enumerate(lines, 1) for regex, pattern in patterns if regex.search(line)]


def report(problems: list) -> int:
    for problem in problems:
        print("FAIL:", problem)
    print("no secret in the output" if not problems else f"{len(problems)} problem(s)")
    return 1 if problems else 0


def cargo(source: pathlib.Path, command: list) -> int:
    """The --cargo mode: one cargo test run with the log printed, searched per test binary."""
    problems = stale(source, CARGO_SECRETS)
    patterns = [(re.compile(p), p) for p in {p for p, _, _ in CARGO_SECRETS}]
    with tempfile.TemporaryDirectory(prefix="vi-secrets-") as scratch:
        env = dict(os.environ)
        env.update({"VI_LOG_CAPTURE": "1", "VI_REQUEST_BODIES_DIR": os.path.join(scratch, "bodies")})
        run = subprocess.run([command[0], "test", "--no-fail-fast", *command[1:]], cwd=source, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=3000)
    output = run.stdout.decode("utf-8", "replace")
    # cargo's "Running tests/run.rs (target/…/run-…)" starts each binary's part.
    parts, name = {}, "cargo"
    for line in output.splitlines():
        started = re.match(r"\s+Running (\S+)", line)
        if started:
            name = started.group(1)
        parts.setdefault(name, []).append(line)
    binaries = [n for n in parts if n != "cargo"]
    for name, lines in parts.items():
        logged = sum(1 for line in lines if line.startswith(CARGO_LOG_PREFIX))
        finished = any(line.startswith("test result:") for line in lines)
        print(f"{name}: {len(lines)} lines, {logged} log lines{'' if finished or name == 'cargo' else ', NOT FINISHED'}")
        if name != "cargo" and not finished:
            problems.append(f"{name} did not run to its end:\n" + "\n".join(lines[-20:]))
        problems += search(name, lines, patterns)
    total = sum(1 for line in output.splitlines() if line.startswith(CARGO_LOG_PREFIX))
    print(f"cargo exit {run.returncode}; {len(binaries)} test binaries, {len(output.splitlines())} lines, {total} log lines")
    if not binaries:
        problems.append("cargo ran no test binary:\n" + "\n".join(output.splitlines()[-20:]))
    elif total == 0:
        problems.append("nothing was logged: is VI_LOG_CAPTURE still read by tests/support/log_capture.rs?")
    return report(problems)


def main() -> int:
    if sys.argv[1] == "--cargo":
        # An empty argument is a generator expression that came to nothing (--release in Debug).
        return cargo(pathlib.Path(sys.argv[2]), [arg for arg in sys.argv[3:] if arg])
    source = pathlib.Path(sys.argv[1])
    suites = [arg.split("=", 1) for arg in sys.argv[2:]]
    problems = stale(source, SECRETS)
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
            problems += search(name, lines, patterns)
    return report(problems)


if __name__ == "__main__":
    sys.exit(main())

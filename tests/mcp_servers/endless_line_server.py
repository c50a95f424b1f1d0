"""An MCP "server" that answers with one endless line (65 MiB, no newline): the client must
close the connection at its message limit, with a named reason, instead of reading on."""

import sys

chunk = "x" * (1 << 20)
for _ in range(65):
    sys.stdout.write(chunk)
sys.stdout.flush()
for _ in sys.stdin:
    pass

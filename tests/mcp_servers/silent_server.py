"""An MCP "server" that reads its input and never answers: the client's initialize times out."""

import sys

for _ in sys.stdin:
    pass

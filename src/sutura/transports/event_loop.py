"""The event loop the servers run in (``sutura serve`` and ``sutura mcp``): uvloop where it is
installed (every platform but Windows), else asyncio's own.

uvloop's sockets, pipes, timers and thread wake-ups are written in C: the loop's own share of
each request's CPU falls, and on a small machine that CPU goes to the engine instead. Over
stdio, asyncio's own loop ran about 5,000 bytecodes of Python per answer (its ready queue, its
handles, its selector); uvloop runs none.
"""

import importlib.util


def loop_options() -> dict[str, bool]:
    """anyio's backend options for a server's loop: uvloop where it is installed."""
    return {"use_uvloop": importlib.util.find_spec("uvloop") is not None}

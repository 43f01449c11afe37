"""New ids for what a transport names per call: a request's id (HTTP without a usable
``X-Request-Id``, every MCP call over stdio) and a structured half's stand-in (MCP).

Ids correlate log lines and match a request's parts; they are not secrets. Drawn from a
generator seeded once from the system's entropy, so an id costs no system call (``uuid4``
reads ``os.urandom`` each time, releasing the event loop's thread to the engine's threads and
waiting to get it back).
"""

import os
import random
from typing import Final

_IDS: Final = random.Random()
os.register_at_fork(after_in_child=_IDS.seed)  # a forked worker draws its own ids


# A UUID's variant and version bits, cleared and set to RFC 4122's variant and version 4, as
# ``uuid.UUID(int=…, version=4)`` sets them (without building the UUID).
_CLEARED: Final = ~((0xC000 << 48) | (0xF000 << 64))
_SET: Final = (0x8000 << 48) | (4 << 76)


def generated_id() -> str:
    """A new id: a version-4 UUID's 32 hex digits, as ``uuid.uuid4().hex`` gives.

    >>> import uuid
    >>> all(uuid.UUID(hex=generated_id()).version == 4 for _ in range(100))
    True
    >>> n = (1 << 128) - 1
    >>> f"{n & _CLEARED | _SET:032x}" == uuid.UUID(int=n, version=4).hex
    True
    """
    return f"{_IDS.getrandbits(128) & _CLEARED | _SET:032x}"

"""A real ``sutura serve`` process on a free loopback port, for the tests that need its
sockets (connection bounds, the HTTP parser, key sets read over HTTP)."""

import os
import re
import sys
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Final

import anyio

SUTURA: Final = Path(sys.executable).with_name("sutura")
START_SECONDS: Final = 60.0


@asynccontextmanager
async def serving(
    config: Path, environ: Mapping[str, str] | None = None
) -> AsyncIterator[tuple[str, int]]:
    """``sutura serve --port 0`` under ``config`` until the block ends; its host and port.

    Its stderr goes to ``config/stderr.log``; nothing of this process's ``SUTURA*``
    environment reaches it.
    """
    log = config / "stderr.log"
    base = {k: v for k, v in os.environ.items() if not k.startswith("SUTURA")}
    command = [str(SUTURA), "serve", "--host", "127.0.0.1", "--port", "0"]
    extra = dict(environ or {})
    with log.open("wb") as stderr:
        process = await anyio.open_process(
            command, env={**base, **extra, "SUTURA_CONFIG_DIR": str(config)}, stderr=stderr
        )
    try:
        with anyio.fail_after(START_SECONDS):
            while not (found := re.search(r"http://127\.0\.0\.1:([0-9]+)", log.read_text())):
                if process.returncode is not None:
                    raise AssertionError(log.read_text()[-2000:])
                await anyio.sleep(0.05)
        yield "127.0.0.1", int(found.group(1))
    finally:
        process.kill()
        with anyio.fail_after(10):
            await process.wait()

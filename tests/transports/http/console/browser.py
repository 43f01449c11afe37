"""What the browser tests share: the operating system's Chromium, a real ``sutura serve``
process on a free loopback port, and the directory screenshots and measures are saved in.

Chromium comes from the operating system's packages (``.ci/run`` installs Debian's
``chromium``); Playwright drives it by path and never downloads a browser of its own. Outside
CI a machine without it skips the browser tests with that reason; in CI its absence fails.
"""

import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final

import pytest

CHROMIUM: Final = Path("/usr/bin/chromium")
SUTURA: Final = Path(sys.executable).with_name("sutura")
ARTIFACTS_VAR: Final = "SUTURA_TEST_ARTIFACTS"
START_SECONDS: Final = 60.0


def require_chromium() -> Path:
    """The browser's path; skips (outside CI) or fails (in CI) when it is not installed."""
    if CHROMIUM.exists():
        return CHROMIUM
    reason = f"{CHROMIUM} is not installed (Debian's `chromium` package; .ci/run installs it)"
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)


def artifacts_dir() -> Path:
    """Where the console's screenshots and measures go: ``$SUTURA_TEST_ARTIFACTS/console``,
    else ``test-artifacts/console`` under the working directory."""
    target = Path(os.environ.get(ARTIFACTS_VAR, "test-artifacts")) / "console"
    target.mkdir(parents=True, exist_ok=True)
    return target


def _environment(config: Path, extra: dict[str, str]) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("SUTURA")}
    return {**base, "SUTURA_CONFIG_DIR": str(config), **extra}


class _Announced:
    """Drains the server's stderr (so it never blocks on a full pipe) and finds its URL."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.url: str | None = None
        self.lines: list[bytes] = []
        self.found = threading.Event()
        self._thread = threading.Thread(target=self._drain, args=(process,), daemon=True)
        self._thread.start()

    def _drain(self, process: subprocess.Popen[bytes]) -> None:
        assert process.stderr is not None
        for line in process.stderr:
            self.lines.append(line)
            match = re.search(rb"http://127\.0\.0\.1:[0-9]+", line)
            if match and self.url is None:
                self.url = match.group().decode()
                self.found.set()
        self.found.set()

    def join(self) -> None:
        self._thread.join(timeout=10)


@contextmanager
def serving(config: Path, **extra: str) -> Iterator[str]:
    """``sutura serve --port 0`` under ``config``; the URL it announced."""
    command = [str(SUTURA), "serve", "--host", "127.0.0.1", "--port", "0"]
    process = subprocess.Popen(
        command, env=_environment(config, extra), stdin=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    announced = _Announced(process)
    try:
        announced.found.wait(START_SECONDS)
        assert announced.url is not None, b"".join(announced.lines)[-2000:]
        yield announced.url
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
        announced.join()
        if process.stderr is not None:
            process.stderr.close()

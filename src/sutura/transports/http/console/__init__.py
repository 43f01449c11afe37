"""The web console at ``/``: the catalog and every answer as the agent receives them.

Static assets ship in :mod:`.static` (plain HTML, CSS and JavaScript; no build step, nothing
fetched at run time) and are served under a strict Content-Security-Policy (:mod:`.assets`).
The page reads data only through bearer-authenticated routes: ``GET /v1/catalog`` and the two
console read helpers of :mod:`.routes` (both halves of a capability call; a question's
compiled statement). See ``docs/console.md``.
"""

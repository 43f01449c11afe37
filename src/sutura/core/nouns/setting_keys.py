"""A setting's key path, as a problem with the settings names it, and read back into its keys.

Keys are joined with ``.``: ``sources.main.path``. A key that is not a plain name (letters,
digits, ``_`` and ``-``), such as a source alias ``main.x``, is written as a JSON string, so a
path reads one way only and each key is found again in the file that wrote it:
``sources."main.x".path``. An item of a list follows its key, and stays on it when a path is
read: ``algorithms[1]``.

>>> key_path("sources", "main", "path"), key_path("sources", "main.x", "path")
('sources.main.path', 'sources."main.x".path')
>>> key_parts('sources."main.x".path'), key_parts("security.inbound.algorithms[1]")
(['sources', 'main.x', 'path'], ['security', 'inbound', 'algorithms[1]'])
>>> child_key("", "server"), child_key("server", "port"), child_key("sources", 'a "b"')
('server', 'server.port', 'sources."a \\\\"b\\\\""')
>>> all(key_parts(key_path(*keys)) == list(keys) for keys in [("a.b", "", "c\\\\d", '"')])
True
>>> key_path(*key_parts("security.inbound.algorithms[1]"))
'security.inbound.algorithms[1]'
"""

import contextlib
import json
import re
from typing import Final

_PLAIN: Final = re.compile(r"[A-Za-z0-9_-]+(?:\[[0-9]+\])*")
_STRING: Final = json.JSONDecoder()


def key_part(name: str) -> str:
    """``name`` as a key path writes it: as it is when plain, else quoted."""
    return name if _PLAIN.fullmatch(name) else json.dumps(name, ensure_ascii=False)


def key_path(*names: str) -> str:
    """The path of the key ``names`` lead to, each written as :func:`key_part` writes it."""
    return ".".join(key_part(name) for name in names)


def child_key(path: str, name: str) -> str:
    """The path of the key ``name`` under ``path`` (under nothing, when ``path`` is empty)."""
    return f"{path}.{key_part(name)}" if path else key_part(name)


def key_parts(path: str) -> list[str]:
    """The keys of a path :func:`key_path` wrote (an item's index stays on its key)."""
    parts: list[str] = []
    start = 0
    while start < len(path):
        name = ""
        if path[start] == '"':
            with contextlib.suppress(json.JSONDecodeError):  # else read on as plain names
                quoted, start = _STRING.raw_decode(path, start)
                name = str(quoted)
        end = path.find(".", start)
        end = len(path) if end < 0 else end
        parts.append(name + path[start:end])
        start = end + 1
    return parts


def parent_key(path: str) -> str:
    """The path of the key ``path`` is under (empty for a key at the top).

    >>> parent_key('sources."main.x".path'), parent_key('sources."main.x"'), parent_key("server")
    ('sources."main.x"', 'sources', '')
    """
    return key_path(*key_parts(path)[:-1])

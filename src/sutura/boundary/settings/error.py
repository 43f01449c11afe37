"""The settings error: one problem, named by where it was written and by its key path.

>>> SettingsError(origin="/etc/sutura/base.yaml", line=3, key="server.port", problem="x").sentence()
'/etc/sutura/base.yaml:3: server.port: x'
>>> SettingsError(origin="SUTURA__SERVER__PORT", key="server.port", problem="x").sentence()
'SUTURA__SERVER__PORT: server.port: x'
"""

from sutura.core.nouns.frozen import Frozen
from sutura.core.text.escape import escape_text


class SettingsError(Frozen, frozen=True):
    """One problem with the settings.

    Attributes:
        origin: the file (its path as the settings name it), the environment variable, or
            ``settings`` for a problem of the settings as a whole.
        key: the dotted key path (``sources.main.kind``), or ``""`` for the file as a whole.
        problem: what is wrong; it never carries a value the settings hold.
        line: the 1-based line in the file, or 0 when there is none.
    """

    origin: str
    key: str
    problem: str
    line: int = 0

    def sentence(self) -> str:
        """``origin:line: key: problem`` (parts that are absent omitted; origin and key escaped)."""
        where = escape_text(self.origin)
        if self.line > 0:
            where = f"{where}:{self.line}"
        if self.key:
            where = f"{where}: {escape_text(self.key)}"
        return f"{where}: {self.problem}"

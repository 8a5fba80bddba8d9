"""One error hierarchy with stable codes; the edges turn it into exit codes or HTTP statuses."""

from __future__ import annotations

from typing import Any


class SudyaError(Exception):
    """A problem the user can fix: it carries a stable code and a one-line message."""

    code = "error"

    def __init__(self, message: str, *, code: str | None = None, **context: Any) -> None:
        # one line, always: ids and values from the input may hold line breaks
        message = message.replace("\r", "\\r").replace("\n", "\\n")
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.context = context

    def __str__(self) -> str:
        return self.message


class RulebookError(SudyaError):
    """A rulebook file that cannot be loaded (names the file, line and key path)."""

    code = "rulebook"


class ScenarioError(SudyaError):
    """A scenario that is wrong: names the event and the field."""

    code = "scenario"


class RuleError(SudyaError):
    """An event the rules refuse (not applicable, role may not, choice out of range...)."""

    code = "rule"

    def __init__(self, message: str, *, field: str = "", code: str | None = None,
                 **context: Any) -> None:
        super().__init__(message, code=code, **context)
        self.field = field

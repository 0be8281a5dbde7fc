"""What the client raises."""

from __future__ import annotations

from typing import Any, Dict, List, Optional

__all__ = [
    "GovernancedError",
    "NotFound",
    "DatasetNotFound",
    "AmbiguousDataset",
    "ServerUnavailable",
    "GovernanceValidationError",
]


class GovernancedError(Exception):
    """An error answer of governanced, or a failure to reach it.

    ``status`` is the HTTP status (``None`` when there was no answer) and
    ``problem`` the problem detail the server sent (RFC 9457).
    """

    def __init__(self, message: str, *, status: Optional[int] = None, problem: Optional[Dict[str, Any]] = None) -> None:
        super().__init__(message)
        self.status = status
        self.problem: Dict[str, Any] = problem or {}

    @property
    def kind(self) -> str:
        """The problem's type without its documentation prefix
        (``dataset-not-found``, ``unresolved-owners``, …)."""
        return str(self.problem.get("type", "")).partition("#problem-")[2]


class NotFound(GovernancedError, LookupError):
    """The server has no such app, owner or dataset."""


class DatasetNotFound(NotFound):
    """No app declares the dataset and no glob matches it (global resolution;
    a resolver of one app falls back to its defaults instead, as the library's
    does)."""


class AmbiguousDataset(GovernancedError):
    """Several apps claim the dataset equally; ``apps`` names them. A resolver
    of one of them (``app=``) resolves it."""

    @property
    def apps(self) -> List[str]:
        return list(self.problem.get("apps") or [])


class ServerUnavailable(GovernancedError, ConnectionError):
    """The server cannot be reached and the client has no answer of its own
    to give instead."""


class GovernanceValidationError(GovernancedError, ValueError):
    """A document failed the check; ``report`` is the check's report."""

    def __init__(self, message: str, report: Dict[str, Any]) -> None:
        super().__init__(message)
        self.report = report

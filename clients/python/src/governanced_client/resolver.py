"""``RemoteGovernanceResolver``: ``celine.governance``'s resolver, answered by governanced."""

from __future__ import annotations

import importlib
import json
import urllib.parse
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Union

from . import models
from ._transport import Transport
from .errors import GovernanceValidationError, NotFound

_LibraryRule: Any
try:  # The library's own models when it is installed: resolve() returns its instances.
    _LibraryRule = importlib.import_module("celine.governance").GovernanceRule
except ImportError:
    _LibraryRule = None

#: The class ``resolve`` returns by default: ``celine.governance.GovernanceRule``
#: when the library is importable, else the client's own class of the same
#: name, attributes and defaults (:mod:`governanced_client.models`).
GovernanceRule: Any = _LibraryRule if _LibraryRule is not None else models.GovernanceRule

__all__ = ["RemoteGovernanceResolver", "Resolution", "GovernanceRule"]


@dataclass(frozen=True)
class Resolution:
    """Everything the server answers about one dataset name."""

    dataset: str
    app: str
    revision: str
    match: Dict[str, Any]  #: ``{"kind": "exact" | "glob" | "defaults", "pattern": …}``
    rule: Any  #: as :meth:`RemoteGovernanceResolver.resolve` returns it
    expose: bool
    dataspace_expose: bool
    conflict: Optional[str]
    is_empty: bool
    stale: bool  #: answered from the cache because the server could not be asked


class RemoteGovernanceResolver:
    """Resolve governance for a dataset name, as ``GovernanceResolver`` does,
    by asking governanced.

    ``app`` names the app whose ``governance.yaml`` a library resolver would
    have read (``from_file(apps/<app>/governance.yaml)``,
    ``auto_discover(app_name)``): its key, else its longest glob, else its
    defaults alone. Without it a name resolves over every app: the app
    declaring it, else the longest glob of any app; a name nothing matches
    raises :class:`~governanced_client.DatasetNotFound`, one two apps claim
    :class:`~governanced_client.AmbiguousDataset`.

    Answers are cached and asked again with their ETag; with ``watch`` a
    background thread follows the server's reloads (``GET /events``), and an
    answer of the revision being served needs no request at all. When the
    server cannot be reached, the last answer for the name is returned and a
    warning logged (logger ``governanced_client``); :attr:`stale` then says
    so. A name never answered before raises
    :class:`~governanced_client.ServerUnavailable`.

    ``rule_class`` builds the rules ``resolve`` returns (default
    :data:`GovernanceRule`): a pydantic subclass of the library's model, as
    ``ds`` uses, gets its own fields from the keys the server reports under
    ``extra``, as ``parse_rule(block, SpecRule)`` does.

    Safe to share between threads. Close it (or use it as a context manager)
    to stop the watch.
    """

    def __init__(
        self,
        base_url: str,
        token: Optional[str] = None,
        *,
        app: Optional[str] = None,
        timeout: float = 10.0,
        watch: bool = True,
        cache_entries: int = 10000,
        rule_class: Any = None,
    ) -> None:
        self.app = app
        self.rule_class: Any = rule_class if rule_class is not None else GovernanceRule
        self._t = Transport(base_url, token, timeout=timeout, cache_entries=cache_entries, watch=watch)

    # ------------------------------------------------------------ the library's calls

    def resolve(self, name: str) -> Any:
        """The resolved rule of ``name`` (``GovernanceResolver.resolve``)."""
        return self.lookup(name).rule

    def is_exposed(self, name: str) -> bool:
        """Listed in the catalogue and served by the API (``effective_expose``)."""
        return bool(self._exposure(name)["expose"])

    def is_dataspace_exposed(self, name: str) -> bool:
        """Offered into the dataspace (``dataspace_expose``)."""
        return bool(self._exposure(name)["dataspace_expose"])

    def exposure_conflict(self, name: str) -> Optional[str]:
        """Why the two gates contradict each other, or ``None`` (``exposure_conflict``)."""
        conflict = self._exposure(name)["conflict"]
        return str(conflict) if conflict is not None else None

    def is_empty(self, name: str) -> bool:
        """Whether the rule carries nothing worth a facet (``is_empty``)."""
        return self.lookup(name).is_empty

    def build_facet(self, name: str, producer: Optional[str] = None, *, include_dataspace: bool = True) -> Dict[str, Any]:
        """The OpenLineage governance facet of ``name`` (``build_facet``): a
        plain dict with camelCase keys. ``producer`` is the facet's
        ``_producer`` (the service's own URL when ``None``); a lineage
        extractor passes ``include_dataspace=False`` to keep emitting what it
        emits today."""
        query = self._query()
        if producer is not None:
            query["producer"] = producer
        if not include_dataspace:
            query["include_dataspace"] = "false"
        facet: Dict[str, Any] = self._t.get(self._path(name, "facet"), query).body
        return facet

    # ------------------------------------------------------------ the owners registry

    def owner(self, key: str) -> Optional[Dict[str, Any]]:
        """The owner entry of an id, else of an alias, with its
        ``canonical_uri``; ``None`` when there is none (the registry's
        ``by_id``)."""
        try:
            entry: Dict[str, Any] = self._t.get("/owners/" + urllib.parse.quote(key, safe="")).body
        except NotFound:
            return None
        return entry

    def owner_by_uri(self, uri: str) -> Optional[Dict[str, Any]]:
        """The owner registered under a DID or URL, or ``None`` (``by_uri``)."""
        items: List[Dict[str, Any]] = self._t.get("/owners", {"uri": uri}).body["items"]
        return items[0] if items else None

    def canonical_uri(self, key: str) -> Optional[str]:
        """An owner's DID, else its URL; ``None`` for an owner with neither,
        or no such owner (``canonical_uri``)."""
        entry = self.owner(key)
        uri = entry.get("canonical_uri") if entry else None
        return str(uri) if uri is not None else None

    # ------------------------------------------------------------ more of the answer

    def lookup(self, name: str) -> Resolution:
        """The whole answer for ``name``: the rule, how it matched, in which
        app, its gates, ``is_empty``, the revision, and whether it is stale."""
        a = self._t.get(self._path(name, "rule"), self._query())
        b = a.body
        e = b["exposure"]
        return Resolution(
            dataset=b["dataset"], app=b["app"], revision=b["revision"], match=b["match"],
            rule=self._rule(b["rule"]), expose=e["expose"], dataspace_expose=e["dataspace_expose"],
            conflict=e["conflict"], is_empty=bool(b.get("is_empty")), stale=a.stale,
        )

    def validate(self, data: Union[str, bytes, Mapping[str, Any]], *, strict: bool = False, dataspace: bool = False) -> List[str]:
        """Check one governance document as the server checks the files it
        serves (the library's ``validate(data)``, with every rule of the tree
        check): raise :class:`~governanced_client.GovernanceValidationError`
        when it fails (under ``strict``, unknown keys fail it too), and return
        the messages of the unknown keys otherwise."""
        report = self.check(data, strict=strict, dataspace=dataspace)
        if not report["ok"]:
            failing = [f for f in report["findings"] if f["severity"] == "error" or strict and f["severity"] == "warning"]
            lines = [f"{f.get('path') or ''}: {f['message']}" for f in failing]
            raise GovernanceValidationError("the document fails the check:\n  " + "\n  ".join(lines), report)
        return [f["message"] for f in report["findings"] if f["code"] == "unknown-key"]

    def check(self, data: Union[str, bytes, Mapping[str, Any]], *, strict: bool = False, dataspace: bool = False) -> Dict[str, Any]:
        """The check's whole report for one document (``POST /validate``)."""
        if isinstance(data, Mapping):
            body = json.dumps(data).encode()  # JSON is YAML the server reads
        elif isinstance(data, str):
            body = data.encode()
        else:
            body = data
        query = {}
        if strict:
            query["strict"] = "true"
        if dataspace:
            query["dataspace"] = "true"
        report: Dict[str, Any] = self._t.post("/validate", body, "application/yaml", query)
        return report

    # ------------------------------------------------------------ the watch

    @property
    def revision(self) -> Optional[str]:
        """The revision the server last reported serving (``None`` before the
        watch heard from it)."""
        return self._t.watch.revision

    @property
    def live(self) -> bool:
        """Whether the watch follows the server's reloads right now."""
        return self._t.watch.live

    @property
    def stale(self) -> bool:
        """Whether the last answer that needed the server came from the cache
        because the server could not be asked."""
        return self._t.stale

    def wait_for_revision(self, other_than: Optional[str] = None, timeout: Optional[float] = None) -> Optional[str]:
        """Block until the watch follows the server and reports a revision
        other than ``other_than``; return it, or ``None`` on timeout."""
        ok = self._t.watch.wait(lambda rev, live: live and rev is not None and rev != other_than, timeout)
        return self._t.watch.revision if ok else None

    def wait_until_lost(self, timeout: Optional[float] = None) -> bool:
        """Block until the watch has lost its stream (the server ended it or
        went away); return whether it has."""
        return self._t.watch.wait(lambda rev, live: not live, timeout)

    def close(self) -> None:
        """Stop following the server's reloads."""
        self._t.close()

    def __enter__(self) -> "RemoteGovernanceResolver":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------ helpers

    def _query(self) -> Dict[str, str]:
        return {"app": self.app} if self.app else {}

    @staticmethod
    def _path(name: str, what: str) -> str:
        # quote with nothing safe: a glob key's * is sent as %2A, a / as %2F.
        return "/datasets/" + urllib.parse.quote(name, safe="") + "/" + what

    def _exposure(self, name: str) -> Dict[str, Any]:
        body: Dict[str, Any] = self._t.get(self._path(name, "exposure"), self._query()).body
        return body

    def _rule(self, data: Dict[str, Any]) -> Any:
        cls = self.rule_class
        own = getattr(cls, "model_fields", None)
        extra = data.get("extra")
        if own and isinstance(extra, dict):
            # A subclass's own fields arrive under extra (the server's grammar
            # does not know them): parse_rule(block, SubClass) reads them off
            # the class.
            promoted = {k: v for k, v in extra.items() if k in own and k not in data}
            if promoted:
                data = {**data, **promoted}
                rest = {k: v for k, v in extra.items() if k not in promoted}
                if rest:
                    data["extra"] = rest
                else:
                    del data["extra"]
        return cls.model_validate(data)

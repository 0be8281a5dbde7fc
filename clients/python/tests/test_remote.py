"""The client against a real governanced serving the real tree."""

from __future__ import annotations

import ast
import logging
import os
import unittest
import urllib.parse
import urllib.request
from typing import Any, Dict, List

import governanced_client
from governanced_client import (
    AmbiguousDataset,
    DatasetNotFound,
    GovernanceValidationError,
    NotFound,
    RemoteGovernanceResolver,
    ServerUnavailable,
    models,
)

from .server import Server

PRODUCER = "https://github.com/celine-eu/celine-utils"

#: The library's GovernanceRule attributes with their defaults, nested blocks
#: with theirs: what an attribute reads when the files do not state it.
RULE_DEFAULTS: Dict[str, Any] = {
    "title": None, "description": None, "expose": None, "license": None, "attribution": None,
    "ownership": [], "access_level": None, "access_requirements": None, "classification": None,
    "tags": [], "retention_days": None, "documentation_url": None, "source_system": None,
    "row_filters": [], "user_filter_column": None, "dcat": None, "ontology": None,
    "dataspace": None, "extra": {},
}
NESTED_DEFAULTS: Dict[str, Dict[str, Any]] = {
    "dataspace": {"medallion": None, "contract_required": False, "consent_required": False,
                  "odrl_action": "use", "purpose": [], "expose": False},
    "dcat": {"publisher_uri": None, "themes": [], "language_uris": [], "spatial_uris": [],
             "accrual_periodicity": None, "conforms_to": None, "temporal": None},
    "ontology": {"spec": None, "spec_file": None},
}


def plain(value: Any) -> Any:
    """An attribute as plain data, whichever model class holds it."""
    if hasattr(value, "model_dump"):
        return value.model_dump()
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def expected_attribute(rule: Dict[str, Any], name: str) -> Any:
    """What the library's attribute reads for a rule the server answered."""
    value = rule.get(name, RULE_DEFAULTS[name])
    if value is None:
        return RULE_DEFAULTS[name] if name in ("ownership", "tags", "row_filters", "extra") else None
    if name in NESTED_DEFAULTS:
        full = {**NESTED_DEFAULTS[name], **{k: v for k, v in value.items()}}
        if name == "dcat" and full["temporal"] is not None:
            full["temporal"] = {"start": None, "end": None, **full["temporal"]}
        for k, d in NESTED_DEFAULTS[name].items():
            if full[k] is None and d is not None:
                full[k] = d
        return full
    return value


def q(name: str) -> str:
    return urllib.parse.quote(name, safe="")


class RealTreeTest(unittest.TestCase):
    server: Server

    @classmethod
    def setUpClass(cls) -> None:
        cls.server = Server()

    @classmethod
    def tearDownClass(cls) -> None:
        cls.server.close()

    def resolver(self, **kwargs: Any) -> RemoteGovernanceResolver:
        r = RemoteGovernanceResolver(self.server.base, **kwargs)
        self.addCleanup(r.close)
        return r

    def items(self) -> List[Dict[str, Any]]:
        status, items = self.server.get("/datasets", accept="application/x-ndjson")
        self.assertEqual(status, 200)
        self.assertGreaterEqual(len(items), 174, "the real tree has 174 sources keys")
        return list(items)

    def test_every_dataset_as_the_server_answers(self) -> None:
        """For every dataset: resolve() equals GET /datasets/{id}/rule on every
        field, the gates equal GET /exposure, the facet GET /facet."""
        everywhere = self.resolver()
        per_app: Dict[str, RemoteGovernanceResolver] = {}
        for it in self.items():
            name, r, query = it["id"], everywhere, ""
            status, body = self.server.get(f"/datasets/{q(name)}/rule")
            if status == 409:  # two apps declare it: ask as the library's resolver of one app
                r = per_app.setdefault(it["app"], self.resolver(app=it["app"]))
                query = "?app=" + it["app"]
                status, body = self.server.get(f"/datasets/{q(name)}/rule{query}")
            self.assertEqual(status, 200, name)
            with self.subTest(dataset=name, app=it["app"]):
                rule = r.resolve(name)
                self.assertIsInstance(rule, governanced_client.GovernanceRule)
                self.assertEqual(rule.model_dump(exclude_unset=True), body["rule"], "the set-field view")
                for field in RULE_DEFAULTS:
                    self.assertEqual(plain(getattr(rule, field)), expected_attribute(body["rule"], field), field)
                _, exposure = self.server.get(f"/datasets/{q(name)}/exposure{query}")
                self.assertEqual(r.is_exposed(name), exposure["expose"])
                self.assertEqual(r.is_dataspace_exposed(name), exposure["dataspace_expose"])
                self.assertEqual(r.exposure_conflict(name), exposure["conflict"])
                self.assertEqual(r.is_empty(name), body["is_empty"])
                sep = "&" if query else "?"
                _, facet = self.server.get(f"/datasets/{q(name)}/facet{query}{sep}producer={q(PRODUCER)}&include_dataspace=false")
                self.assertEqual(r.build_facet(name, producer=PRODUCER, include_dataspace=False), facet)
                _, facet = self.server.get(f"/datasets/{q(name)}/facet{query}")
                self.assertEqual(r.build_facet(name), facet)

    def test_reads_of_the_served_revision_need_no_request(self) -> None:
        """Once the watch follows the server, a cached answer of the revision
        served is given without asking (the server's request counter stays)."""
        r = self.resolver()
        self.assertIsNotNone(r.wait_for_revision(None, timeout=60))
        name = "datasets.ds_dev_gold.grid_substations"
        r.resolve(name)
        before = self.rule_requests()
        for _ in range(5):
            r.resolve(name)
        self.assertEqual(self.rule_requests(), before)
        without_watch = self.resolver(watch=False)
        without_watch.resolve(name)
        without_watch.resolve(name)  # asks again, with its ETag: a 304
        self.assertEqual(self.rule_requests(), before + 2)

    def rule_requests(self) -> float:
        req = urllib.request.Request(self.server.base + "/metrics")
        with urllib.request.urlopen(req, timeout=30) as resp:
            text = resp.read().decode()
        total = 0.0
        for line in text.splitlines():
            if line.startswith("governanced_http_requests_total{") and 'route="/datasets/{id}/rule"' in line:
                total += float(line.rsplit(" ", 1)[1])
        return total

    def test_resolution_in_one_app(self) -> None:
        """app= is the library's resolver of that app's file: a name none of
        its keys matches resolves to its defaults."""
        grid = self.resolver(app="grid")
        _, body = self.server.get("/apps/grid/datasets/not.a.dataset/rule")
        self.assertEqual(grid.resolve("not.a.dataset").model_dump(exclude_unset=True), body["rule"])
        self.assertEqual(grid.lookup("not.a.dataset").match, {"kind": "defaults"})

    def test_errors(self) -> None:
        everywhere = self.resolver()
        with self.assertRaises(DatasetNotFound) as cm:
            everywhere.resolve("not.a.dataset")
        self.assertIsInstance(cm.exception, LookupError)
        self.assertEqual(cm.exception.kind, "dataset-not-found")
        with self.assertRaises(NotFound):
            self.resolver(app="no-such-app").resolve("x")
        ambiguous = [it for it in self.items() if self.server.get(f"/datasets/{q(it['id'])}/rule")[0] == 409]
        for it in ambiguous[:1]:
            with self.assertRaises(AmbiguousDataset) as amb:
                everywhere.resolve(it["id"])
            self.assertIn(it["app"], amb.exception.apps)

    def test_owners(self) -> None:
        """The registry's lookups: by id or alias, by DID or URL, the canonical URI."""
        r = self.resolver(watch=False)
        _, registry = self.server.get("/owners")
        self.assertGreater(len(registry["items"]), 0)
        for entry in registry["items"]:
            with self.subTest(owner=entry["id"]):
                _, want = self.server.get("/owners/" + q(entry["id"]))
                self.assertEqual(r.owner(entry["id"]), want)
                for alias in entry["aliases"]:
                    self.assertEqual(r.owner(alias), want)
                self.assertEqual(r.canonical_uri(entry["id"]), want["canonical_uri"])
                for uri in (entry.get("did"), entry.get("url")):
                    if uri:
                        self.assertEqual(r.owner_by_uri(uri)["id"], entry["id"])  # type: ignore[index]
        self.assertIsNone(r.owner("no-such-owner"))
        self.assertIsNone(r.owner_by_uri("https://nobody.example"))

    def test_validate_one_document(self) -> None:
        r = self.resolver(watch=False)
        good = "defaults: {access_level: internal}\nsources:\n  ds.a: {title: A}\n"
        self.assertEqual(r.validate(good), [])
        unknown = {"defaults": {}, "sources": {"ds.a": {"title": "A", "colour": "blue"}}}
        messages = r.validate(unknown)
        self.assertEqual(len(messages), 1)
        self.assertIn("colour", messages[0])
        with self.assertRaises(GovernanceValidationError) as cm:
            r.validate(unknown, strict=True)
        self.assertFalse(cm.exception.report["ok"])
        with self.assertRaises(GovernanceValidationError):
            r.validate("defaults: {access_level: publik}\nsources: {}\n")

    def test_the_rule_class(self) -> None:
        """celine.governance's GovernanceRule when it is importable, else the
        client's class of the same name, attributes and defaults."""
        rule = self.resolver(watch=False).resolve("datasets.ds_dev_gold.grid_substations")
        try:
            from celine.governance import GovernanceRule as LibraryRule
        except ImportError:
            self.assertIs(type(rule), models.GovernanceRule)
        else:
            self.assertIs(type(rule), LibraryRule)


class EditThenStopTest(unittest.TestCase):
    """An edit is seen once the watch reports its reload; after the server
    stops, the answers the client had are still given, stale and logged."""

    def test_edit_then_stop(self) -> None:
        server = Server()
        self.addCleanup(server.close)
        r = RemoteGovernanceResolver(server.base)
        self.addCleanup(r.close)
        first = r.wait_for_revision(None, timeout=60)
        self.assertIsNotNone(first)
        name = "datasets.ds_dev_gold.grid_wind_risks"
        self.assertEqual(r.resolve(name).retention_days, 365)
        exposed = r.is_exposed(name)
        others = ["datasets.ds_dev_gold.grid_substations", "datasets.ds_dev_gold.grid_heat_risks"]
        for other in others:
            r.resolve(other)

        server.edit("apps/grid/governance.yaml", "retention_days: 365", "retention_days: 366")
        second = r.wait_for_revision(first, timeout=60)
        self.assertIsNotNone(second, "no reload reported")
        after = r.lookup(name)
        self.assertEqual(after.rule.retention_days, 366, "the first read after the reload event answers the edit")
        self.assertEqual(after.revision, second)
        self.assertFalse(after.stale)

        self.assertEqual(server.stop(), 0)
        self.assertTrue(r.wait_until_lost(timeout=60))
        with self.assertLogs("governanced_client", logging.WARNING) as logs:
            stale = r.lookup(name)
        self.assertTrue(stale.stale)
        self.assertTrue(r.stale)
        self.assertEqual(stale.revision, second)
        self.assertEqual(stale.rule.retention_days, 366)
        self.assertIn("stale", logs.output[0])
        for other in others:
            self.assertIn("gold", r.resolve(other).tags)
        self.assertEqual(r.is_exposed(name), exposed)
        with self.assertRaises(ServerUnavailable):  # never asked: no answer to give
            r.resolve("datasets.ds_dev_gold.never_asked")


class PythonFloorTest(unittest.TestCase):
    def test_parses_as_python_3_10(self) -> None:
        """Every module reads as Python 3.10, the package's floor (celine-superset's image)."""
        package = os.path.dirname(governanced_client.__file__)
        names = sorted(n for n in os.listdir(package) if n.endswith(".py"))
        self.assertGreaterEqual(len(names), 5)
        for n in names:
            with open(os.path.join(package, n), encoding="utf-8") as f:
                ast.parse(f.read(), n, feature_version=(3, 10))
        self.assertTrue(os.path.exists(os.path.join(package, "py.typed")))


if __name__ == "__main__":
    unittest.main()

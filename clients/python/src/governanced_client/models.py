"""The rule as the client returns it when ``celine.governance`` is not importable.

The classes carry the library's names, attributes and defaults, so code written
against ``celine.governance.GovernanceRule`` reads them unchanged: an attribute
no file states has the library's default (``None``, ``[]``, ``False``,
``"use"``), ``model_fields_set`` names the attributes the files do state, and
``model_dump(exclude_unset=True)`` gives back the set-field view the server
answered. They are built from the server's JSON only; nothing validates them
again.
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, field, fields
from typing import Any, ClassVar, Dict, FrozenSet, List, Mapping, Optional, Type, TypeVar

__all__ = [
    "GovernanceOwner",
    "TemporalCoverage",
    "DcatConfig",
    "OntologyConfig",
    "DataspaceConfig",
    "GovernanceRule",
]

M = TypeVar("M", bound="_Model")


@dataclass
class _Model:
    """A block read from the server's set-field view."""

    #: Nested blocks: attribute name -> model class.
    _nested: ClassVar[Dict[str, Type["_Model"]]] = {}
    #: Lists of nested blocks: attribute name -> model class of an item.
    _nested_lists: ClassVar[Dict[str, Type["_Model"]]] = {}

    model_fields_set: FrozenSet[str] = field(default=frozenset(), repr=False, compare=False)

    @classmethod
    def model_validate(cls: Type[M], data: Mapping[str, Any]) -> M:
        """Build from a JSON object; the keys present are the fields set."""
        names = {f.name for f in fields(cls) if f.name != "model_fields_set"}
        kwargs: Dict[str, Any] = {}
        for key, value in data.items():
            if key not in names:
                continue  # a newer server's field: ignored, as the library ignores it
            if key in cls._nested and isinstance(value, Mapping):
                value = cls._nested[key].model_validate(value)
            elif key in cls._nested_lists and isinstance(value, list):
                value = [cls._nested_lists[key].model_validate(v) if isinstance(v, Mapping) else v for v in value]
            elif value is None and _default_of(cls, key) is not None:
                value = _default_of(cls, key)  # a null where the library keeps a default
            kwargs[key] = value
        return cls(**kwargs, model_fields_set=frozenset(k for k in data if k in names))

    def model_dump(self, *, exclude_unset: bool = False) -> Dict[str, Any]:
        """The block as a dict; with ``exclude_unset`` only the fields set."""
        out: Dict[str, Any] = {}
        for f in fields(self):
            if f.name == "model_fields_set" or exclude_unset and f.name not in self.model_fields_set:
                continue
            out[f.name] = _dump(getattr(self, f.name), exclude_unset)
        return out


def _default_of(cls: Any, name: str) -> Any:
    for f in fields(cls):
        if f.name == name:
            if f.default_factory is not MISSING:
                return f.default_factory()
            return None if f.default is MISSING else f.default
    return None


def _dump(value: Any, exclude_unset: bool) -> Any:
    if isinstance(value, _Model):
        return value.model_dump(exclude_unset=exclude_unset)
    if isinstance(value, list):
        return [_dump(v, exclude_unset) for v in value]
    return value


@dataclass
class GovernanceOwner(_Model):
    name: str = ""
    type: str = "OWNER"


@dataclass
class TemporalCoverage(_Model):
    start: Optional[str] = None
    end: Optional[str] = None


@dataclass
class DcatConfig(_Model):
    _nested: ClassVar[Dict[str, Type[_Model]]] = {"temporal": TemporalCoverage}

    publisher_uri: Optional[str] = None
    themes: List[str] = field(default_factory=list)
    language_uris: List[str] = field(default_factory=list)
    spatial_uris: List[str] = field(default_factory=list)
    accrual_periodicity: Optional[str] = None
    conforms_to: Optional[str] = None
    temporal: Optional[TemporalCoverage] = None


@dataclass
class OntologyConfig(_Model):
    spec: Optional[str] = None
    spec_file: Optional[str] = None


@dataclass
class DataspaceConfig(_Model):
    medallion: Optional[str] = None
    contract_required: bool = False
    consent_required: bool = False
    odrl_action: str = "use"
    purpose: List[str] = field(default_factory=list)
    expose: bool = False


@dataclass
class GovernanceRule(_Model):
    """One resolved governance block, as ``celine.governance.GovernanceRule``.

    ``expose`` is tri-state and ``None`` does not mean ``False``: decide
    catalogue visibility with the resolver's ``is_exposed``.
    """

    _nested: ClassVar[Dict[str, Type[_Model]]] = {
        "dcat": DcatConfig,
        "ontology": OntologyConfig,
        "dataspace": DataspaceConfig,
    }
    _nested_lists: ClassVar[Dict[str, Type[_Model]]] = {"ownership": GovernanceOwner}

    title: Optional[str] = None
    description: Optional[str] = None
    expose: Optional[bool] = None
    license: Optional[str] = None
    attribution: Optional[str] = None
    ownership: List[GovernanceOwner] = field(default_factory=list)
    access_level: Optional[str] = None
    access_requirements: Optional[str] = None
    classification: Optional[str] = None
    tags: List[str] = field(default_factory=list)
    retention_days: Optional[int] = None
    documentation_url: Optional[str] = None
    source_system: Optional[str] = None
    row_filters: List[Dict[str, Any]] = field(default_factory=list)
    user_filter_column: Optional[str] = None
    dcat: Optional[DcatConfig] = None
    ontology: Optional[OntologyConfig] = None
    dataspace: Optional[DataspaceConfig] = None
    extra: Dict[str, Any] = field(default_factory=dict)

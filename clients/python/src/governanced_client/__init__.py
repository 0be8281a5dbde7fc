"""The Python client of governanced.

``RemoteGovernanceResolver`` answers with ``celine.governance``'s method names
— ``resolve``, ``is_exposed``, ``is_dataspace_exposed``, ``exposure_conflict``,
``build_facet``, ``is_empty``, ``validate`` — by asking the service, so that a
consumer answers exactly what every other consumer answers::

    from governanced_client import RemoteGovernanceResolver

    resolver = RemoteGovernanceResolver("http://governanced:8080", app="grid")
    rule = resolver.resolve("datasets.ds_dev_gold.grid_substations")
    rule.access_level, rule.tags

The standard library only; Python 3.10 or later. With ``celine.governance``
importable, ``resolve`` returns its ``GovernanceRule`` instances.
"""

from __future__ import annotations

from . import errors
from .errors import (
    AmbiguousDataset,
    DatasetNotFound,
    GovernancedError,
    GovernanceValidationError,
    NotFound,
    ServerUnavailable,
)
from .resolver import GovernanceRule, RemoteGovernanceResolver, Resolution

# What the package exports: the resolver's names and every error the
# client raises (errors.__all__, the one list of them).
__all__ = ["RemoteGovernanceResolver", "Resolution", "GovernanceRule"]
__all__ += errors.__all__

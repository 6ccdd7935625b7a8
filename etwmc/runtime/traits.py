"""Provider traits for generated modules and backends: see :mod:`etwmc.traits`."""

from __future__ import annotations

from ..traits import build_traits, parse_traits

__all__ = ["build_traits", "parse_traits"]

"""Semantic rules: each a function from the model to diagnostics.

:data:`RULES` lists every rule by name, in the order they run; nothing is discovered by
scanning the package.  A rule never raises on odd input (the model may be partial when
earlier stages found errors)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ..diagnostics import Diagnostic
from ..model import Manifest
from . import advice, messages, providers, references, templates, unique, values

Rule = Callable[[Manifest], Iterable[Diagnostic]]

RULES: tuple[Rule, ...] = (
    # values and ranges (ETW2xx)
    values.keyword_masks,
    values.channels,
    values.admin_events,
    values.levels_opcodes_tasks,
    values.event_ids,
    values.bitmap_items,
    # uniqueness (ETW3xx)
    unique.providers,
    unique.events,
    unique.channels_levels_tasks_keywords,
    unique.maps,
    unique.templates,
    unique.filters,
    unique.message_table,
    unique.message_ids,
    # references (ETW42x)
    references.data_maps,
    references.global_opcode_collisions,
    # templates, messages, providers (ETW5xx)
    templates.template_items,
    templates.filter_templates,
    messages.event_messages,
    providers.provider_attributes,
    # advice (ETW29x, ETW48x)
    advice.events_without_level,
    advice.admin_without_keywords,
    advice.hand_made_guids,
    advice.unused_items,
    advice.unused_strings,
)


def run_rules(manifest: Manifest) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for r in RULES:
        out.extend(r(manifest))
    return out

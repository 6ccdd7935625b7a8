"""etwmc's own XSD for the instrumentation manifest, its cached loader, and the
schema stage of validation (diagnostic codes ETW1xx).

The schema (``etwmc.xsd`` next to this file) checks structure and lexical forms only;
ranges and references are the semantic rules' job.  It is loaded once per process
from the package, never from the network, and is valid XSD 1.0 for both libxml2
(used here, for speed) and the ``xmlschema`` package.

What is validated, for the two document shapes :class:`etwmc.parse.Document` knows:

* a plain ``<instrumentationManifest>``: the whole document;
* a component manifest ``<assembly>``: each ``<events>`` element on its own, and the
  ``<localization>`` element, whose elements are in the assembly namespace there,
  as a copy moved into the manifest namespace (line numbers are kept).

Besides the XSD, three structural rules are checked here because the schema accepts
the constructs (real manifests use them) while mc does not:

* ``<valueMap>``/``<bitMap>`` directly inside ``<provider>`` instead of ``<maps>`` (warning);
* a ``<map message="...">`` with literal text instead of ``$(string.ID)`` (warning);
* the task-grouped event form ``<events><task><opcode><event>`` of the first SDKs,
  which mc has rejected since the Windows 7 SDK (error).
"""

from __future__ import annotations

import copy
import functools
import re
import threading
from importlib import resources
from pathlib import Path

from lxml import etree  # type: ignore[import-untyped]

from ..diagnostics import Diagnostic, Severity, code, diag
from ..parse import Document
from ..winmeta import ASM_NS, EVENTS_NS
from .explain import Explainer, Target, local, namespace
from .index import SchemaIndex, read_index

__all__ = ["SCHEMA_FILE", "load_schema", "schema_index", "schema_diagnostics", "schema_path"]

SCHEMA_FILE = "etwmc.xsd"

W_MAP_OUTSIDE_MAPS = code("ETW140", Severity.WARNING, "a value or bit map is not inside <maps>")
W_LITERAL_MAP_MESSAGE = code(
    "ETW141", Severity.WARNING, "a map item's message is literal text, not $(string.ID)"
)
E_TASK_GROUPED_EVENTS = code(
    "ETW142", Severity.ERROR, "the task-grouped event form is not supported"
)

_STRING_REF = re.compile(r"\$\(([Ss]tring|[Mm][Cc])\..*\)")


@functools.cache
def schema_path() -> Path:
    """The schema file inside the installed package."""
    return Path(str(resources.files(__package__).joinpath(SCHEMA_FILE)))


_per_thread = threading.local()


def load_schema() -> etree.XMLSchema:
    """The compiled schema, built once per process (once per thread: a validator keeps
    its error log, so threads must not share one).  Nothing is fetched: the XSD has no
    imports or includes, and the parser may not use the network."""
    schema: etree.XMLSchema | None = getattr(_per_thread, "schema", None)
    if schema is None:
        parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
        schema = etree.XMLSchema(etree.parse(str(schema_path()), parser))
        _per_thread.schema = schema
    return schema


@functools.cache
def schema_index() -> SchemaIndex:
    return read_index(schema_path())


def schema_diagnostics(doc: Document) -> list[Diagnostic]:
    """Validate ``doc`` against etwmc.xsd; every problem becomes a diagnostic with the
    file, line and (where it can be found) column of the element or attribute."""
    schema = load_schema()
    explainer = Explainer(doc, schema_index())
    for target in _targets(doc):
        if not schema.validate(target.root):
            explainer.add(target, list(schema.error_log))
    out = explainer.finish()
    out.extend(_structure_rules(doc))
    return out


def _same(elem: etree._Element) -> etree._Element:
    return elem


def _targets(doc: Document) -> list[Target]:
    if not doc.wrapped:
        return [Target(doc.root, _same)]
    targets = [Target(events, _same) for events in doc.events]
    loc = doc.localization
    if loc is not None:
        if namespace(loc.tag) == EVENTS_NS:
            targets.append(Target(loc, _same))
        else:
            targets.append(_moved_localization(loc))
    return targets


def _moved_localization(loc: etree._Element) -> Target:
    """A copy of an assembly-namespace <localization> with its assembly-namespace
    elements moved into the manifest namespace.  deepcopy keeps source lines; the
    copy has the same shape, so nodes pair up in document order."""
    moved = copy.deepcopy(loc)
    pairs: dict[etree._Element, etree._Element] = {}
    for new, old in zip(moved.iter(), loc.iter(), strict=True):
        if isinstance(new.tag, str):
            pairs[new] = old
            if namespace(new.tag) == ASM_NS:
                new.tag = f"{{{EVENTS_NS}}}{local(new.tag)}"
    return Target(moved, lambda elem: pairs.get(elem, loc))


def _structure_rules(doc: Document) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    ns = f"{{{EVENTS_NS}}}"
    for events in doc.events:
        for provider in events.iterchildren(f"{ns}provider"):
            for item in provider.iterchildren(f"{ns}valueMap", f"{ns}bitMap"):
                out.append(
                    diag(
                        W_MAP_OUTSIDE_MAPS,
                        doc.span(item),
                        f"<{local(item.tag)}> is directly inside <provider>; mc expects it "
                        "inside <maps>",
                        hint="wrap the maps in <maps>...</maps>",
                    )
                )
            for group in provider.iterchildren(f"{ns}maps", f"{ns}valueMap", f"{ns}bitMap"):
                for item in group.iter(f"{ns}map"):
                    message = item.get("message")
                    if message is not None and not _STRING_REF.fullmatch(message):
                        out.append(
                            diag(
                                W_LITERAL_MAP_MESSAGE,
                                doc.span(item, "message"),
                                f"message '{message}' on <map> is literal text; mc requires a "
                                "string-table reference $(string.ID)",
                                hint="move the text into the <stringTable> and refer to it",
                                attr="message",
                            )
                        )
            for defs in provider.iterchildren(f"{ns}events"):
                for task in defs.iterchildren(f"{ns}task"):
                    out.append(
                        diag(
                            E_TASK_GROUPED_EVENTS,
                            doc.span(task),
                            "events grouped as <events><task><opcode><event> are the form of "
                            "the first SDKs, which mc no longer accepts",
                            hint="write each event as <event value=... task=... opcode=...>",
                        )
                    )
    return out

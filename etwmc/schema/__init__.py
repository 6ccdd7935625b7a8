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

Besides the XSD, :mod:`etwmc.schema.extra` checks a few structural rules that the
schema cannot express or deliberately relaxes (see there).
"""

from __future__ import annotations

import functools
import threading
from pathlib import Path

from lxml import etree

from ..diagnostics import Diagnostic
from ..parse import Document
from ..winmeta import XS_NS
from .explain import Explainer
from .extra import structure_rules
from .index import SchemaIndex, read_index
from .targets import targets

__all__ = ["SCHEMA_FILE", "load_schema", "schema_index", "schema_diagnostics", "schema_path"]

SCHEMA_FILE = "etwmc.xsd"


@functools.cache
def schema_path() -> Path:
    """The schema file inside the installed package.

    Found beside this module rather than through :mod:`importlib.resources`, whose
    import (with zipfile, tempfile and theirs) adds about 10 ms to every start: libxml2
    reads the schema by file name, so the package is on a file system either way."""
    return Path(__file__).with_name(SCHEMA_FILE)


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
    """The element and type declarations of etwmc.xsd, read once: only a document with
    schema errors or a misplaced manifest element needs them."""
    return read_index(schema_path())


@functools.cache
def declared_names() -> frozenset[str]:
    """Every element name etwmc.xsd declares, read without building the index (the
    structure rules ask it first, and most documents need nothing more)."""
    tree = etree.parse(str(schema_path()))
    names: list[str] = tree.xpath("//xs:element/@name", namespaces={"xs": XS_NS})
    return frozenset(names)


def schema_diagnostics(doc: Document) -> list[Diagnostic]:
    """Validate ``doc`` against etwmc.xsd; every problem becomes a diagnostic with the
    file, line and (where it can be found) column of the element or attribute."""
    schema = load_schema()
    # The explainer and the index it reads are made when a problem must be explained:
    # a valid document needs neither.
    explainer: Explainer | None = None
    for target in targets(doc):
        if not schema.validate(target.root):
            if explainer is None:
                explainer = Explainer(doc, schema_index())
            explainer.add(target, list(schema.error_log))
    out = explainer.finish() if explainer is not None else []
    out.extend(structure_rules(doc, schema_index, declared_names))
    return out

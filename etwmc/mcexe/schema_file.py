"""``mc -w FILE``: the manifest validated against that schema too.

Build scripts pass the SDK's eventman.xsd (mc before 1.12.7051 validated only with it;
later versions validate with their own and ignore it).  etwmc always validates with its
own schema; with ``-w`` it also validates the manifest against the given one and
reports what that schema refuses (ETW026).  The schema is read with the same care as
a manifest: no DTD, no entities, nothing fetched from the network (an import or include
of a local file next to it is read); one that cannot be read or compiled is ETW025.
"""

from __future__ import annotations

from pathlib import Path

from lxml import etree

from ..codes import E_CUSTOM_SCHEMA, E_SCHEMA_FILE
from ..diagnostics import Diagnostic, Span, diag
from ..parse import MAX_BYTES, read_regular_file

# Each problem the schema finds is reported; a hostile schema or manifest could find
# millions, so the report stops here.
MAX_REPORTED = 200


def load_schema(path: str | Path) -> tuple[etree.XMLSchema | None, list[Diagnostic]]:
    where = Span(str(path))
    try:
        data = read_regular_file(path, MAX_BYTES)
    except OSError as e:  # NotRegularFile too
        return None, [diag(E_SCHEMA_FILE, where, f"cannot read the schema: {_clean(str(e))}")]
    parser = etree.XMLParser(
        resolve_entities=False, no_network=True, load_dtd=False, dtd_validation=False
    )
    try:
        doc = etree.fromstring(data, parser, base_url=str(Path(path).resolve())).getroottree()
        if doc.docinfo.internalDTD is not None or doc.docinfo.doctype:
            raise etree.XMLSchemaParseError("a schema with a DOCTYPE is not read")
        return etree.XMLSchema(doc), []
    except (etree.XMLSyntaxError, etree.XMLSchemaParseError, ValueError) as e:
        return None, [
            diag(
                E_SCHEMA_FILE,
                where,
                f"the file is not a schema etwmc can use: {_clean(str(e))}",
                hint="give -w the eventman.xsd of the Windows SDK, or leave out -w",
            )
        ]


def validate(schema: etree.XMLSchema, root: etree._Element, path: str) -> list[Diagnostic]:
    """What ``schema`` says about the manifest whose root element is ``root``."""
    if schema.validate(root.getroottree()):
        return []
    out: list[Diagnostic] = []
    for error in list(schema.error_log)[:MAX_REPORTED]:
        out.append(
            diag(
                E_CUSTOM_SCHEMA,
                Span(path, error.line or 0, (error.column or 0) + 1 if error.line else 0),
                f"the schema given with -w refuses this: {_clean(error.message)}",
                hint="fix the manifest, or check that -w names the schema you meant",
            )
        )
    return out


def _clean(text: str) -> str:
    """One report line: characters that are not printable are written as escapes."""
    return "".join(ch if ch.isprintable() else f"\\u{ord(ch):04X}" for ch in text)[:400]

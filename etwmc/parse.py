"""Safe parsing of untrusted manifest XML.

The parser never loads a DTD, never expands an entity, never touches the network and
keeps libxml2's limits on depth and text size (``huge_tree=False``).  A document with a
DOCTYPE, an entity reference or a processing instruction is rejected with one clear
diagnostic.  UTF-8 and UTF-16 (with or without BOM) and CRLF line ends are accepted.

Two document shapes are accepted: a plain ``<instrumentationManifest>``, and a Windows
component manifest ``<assembly>`` that wraps ``<instrumentation>`` and
``<localization>``.  Either way the result is a :class:`Document` that names the
``<events>`` and ``<localization>`` elements the rest of the compiler reads.
"""

from __future__ import annotations

import codecs
from pathlib import Path

from lxml import etree

from .codes import (
    E_DTD,
    E_EMPTY,
    E_ENCODING,
    E_ENTITY,
    E_PI,
    E_READ,
    E_ROOT,
    E_SYNTAX,
    E_TOO_LARGE,
    N_COUNTERS,
    N_NO_EVENTS,
)
from .diagnostics import Diagnostic, Span, diag
from .regularfile import NotRegularFile, open_regular
from .winmeta import ASM_NS, EVENTS_NS

MAX_BYTES = 64 * 1024 * 1024


_LOCAL_ROOT = "instrumentationManifest"


class _NoExternalLoads(etree.Resolver):  # type: ignore[misc]  # lxml ships no types
    """Answers every request for an outside resource (a DOCTYPE's external subset, an
    external entity) with nothing.  libxml2 reads a DOCTYPE's SYSTEM file even with
    load_dtd=False when IDs are not collected; with this resolver no file other than
    the manifest is ever opened (a FIFO named there would hang the process)."""

    def resolve(self, system_url: str, public_id: str, context: object) -> object:
        return self.resolve_string("", context)


def _parser() -> etree.XMLParser:
    parser = etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        dtd_validation=False,
        huge_tree=False,
        remove_comments=False,
        remove_pis=False,
        remove_blank_text=False,
        recover=False,
        collect_ids=False,
        strip_cdata=False,
    )
    parser.resolvers.add(_NoExternalLoads())
    return parser


class Document:
    """A parsed manifest: the element tree plus what locating problems needs."""

    __slots__ = (
        "path",
        "root",
        "events",
        "localization",
        "lines",
        "wrapped",
        "_needles",
        "_prefixed_needles",
    )

    def __init__(
        self,
        path: str,
        root: etree._Element,
        *,
        lines: list[str] | None = None,
    ) -> None:
        self.path = path
        self.root = root
        self.events: list[etree._Element] = []  # <events> elements
        self.localization: etree._Element | None = None
        self.lines: list[str] = lines if lines is not None else []  # decoded source lines
        self.wrapped = False  # True for the <assembly> component-manifest form
        # "<name" per local name, "<prefix:name" per (prefix, name): lowering asks
        # for thousands of spans, of a few dozen kinds of element.
        self._needles: dict[str, str] = {}
        self._prefixed_needles: dict[tuple[str, str], str] = {}

    def span(self, elem: etree._Element, attr: str | None = None) -> Span:
        """Where ``elem``'s start tag begins (or where its ``attr`` is written).

        libxml2 numbers an element by the line its start tag *ends* on, so a start tag
        written over several lines is found by looking back from that line: on each
        line, the last ``<name`` written there counts, if the name ends there."""
        tag = elem.tag
        if not isinstance(tag, str):
            return Span(self.path, elem.sourceline or 0)
        return self.named_span(elem, tag.rpartition("}")[2], attr)

    def named_span(self, elem: etree._Element, name: str, attr: str | None = None) -> Span:
        """:meth:`span` of an element whose local name the caller knows (it found the
        element by that name): a manifest's thousands of events, fields and strings
        need not have their tags read again."""
        line = elem.sourceline or 0
        lines = self.lines
        if not (0 < line <= len(lines)):
            return Span(self.path, line)
        prefix = elem.prefix
        if prefix is None:
            needle = self._needles.get(name)
            if needle is None:
                needle = self._needles[name] = f"<{name}"
        else:
            needle = self._prefixed_needles.get((prefix, name))
            if needle is None:
                needle = self._prefixed_needles[(prefix, name)] = f"<{prefix}:{name}"
        # Nearly always on the line libxml2 gives, followed by a space, a '/' or a '>';
        # else on one of the lines before it.
        text = lines[line - 1]
        pos = text.rfind(needle)
        if pos >= 0:
            end = pos + len(needle)
            if not _continues_name(text[end : end + 1]):
                if attr:
                    return self._attr_span(line, pos + 1, attr)
                return Span(self.path, line, pos + 1)
        start = line
        first = max(line - _LOOK_BACK, 0)
        while True:
            start -= 1
            if start <= first:
                return Span(self.path, line)
            text = lines[start - 1]
            pos = text.rfind(needle)
            if pos >= 0:
                end = pos + len(needle)
                if not _continues_name(text[end : end + 1]):
                    break
        if attr:
            return self._attr_span(start, pos + 1, attr)
        return Span(self.path, start, pos + 1)

    def _attr_span(self, line: int, col: int, attr: str) -> Span:
        found = self.find_attr(line, col, attr)
        return Span(self.path, *found) if found is not None else Span(self.path, line, col)

    def find_attr(self, line: int, col: int, attr: str) -> tuple[int, int] | None:
        """(line, col) of ``attr=`` in the start tag that begins at (line, col), or None."""
        for n in range(line, min(line + _LOOK_BACK, len(self.lines)) + 1):
            text = self.lines[n - 1]
            begin = col - 1 if n == line else 0
            end = text.find(">", begin)
            at = _find_attr(text[: end if end >= 0 else len(text)], attr, begin)
            if at >= 0:
                return n, at + 1
            if end >= 0:
                return None
        return None


_LOOK_BACK = 64  # lines a start tag may span
_NAME_CHARS = frozenset("_-.:")  # besides letters and digits


def _continues_name(char: str) -> bool:
    """Whether ``char`` (one character, or none at the end of a line) may continue an
    element name."""
    return char != "" and (char.isalnum() or char in _NAME_CHARS)


def _find_attr(text: str, attr: str, start: int) -> int:
    i = text.find(attr, start)
    while i >= 0:
        before = text[i - 1] if i > 0 else " "
        after = text[i + len(attr) : i + len(attr) + 2].lstrip()
        if before.isspace() and after.startswith("="):
            return i
        i = text.find(attr, i + 1)
    return -1


def read_regular_file(path: str | Path, limit: int) -> bytes:
    """The bytes of ``path`` (at most ``limit`` + 1 of them, so callers can tell an
    oversized file), refusing anything that is not a regular file
    (:class:`~etwmc.regularfile.NotRegularFile`, without waiting on a FIFO)."""
    with open_regular(path) as f:
        return f.read(limit + 1)


def read_bytes(path: str | Path) -> tuple[bytes | None, list[Diagnostic]]:
    name = str(path)
    try:
        data = read_regular_file(path, MAX_BYTES)
    except NotRegularFile as e:
        return None, [
            diag(E_READ, Span(name), f"cannot read the file: {e}", hint="name a manifest file")
        ]
    except OSError as e:
        return None, [diag(E_READ, Span(name), f"cannot read the file: {e.strerror or e}")]
    if len(data) > MAX_BYTES:
        return None, [
            diag(
                E_TOO_LARGE,
                Span(name),
                f"the file is larger than {MAX_BYTES} bytes, the most etwmc reads",
            )
        ]
    return data, []


def parse_file(path: str | Path) -> tuple[Document | None, list[Diagnostic]]:
    data, diags = read_bytes(path)
    if data is None:
        return None, diags
    return parse_bytes(data, str(path))


def split_lines(text: str) -> list[str]:
    """``text``'s lines, broken where XML breaks lines (LF, CR LF, CR) and nowhere else:
    ``str.splitlines`` also breaks at U+2028, U+0085 and other characters a manifest may
    hold in its text, which would shift every later line against libxml2's numbering
    (and against an editor's, which counts as XML does)."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")  # a tenth of the time a regular expression takes
    if lines[-1] == "":
        lines.pop()  # a final line break ends the last line; it starts no new one
    return lines


def _decode_lines(data: bytes, declared: str | None) -> list[str]:
    """Decode the source for column lookups; falls back gracefully (columns are a nicety)."""
    for bom, enc in (
        (codecs.BOM_UTF8, "utf-8-sig"),
        (codecs.BOM_UTF16_LE, "utf-16"),
        (codecs.BOM_UTF16_BE, "utf-16"),
    ):
        if data.startswith(bom):
            return split_lines(data.decode(enc, "replace"))
    if data[:2] == b"<\x00":
        return split_lines(data.decode("utf-16-le", "replace"))
    if data[:2] == b"\x00<":
        return split_lines(data.decode("utf-16-be", "replace"))
    enc = declared or "utf-8"
    try:
        return split_lines(data.decode(enc, "replace"))
    except LookupError:
        return split_lines(data.decode("utf-8", "replace"))


def _sniff_utf16_without_bom(data: bytes) -> bytes:
    """libxml2 detects UTF-16 from a BOM or from ``<?xml`` in UTF-16; a UTF-16 file that
    starts with an element and no BOM is given a BOM here so it parses too."""
    if data[:2] == b"<\x00" and not data.startswith(b"<\x00?\x00"):
        return codecs.BOM_UTF16_LE + data
    if data[:2] == b"\x00<" and not data.startswith(b"\x00<\x00?"):
        return codecs.BOM_UTF16_BE + data
    return data


def parse_bytes(data: bytes, path: str = "<input>") -> tuple[Document | None, list[Diagnostic]]:
    """Parse manifest bytes.  Returns the document, or None with the one diagnostic that
    explains why it cannot be read as a manifest."""
    where = Span(path)
    if len(data) > MAX_BYTES:
        return None, [diag(E_TOO_LARGE, where, f"the input is larger than {MAX_BYTES} bytes")]
    if not data.strip(b" \t\r\n\x00\xef\xbb\xbf\xff\xfe"):
        return None, [
            diag(
                E_EMPTY,
                where,
                "the file is empty",
                hint="a manifest starts with <instrumentationManifest>",
            )
        ]
    data = _sniff_utf16_without_bom(data)
    try:
        tree = etree.fromstring(data, _parser()).getroottree()
    except etree.XMLSyntaxError as e:
        return None, [_syntax_diag(e, path)]
    except (ValueError, LookupError) as e:  # unknown or unusable encoding declarations
        return None, [diag(E_ENCODING, where, f"cannot decode the file: {e}")]

    root = tree.getroot()
    docinfo = tree.docinfo
    lines = _decode_lines(data, docinfo.encoding)
    doc = Document(path, root, lines=lines)

    if docinfo.doctype or docinfo.internalDTD is not None or docinfo.externalDTD is not None:
        return None, [
            diag(
                E_DTD,
                Span(path, 1, 1),
                "the document has a DOCTYPE declaration; manifests must not declare a DTD",
                hint="remove the <!DOCTYPE ...> declaration",
            )
        ]
    problems = _reject_unsafe_nodes(doc)
    if problems:
        return None, problems
    diags: list[Diagnostic] = []
    if not _locate_sections(doc, diags):
        return None, diags
    return doc, diags


def _syntax_diag(e: etree.XMLSyntaxError, path: str) -> Diagnostic:
    line, col = e.position if e.position else (0, 0)
    msg = str(e.msg or e).strip()
    # libxml2 appends ", line N, column M" to its messages; the span already says so.
    msg = msg.split(", line ")[0] if ", line " in msg else msg
    lowered = msg.lower()
    if "entity" in lowered and ("not defined" in lowered or "amplification" in lowered):
        return diag(
            E_ENTITY,
            Span(path, line, col + 1 if line else 0),
            f"entity references are not allowed: {msg}",
            hint="write the text itself, or a character reference such as &#x41;",
        )
    if "doctype" in lowered or "dtd" in lowered:
        return diag(E_DTD, Span(path, line, col + 1 if line else 0), f"DOCTYPE not allowed: {msg}")
    if "encoding" in lowered or "unsupported" in lowered or "invalid char" in lowered:
        return diag(
            E_ENCODING, Span(path, line, col + 1 if line else 0), f"not a readable XML text: {msg}"
        )
    return diag(
        E_SYNTAX,
        Span(path, line, col + 1 if line else 0),
        f"not well-formed XML: {msg}",
        hint="quote characters inside attribute values must be written as &quot; and '<' as &lt;",
    )


def _reject_unsafe_nodes(doc: Document) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for node in doc.root.getroottree().iter(etree.Entity, etree.ProcessingInstruction):
        if isinstance(node, etree._Entity):
            out.append(
                diag(
                    E_ENTITY,
                    Span(doc.path, node.sourceline or 0),
                    f"entity reference &{node.name}; is not allowed in a manifest",
                    hint="write the text itself instead of an entity",
                )
            )
        else:
            out.append(
                diag(
                    E_PI,
                    Span(doc.path, node.sourceline or 0),
                    f"processing instruction <?{node.target} ...?> is not allowed in a manifest",
                    hint="remove it",
                )
            )
        if len(out) >= 20:
            break
    return out[:1] if out else []


def _localname(elem: etree._Element) -> str:
    tag = elem.tag
    return tag.rpartition("}")[2] if isinstance(tag, str) else ""


def _ns(elem: etree._Element) -> str:
    tag = elem.tag
    return tag[1:].partition("}")[0] if isinstance(tag, str) and tag.startswith("{") else ""


def _locate_sections(doc: Document, diags: list[Diagnostic]) -> bool:
    root = doc.root
    local, ns = _localname(root), _ns(root)
    if local == _LOCAL_ROOT and ns == EVENTS_NS:
        containers = [c for c in root if isinstance(c.tag, str)]
    elif local == "assembly" and ns == ASM_NS:
        doc.wrapped = True
        containers = [c for c in root if isinstance(c.tag, str)]
    else:
        shown = f"{{{ns}}}{local}" if ns else local
        diags.append(
            diag(
                E_ROOT,
                doc.span(root),
                f"the root element is <{shown}>, not an instrumentation manifest",
                hint=f'the root must be <instrumentationManifest xmlns="{EVENTS_NS}"> '
                f'(or a component manifest <assembly xmlns="{ASM_NS}">)',
            )
        )
        return False
    for c in containers:
        name = _localname(c)
        if name == "instrumentation":
            for child in c:
                if not isinstance(child.tag, str):
                    continue
                cname = _localname(child)
                if cname == "events" and _ns(child) == EVENTS_NS:
                    doc.events.append(child)
                elif cname == "counters":
                    diags.append(
                        diag(
                            N_COUNTERS,
                            doc.span(child),
                            "performance-counter definitions (<counters>) are not ETW events; "
                            "etwmc ignores them",
                        )
                    )
        elif name == "localization":
            if doc.localization is None:
                doc.localization = c
    if not doc.events:
        diags.append(
            diag(
                N_NO_EVENTS,
                doc.span(root),
                "the manifest has no <events> section, so it defines no ETW provider",
                hint="providers are defined in <instrumentation><events><provider ...>",
            )
        )
    return True

"""Safe parsing: hostile and broken inputs end in one clear diagnostic, never a traceback."""

from __future__ import annotations

import codecs
import os
import shutil
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import pytest

from etwmc.parse import parse_bytes
from etwmc.validate import check_bytes, check_file

MINIMAL = (
    '<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events">\n'
    "  <instrumentation><events/></instrumentation>\n"
    "</instrumentationManifest>\n"
)


def only_error(data: bytes) -> str:
    doc, diags = parse_bytes(data, "in.man")
    assert doc is None
    assert len(diags) == 1, diags
    assert diags[0].severity.label == "error"
    return diags[0].code


def test_minimal_manifest_parses() -> None:
    doc, diags = parse_bytes(MINIMAL.encode(), "in.man")
    assert doc is not None and diags == []
    assert len(doc.events) == 1


@pytest.mark.parametrize(
    "encode",
    [
        lambda s: s.encode("utf-8"),
        lambda s: codecs.BOM_UTF8 + s.encode("utf-8"),
        lambda s: codecs.BOM_UTF16_LE + s.encode("utf-16-le"),
        lambda s: codecs.BOM_UTF16_BE + s.encode("utf-16-be"),
        lambda s: s.encode("utf-16-le"),
        lambda s: s.replace("\n", "\r\n").encode("utf-8"),
    ],
    ids=["utf8", "utf8-bom", "utf16le-bom", "utf16be-bom", "utf16le-nobom", "crlf"],
)
def test_encodings_and_line_ends(encode) -> None:  # type: ignore[no-untyped-def]
    doc, diags = parse_bytes(encode(MINIMAL), "in.man")
    assert doc is not None, diags
    assert doc.events[0].sourceline == 2


def test_doctype_rejected() -> None:
    data = b'<?xml version="1.0"?>\n<!DOCTYPE x []>\n' + MINIMAL.encode()
    assert only_error(data) == "ETW005"


def test_external_entity_not_resolved(tmp_path) -> None:  # type: ignore[no-untyped-def]
    secret = tmp_path / "secret.txt"
    secret.write_text("TOPSECRET")
    data = (
        f'<?xml version="1.0"?>\n<!DOCTYPE m [<!ENTITY x SYSTEM "file://{secret}">]>\n'
        '<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events">&x;'
        "</instrumentationManifest>"
    ).encode()
    doc, diags = parse_bytes(data, "in.man")
    assert doc is None
    assert len(diags) == 1 and diags[0].code in ("ETW005", "ETW006")
    assert "TOPSECRET" not in diags[0].message


def test_undeclared_entity_reference() -> None:
    data = MINIMAL.replace("<events/>", "<events>&boom;</events>").encode()
    assert only_error(data) == "ETW006"


def test_billion_laughs_is_fast_and_bounded() -> None:
    ents = '<!ENTITY a0 "lol">' + "".join(
        f'<!ENTITY a{i} "{("&a" + str(i - 1) + ";") * 10}">' for i in range(1, 10)
    )
    data = (
        f'<?xml version="1.0"?>\n<!DOCTYPE m [{ents}]>\n'
        '<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events">&a9;'
        "</instrumentationManifest>"
    ).encode()
    tracemalloc.start()
    t = time.process_time()  # CPU time: what other processes do does not count
    code = only_error(data)
    elapsed = time.process_time() - t
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert code in ("ETW005", "ETW006")
    # Generous bounds: the point is "not exponential", not a timing benchmark.
    assert elapsed < 5.0
    assert peak < 50 * 1024 * 1024


def test_processing_instruction_rejected() -> None:
    data = MINIMAL.replace("<instrumentation>", "<?evil cmd?><instrumentation>").encode()
    assert only_error(data) == "ETW007"


@pytest.mark.parametrize("data", [b"", b"   \n\t", codecs.BOM_UTF8, codecs.BOM_UTF16_LE])
def test_empty_inputs(data: bytes) -> None:
    assert only_error(data) == "ETW002"


def test_binary_garbage() -> None:
    assert only_error(bytes(range(256)) * 8) in ("ETW004", "ETW009")


def test_wrong_root() -> None:
    assert only_error(b"<html><body/></html>") == "ETW008"


def test_wrong_namespace_root() -> None:
    assert only_error(b'<instrumentationManifest xmlns="urn:other"/>') == "ETW008"


def test_truncated_file_reports_position() -> None:
    data = MINIMAL.encode()[:-30]
    doc, diags = parse_bytes(data, "in.man")
    assert doc is None and diags[0].code == "ETW004"
    assert diags[0].span.line >= 2


def test_deep_nesting_is_rejected_not_crashing() -> None:
    depth = 100_000
    data = MINIMAL.replace("<events/>", "<events>" + "<a>" * depth + "</a>" * depth + "</events>")
    assert only_error(data.encode()) == "ETW004"


def test_component_manifest_wrapper() -> None:
    data = (
        b'<assembly xmlns="urn:schemas-microsoft-com:asm.v3" manifestVersion="1.0">\n'
        b'<instrumentation><events xmlns="http://schemas.microsoft.com/win/2004/08/events"/>'
        b'<counters xmlns="http://schemas.microsoft.com/win/2005/12/counters"/></instrumentation>\n'
        b'<localization><resources culture="en-US"><stringTable/></resources></localization>\n'
        b"</assembly>\n"
    )
    doc, diags = parse_bytes(data, "in.man")
    assert doc is not None and doc.wrapped
    assert len(doc.events) == 1 and doc.localization is not None
    assert [d.code for d in diags] == ["ETW010"]


def test_check_bytes_never_raises_on_garbage_attributes() -> None:
    data = MINIMAL.replace(
        "<events/>",
        '<events><provider name="P" guid="nope" symbol="1x"><events>'
        '<event value="0xZZ" level="" keywords="  " channel="" template=""/></events>'
        "</provider></events>",
    ).encode()
    checked = check_bytes(data, "in.man")
    assert not checked.ok
    assert all(d.span.file == "in.man" for d in checked.diagnostics)


def test_span_of_a_start_tag_written_over_several_lines() -> None:
    text = (
        '<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events">\n'
        "  <instrumentation><events>\n"
        '    <provider name="P"\n'
        '              guid="{11111111-2222-3333-4444-555555555555}"\n'
        '              symbol="P">\n'
        "    </provider>\n"
        "  </events></instrumentation>\n"
        "</instrumentationManifest>\n"
    )
    doc, _ = parse_bytes(text.encode(), "in.man")
    assert doc is not None
    provider = doc.events[0][0]
    # libxml2 numbers the element by the line its start tag ends on (5); the span is
    # where it begins, and an attribute's span is where that attribute is written.
    assert (doc.span(provider).line, doc.span(provider).col) == (3, 5)
    guid = doc.span(provider, "guid")
    assert (guid.line, guid.col) == (4, 15)
    assert doc.span(provider, "nonexistent").line == 3


def test_span_of_tags_sharing_a_line_and_of_prefixed_tags() -> None:
    ns = "http://schemas.microsoft.com/win/2004/08/events"
    text = (
        f'<e:instrumentationManifest xmlns:e="{ns}">\n'
        "  <e:instrumentation><e:events>\n"
        '    <e:provider name="P"><e:events><e:event value="1"\n'
        '        symbol="E"/>\n'
        '      <e:event value="2"/></e:events></e:provider>\n'
        "  </e:events></e:instrumentation>\n"
        "</e:instrumentationManifest>\n"
    )
    doc, _ = parse_bytes(text.encode(), "in.man")
    assert doc is not None
    provider = doc.events[0][0]
    events = provider[0]
    first, second = events
    place = lambda e: (doc.span(e).line, doc.span(e).col)  # noqa: E731
    assert place(doc.events[0]) == (2, 22)
    assert place(provider) == (3, 5)
    assert place(events) == (3, 26)
    assert place(first) == (3, 36)  # its start tag ends on line 4
    assert place(second) == (5, 7)
    assert (doc.span(first, "symbol").line, doc.span(first, "symbol").col) == (4, 9)


def test_span_of_a_start_tag_longer_than_the_look_back_is_its_last_line() -> None:
    attrs = "".join(f'\n   a{i}="{i}"' for i in range(70))
    text = (
        '<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events">\n'
        f"  <instrumentation><events>\n    <provider{attrs}>\n    </provider>\n"
        "  </events></instrumentation>\n</instrumentationManifest>\n"
    )
    doc, _ = parse_bytes(text.encode(), "in.man")
    assert doc is not None
    span = doc.span(doc.events[0][0])
    assert (span.line, span.col) == (73, 0)


def test_named_span_is_span_for_every_element() -> None:
    """Lowering passes the local name it found an element by (named_span); the place
    must be the one span() finds from the tag: tags sharing a line, a name that is the
    start of another (<event, <events), a tab or a line end after the name, prefixed
    and unprefixed tags of one name, and a start tag over several lines."""
    ns = "http://schemas.microsoft.com/win/2004/08/events"
    text = (
        f'<instrumentationManifest xmlns="{ns}" xmlns:e="{ns}">\n'
        "  <instrumentation><events>\n"
        '    <provider name="P"><events><event\tvalue="1"/><e:event value="2"/>\n'
        "      <event\n"
        '        value="3"/><event value="4"/></events>\n'
        '      <e:templates><template tid="T"><data name="a" inType="win:UInt32"/>'
        "</template></e:templates>\n"
        "    </provider>\n"
        "  </events></instrumentation>\n"
        "</instrumentationManifest>\n"
    )
    doc, _ = parse_bytes(text.encode(), "in.man")
    assert doc is not None
    elements = [e for e in doc.root.iter() if isinstance(e.tag, str)]
    assert len(elements) == 12
    for e in elements:
        name = e.tag.rpartition("}")[2]
        assert doc.named_span(e, name) == doc.span(e), e.tag
        assert doc.named_span(e, name, "value") == doc.span(e, "value"), e.tag
    places = [(doc.span(e).line, doc.span(e).col) for e in elements]
    # The event of value 3 ends its start tag on line 5, where the event of value 4
    # begins: the last '<event' written on libxml2's line counts, for both.
    assert places == [
        (1, 1),
        (2, 3),
        (2, 20),
        (3, 5),
        (3, 24),
        (3, 32),
        (3, 50),
        (5, 20),
        (5, 20),
        (6, 7),
        (6, 20),
        (6, 38),
    ]


# ------------------------------------------------------------- files that are not files

_needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")


def _lint_in_child(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run ``etwmc lint`` in a child with a deadline: a regression here hangs, and the
    test must fail rather than hang the suite."""
    return subprocess.run(
        [sys.executable, "-m", "etwmc", "lint", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
    )


@_needs_fifo
def test_a_fifo_manifest_is_refused_not_read(tmp_path: Path) -> None:
    fifo = tmp_path / "events.man"
    os.mkfifo(fifo)
    proc = _lint_in_child(str(fifo), cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr  # an input that cannot be opened: README
    assert "ETW001" in proc.stdout and "named pipe" in proc.stdout


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_a_device_is_refused_not_read() -> None:
    checked = check_file("/dev/zero")
    assert [d.code for d in checked.diagnostics] == ["ETW001"]
    assert "character device" in checked.diagnostics[0].message


@_needs_fifo
def test_a_doctype_naming_a_fifo_opens_nothing(tmp_path: Path) -> None:
    """A SYSTEM identifier is a file libxml2 would read: a FIFO there blocks forever
    if it is ever opened."""
    fifo = tmp_path / "dtd.fifo"
    os.mkfifo(fifo)
    man = tmp_path / "d.man"
    man.write_text(
        f'<?xml version="1.0"?>\n<!DOCTYPE instrumentationManifest SYSTEM "{fifo}">\n{MINIMAL}'
    )
    proc = _lint_in_child(str(man), cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert "ETW005" in proc.stdout


@pytest.mark.skipif(shutil.which("strace") is None, reason="strace is not installed")
@pytest.mark.parametrize(
    "doctype",
    [
        '<!DOCTYPE instrumentationManifest SYSTEM "{secret}">',
        '<!DOCTYPE instrumentationManifest PUBLIC "-//x//y" "{secret}">',
        '<!DOCTYPE instrumentationManifest [<!ENTITY % p SYSTEM "{secret}"> %p;]>',
        '<!DOCTYPE instrumentationManifest [<!ENTITY e SYSTEM "{secret}">]>',
    ],
)
def test_no_file_but_the_manifest_is_opened(tmp_path: Path, doctype: str) -> None:
    secret = tmp_path / "secret.dtd"
    secret.write_text('<!ENTITY leak "TOPSECRET">')
    man = tmp_path / "d.man"
    man.write_text(f'<?xml version="1.0"?>\n{doctype.format(secret=secret)}\n{MINIMAL}')
    log = tmp_path / "trace.log"
    proc = subprocess.run(
        ["strace", "-f", "-e", "trace=open,openat,openat2", "-o", str(log)]
        + [sys.executable, "-m", "etwmc", "lint", str(man)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    if "PTRACE" in proc.stderr or not log.exists():
        pytest.skip("strace cannot trace here: " + proc.stderr[:200])
    assert proc.returncode == 1
    opened = [line for line in log.read_text().splitlines() if str(secret) in line]
    assert opened == []
    assert str(man) in log.read_text()  # the trace did see the manifest being read


def test_a_manifest_without_events_gets_a_note() -> None:
    data = (
        b'<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events">'
        b'<instrumentation><counters xmlns="http://schemas.microsoft.com/win/2005/12/counters"/>'
        b"</instrumentation></instrumentationManifest>"
    )
    doc, diags = parse_bytes(data, "c.man")
    assert doc is not None
    assert [d.code for d in diags] == ["ETW010", "ETW011"]
    assert all(d.severity.label == "note" for d in diags)
    doc, diags = parse_bytes(MINIMAL.encode(), "m.man")
    assert doc is not None and diags == []


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\x85"])
def test_lines_break_where_xml_breaks_them(separator: str) -> None:
    """A character Python's splitlines breaks at but XML does not (U+2028, U+2029,
    U+0085) leaves every later line where libxml2 and editors number it, so a
    diagnostic's column is found on the right line."""
    manifest = (
        '<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"\n'
        '    xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events">\n'
        "  <instrumentation><events>\n"
        '    <provider name="P" guid="{11111111-2222-3333-4444-555555555555}" symbol="P">\n'
        f"      <!-- one{separator}two -->\n"
        "      <events>\n"
        '        <event value="1" symbol="Alpha" level="win:Informational"/>\n'
        '        <event value="2" symbol="B" level="win:Bogus"/>\n'
        "      </events>\n"
        "    </provider>\n"
        "  </events></instrumentation>\n"
        "</instrumentationManifest>\n"
    )
    doc, _ = parse_bytes(manifest.encode(), "in.man")
    assert doc is not None
    assert len(doc.lines) == 12 and doc.lines[4] == f"      <!-- one{separator}two -->"
    checked = check_bytes(manifest.encode(), "in.man")
    unknown = [d for d in checked.diagnostics if d.code == "ETW401"]
    assert [(d.span.line, d.span.col) for d in unknown] == [(8, 37)]


def test_split_lines_counts_as_xml_does() -> None:
    from etwmc.parse import split_lines

    assert split_lines("a\r\nb\rc\nd\n") == ["a", "b", "c", "d"]
    assert split_lines("a\u2028b\x85c\x0cd") == ["a\u2028b\x85c\x0cd"]
    assert split_lines("") == [] and split_lines("\n\n") == ["", ""]

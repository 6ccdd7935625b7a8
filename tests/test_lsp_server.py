"""`etwmc lsp` driven over standard input and output as an editor drives it
(tests/lsp_client.py): initialize, didOpen, didChange, every request, shutdown and exit,
on real manifests from ../shared/corpus and on documents that are not well-formed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from lsp_client import Client, ServerError, position

from conftest import CORPUS, GOLDEN, require_shared, slow
from etwmc.lint import lint_file
from etwmc.lsp.server import is_manifest

EDITOR = Path(__file__).parent / "manifests" / "lsp" / "editor.man"
SIMPLE = "microsoft__Windows-classic-samples__SimpleProvider.man"


def _corpus_text(name: str) -> str:
    data = (CORPUS / name).read_bytes()
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return data.decode("utf-16")
    return data.decode("utf-8-sig")


@pytest.fixture
def client(tmp_path: Path) -> Any:
    c = Client(tmp_path)
    yield c
    if c.proc.poll() is None:
        c.close()


def _doc(uri: str) -> dict[str, Any]:
    return {"textDocument": {"uri": uri}}


def _codes(published: dict[str, Any]) -> list[tuple[str, int]]:
    return sorted((d["code"], d["range"]["start"]["line"]) for d in published["diagnostics"])


def _lint(path: Path) -> list[tuple[str, int]]:
    return sorted((d.code, max(d.span.line - 1, 0)) for d in lint_file(str(path)).diagnostics)


def _apply(text: str, edits: list[dict[str, Any]]) -> str:
    """Apply LSP text edits (UTF-16 positions) to ``text`` as an editor would."""
    lines = text.split("\n")

    def offset(p: dict[str, int]) -> int:
        head = sum(len(line) + 1 for line in lines[: p["line"]])
        line = lines[p["line"]]
        units = 0
        for i, c in enumerate(line):
            if units >= p["character"]:
                return head + i
            units += 2 if ord(c) > 0xFFFF else 1
        return head + len(line)

    spans = [(offset(e["range"]["start"]), offset(e["range"]["end"]), e["newText"]) for e in edits]
    for start, end, new in sorted(spans, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def test_a_session_as_an_editor_drives_it(client: Client, tmp_path: Path) -> None:
    require_shared()
    path = tmp_path / SIMPLE
    text = _corpus_text(SIMPLE)
    path.write_text(text, encoding="utf-8")
    caps = client.initialize(
        tmp_path,
        {
            "textDocument": {
                "completion": {"completionItem": {"snippetSupport": True}},
                "rename": {"prepareSupport": True},
            }
        },
    )["capabilities"]
    assert caps["positionEncoding"] == "utf-16"
    assert caps["textDocumentSync"]["change"] == 2  # incremental
    assert caps["renameProvider"] == {"prepareProvider": True}
    assert caps["codeActionProvider"]["codeActionKinds"] == ["quickfix"]
    assert "<" in caps["completionProvider"]["triggerCharacters"]
    for feature in ("hoverProvider", "definitionProvider", "referencesProvider"):
        assert caps[feature] is True
    uri = client.open(path, text)

    # didOpen: lint's diagnostics, each with its code's page.
    published = client.diagnostics(uri)
    assert _codes(published) == _lint(path) == [("ETW291", 70)]
    (d,) = published["diagnostics"]
    assert d["severity"] == 3 and d["source"] == "etwmc"
    assert d["codeDescription"]["href"] == "https://etwmc.github.io/etwmc/rules/ETW291/"

    # Requests on the opened document.
    at = position(text, 'template="T_FLOAT"', 12)
    found = client.request("textDocument/hover", {**_doc(uri), "position": at})
    assert found["contents"]["kind"] == "markdown" and "Prop_Float" in found["contents"]["value"]
    found = client.request("textDocument/definition", {**_doc(uri), "position": at})
    assert found == [{"uri": uri, "range": _range(text, 'tid="T_FLOAT"', 5, 7)}]
    at = position(text, 'channel="C2"', 10)
    found = client.request(
        "textDocument/references",
        {**_doc(uri), "position": at, "context": {"includeDeclaration": True}},
    )
    assert len(found) == 4  # the channel's name and chid, and two events
    prepared = client.request("textDocument/prepareRename", {**_doc(uri), "position": at})
    assert prepared == {"range": _range(text, 'channel="C2"', 9, 2), "placeholder": "C2"}
    edit = client.request(
        "textDocument/rename", {**_doc(uri), "position": at, "newName": "Analytic"}
    )
    assert len(edit["changes"][uri]) == 3
    with pytest.raises(ServerError, match="predefined"):
        where = position(text, 'level="win:Error"', 9)
        client.request("textDocument/rename", {**_doc(uri), "position": where, "newName": "x"})
    symbols = client.request("textDocument/documentSymbol", _doc(uri))
    (provider,) = symbols
    assert provider["name"] == "Microsoft-Windows-SDKSample-SimpleProvider"
    assert sum(1 for c in provider["children"] if c["kind"] == 24) == 5  # Event
    items = client.request(
        "textDocument/completion", {**_doc(uri), "position": position(text, 'level="win:', 7)}
    )["items"]
    assert "win:Verbose" in [i["label"] for i in items]

    # didChange (incremental): a typo, reported after the edit, with a quick fix.
    typo = {
        "range": _range(text, 'level="win:Warning"', 17, 1),
        "text": "",
    }
    client.change(uri, 2, [typo])
    line = position(text, 'level="win:Warning"')["line"]
    text = _apply(text, [{"range": typo["range"], "newText": ""}])
    published = client.diagnostics(uri, 2)
    assert ("ETW401", line) in _codes(published)
    problem = next(d for d in published["diagnostics"] if d["code"] == "ETW401")
    assert "did you mean 'win:Warning'?" in problem["message"]
    actions = client.request(
        "textDocument/codeAction",
        {**_doc(uri), "range": problem["range"], "context": {"diagnostics": [problem]}},
    )
    (action,) = actions
    assert action["title"] == "Change to 'win:Warning'" and action["kind"] == "quickfix"
    assert action["diagnostics"][0]["code"] == "ETW401"
    text = _apply(text, action["edit"]["changes"][uri])
    client.change(uri, 3, [{"text": text}])  # a full-text change
    assert _codes(client.diagnostics(uri, 3)) == [("ETW291", 70)]

    # The document stops being well-formed: the XML error, and the last good
    # diagnostics on the lines the edit left alone.
    broken = text.replace("<templates>", "<templates", 1)
    client.change(uri, 4, [{"text": broken}])
    codes = _codes(client.diagnostics(uri, 4))
    assert [c for c, _ in codes] == ["ETW004", "ETW291"]
    # ... and requests still answer from the last good model.
    at = position(broken, 'template="T_BOOL"', 12)
    found = client.request("textDocument/definition", {**_doc(uri), "position": at})
    assert found == [{"uri": uri, "range": _range(broken, 'tid="T_BOOL"', 5, 6)}]

    assert client.close() == 0


def _range(text: str, needle: str, after: int, length: int) -> dict[str, Any]:
    return {
        "start": position(text, needle, after),
        "end": position(text, needle, after + length),
    }


@slow
def test_real_manifests_get_lint_s_diagnostics(client: Client, tmp_path: Path) -> None:
    """Large, UTF-16, wrapped in an <assembly>, with errors, not well-formed: each
    document's diagnostics are lint's, at lint's lines."""
    require_shared()
    names = [
        "microsoft__perfview__ClrEtwAll.man",
        "microsoft__Tx__Microsoft.Windows.ApplicationServer.Applications.manifest",
        "microsoft__Tx__SystemEvents.man",
        "repnz__etw-providers-docs__Win10-18990_Microsoft-Windows-TCPIP.xml",
        "repnz__etw-providers-docs__Win10-18990_Microsoft-Windows-Ntfs.xml",
        "repnz__etw-providers-docs__Win10-18990_Microsoft-Windows-PowerShell.xml",
    ]
    client.initialize(tmp_path)
    for name in names:
        uri = client.open(CORPUS / name, _corpus_text(name))
        published = client.diagnostics(uri)
        assert _codes(published) == _lint(CORPUS / name), name
    assert client.close() == 0


def test_a_document_that_never_was_well_formed(client: Client, tmp_path: Path) -> None:
    require_shared()
    name = "repnz__etw-providers-docs__Win10-18990_Microsoft-Windows-Ntfs.xml"
    text = _corpus_text(name)
    path = tmp_path / name
    client.initialize(tmp_path)
    uri = client.open(path, text)
    published = client.diagnostics(uri)
    assert _codes(published) == [("ETW004", 46)]
    # Completion still offers the schema's and Windows' names there.
    at = position(text, 'level="', 7)
    items = client.request("textDocument/completion", {**_doc(uri), "position": at})["items"]
    assert "win:Informational" in [i["label"] for i in items]
    assert client.request("textDocument/hover", {**_doc(uri), "position": at}) is None
    assert client.close() == 0


def _non_ascii_manifest() -> str:
    return EDITOR.read_text(encoding="utf-8").replace(
        'name="Grüße 😀" level="win:Warning"', 'name="Grüße 😀" level="win:Warnin"'
    )


@pytest.mark.parametrize("encoding", ["utf-16", "utf-8", "utf-32"])
def test_positions_in_the_negotiated_encoding(
    client: Client, tmp_path: Path, encoding: str
) -> None:
    """Non-ASCII text before a diagnostic on its line: the character offsets sent and
    received are counted in the code units the client and server agreed on."""
    offered = [] if encoding == "utf-16" else [encoding, "utf-16"]
    caps = client.initialize(tmp_path, {"general": {"positionEncodings": offered}})
    assert caps["capabilities"]["positionEncoding"] == encoding
    text = _non_ascii_manifest()
    uri = client.open(tmp_path / "editor.man", text)
    problem = next(d for d in client.diagnostics(uri)["diagnostics"] if d["code"] == "ETW401")
    assert problem["range"]["start"] == position(text, 'level="win:Warnin"', 0, encoding)
    assert problem["range"]["end"] == position(text, 'level="win:Warnin"', 18, encoding)
    # A hover and an incremental edit placed in the same units.
    at = position(text, 'keywords="Disk" channel="app"', 11, encoding)
    shown = client.request("textDocument/hover", {**_doc(uri), "position": at})
    assert "mask 0x2 (bit 1)" in shown["contents"]["value"]
    assert shown["range"]["start"] == position(text, 'keywords="Disk" channel="app"', 10, encoding)
    fix = {
        "range": {
            "start": position(text, 'level="win:Warnin"', 17, encoding),
            "end": position(text, 'level="win:Warnin"', 17, encoding),
        },
        "text": "g",
    }
    client.change(uri, 2, [fix])
    assert "ETW401" not in [c for c, _ in _codes(client.diagnostics(uri, 2))]
    assert client.close() == 0


@pytest.mark.parametrize(
    ("name", "text", "before", "expected"),
    [
        ("a.man", "anything", False, True),
        ("messages.MC", "MessageId=1", False, True),
        ("a.txt", "<instrumentationManifest/>", False, False),
        ("a.xml", '<instrumentationManifest><x a="<"/>', False, True),  # broken later
        ("a.XML", "<assembly><instrumentation/></assembly>", False, True),
        ("a.manifest", "<assembly><dependency/></assembly>", True, False),
        ("a.xml", "<assembly><depend", True, True),  # cannot tell yet: as before
        ("a.xml", "", True, True),
        ("a.xml", "<project/>", True, False),
    ],
)
def test_is_manifest(name: str, text: str, before: bool, expected: bool) -> None:
    assert is_manifest(name, text, before) is expected


def test_a_message_text_file_gets_lint_s_diagnostics(client: Client, tmp_path: Path) -> None:
    """A real .mc file (UTF-16 on disk, as the editor shows it: decoded), then an edit
    with non-ASCII text before a misspelt keyword: lint's codes at lint's places, and
    no manifest answers."""
    require_shared()
    golden = GOLDEN / "mc" / "ejsiron__HyperVive" / "LogMessages.mc"
    raw = golden.read_bytes()
    text = raw.decode("utf-16" if raw[:2] == b"\xff\xfe" else "utf-8-sig")
    client.initialize(tmp_path)
    uri = client.open(tmp_path / "LogMessages.mc", text, language="plaintext")
    assert _codes(client.diagnostics(uri)) == _lint(golden)
    edited = "; Grüße 😀\n" + text.replace("MessageIdTypedef", "MesageIdTypedef", 1)
    client.change(uri, 2, [{"text": edited}])
    published = client.diagnostics(uri, 2)
    (problem,) = [d for d in published["diagnostics"] if d["code"] == "ETW902"]
    assert problem["range"]["start"] == position(edited, "MesageIdTypedef")
    assert "did you mean MessageIdTypedef?" in problem["message"]
    at = position(edited, "MesageIdTypedef", 3)
    assert client.request("textDocument/hover", {**_doc(uri), "position": at}) is None
    assert client.request("textDocument/completion", {**_doc(uri), "position": at}) is None
    assert client.close() == 0


def test_which_documents_are_checked(client: Client, tmp_path: Path) -> None:
    client.initialize(tmp_path)
    other = client.open(tmp_path / "build.xml", '<project name="x"><target/></project>\n')
    config = client.open(tmp_path / "notes.txt", "<instrumentationManifest")
    manifest = client.open(tmp_path / "editor.xml", EDITOR.read_text(encoding="utf-8"))
    assert {c for c, _ in _codes(client.diagnostics(manifest))} == {"ETW480", "ETW482"}
    # The others were never checked: their first diagnostics never come, and requests
    # on them answer nothing.
    for uri in (other, config):
        assert client.request("textDocument/documentSymbol", _doc(uri)) is None
    assert not [m for m in client.seen if m.get("params", {}).get("uri") in (other, config)]
    assert client.close() == 0


def test_the_project_s_settings_apply(client: Client, tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.etwmc.lint]\nignore = ["ETW48"]\n', encoding="utf-8"
    )
    client.initialize(tmp_path)
    uri = client.open(tmp_path / "editor.man", EDITOR.read_text(encoding="utf-8"))
    assert _codes(client.diagnostics(uri)) == []
    assert client.close() == 0


def test_changes_are_checked_after_a_pause(client: Client, tmp_path: Path) -> None:
    """Twenty quick edits are checked once or twice, not twenty times, and the last
    text is the one the final diagnostics are for."""
    client.initialize(tmp_path)
    text = EDITOR.read_text(encoding="utf-8")
    uri = client.open(tmp_path / "editor.man", text)
    client.diagnostics(uri)
    for version in range(2, 22):
        text = text.replace("<!-- The language", "<!-- The language.", 1)
        client.change(uri, version, [{"text": text}])
    text = text.replace('mask="0x8"', 'mask="0x3"')  # two bits: an error
    client.change(uri, 22, [{"text": text}])
    final = client.diagnostics(uri, 22)
    assert "ETW201" in [c for c, _ in _codes(final)]
    earlier = [m for m in client.seen if m.get("method") == "textDocument/publishDiagnostics"]
    assert len(earlier) <= 3
    assert client.close() == 0


def test_exit_without_shutdown_is_a_failure(client: Client, tmp_path: Path) -> None:
    client.initialize(tmp_path)
    client.notify("exit", None)
    assert client.proc.wait(30) == 1


def test_without_the_extra_the_command_says_what_to_install(tmp_path: Path) -> None:
    probe = (
        "import sys\n"
        "sys.modules['pygls'] = None\n"
        "from etwmc.cli import main\n"
        "sys.exit(main(['lsp']))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path, timeout=60
    )
    assert done.returncode == 2
    assert "pip install 'etwmc[lsp]'" in done.stderr and "Traceback" not in done.stderr


def test_a_document_larger_than_the_compiler_reads_gets_no_answers() -> None:
    """Lint refuses such a file (ETW003) without reading it; the server answers no
    request on it either, so no reading of it is ever made."""
    from etwmc.lsp.server import Editor, _Document
    from etwmc.parse import MAX_BYTES

    editor = Editor()
    small = _Document("file:///m/small.man", "<instrumentationManifest/>", 1)
    huge = _Document("file:///m/huge.man", "<" + " " * MAX_BYTES, 1)
    for doc in (small, huge):
        doc.manifest = True
        editor.docs[doc.uri] = doc
    assert editor._open(small.uri) is small
    assert editor._open(huge.uri) is None
    editor.worker.shutdown()

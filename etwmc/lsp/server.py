"""The language server: the protocol (pygls), the open documents, and when to check them.

* Documents: ``.man`` files, and ``.xml``/``.manifest`` files whose root element is an
  instrumentation manifest (:func:`is_manifest`); ``.mc`` message text files, for
  diagnostics only.  Others are left alone.
* The text is kept here, with lines counted as the protocol counts them
  (:mod:`etwmc.lsp.text`), and positions are converted in the encoding agreed at
  initialisation (UTF-16 unless the client offers UTF-8 or UTF-32 first).
* Checking: a document is checked when opened or saved, and a quarter of a second after
  the last change (each keystroke restarts the wait).  Checks run one at a time on a
  worker thread, so requests are answered meanwhile; a change that arrives during a
  check is checked after it.  Diagnostics are published for the current text, those
  of an older check moved with their lines (:class:`etwmc.lsp.analysis.LineMap`).
* Requests read the last well-formed version's model (:class:`etwmc.lsp.analysis.View`).
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import PurePath
from typing import Any, BinaryIO

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from .. import __version__
from ..parse import MAX_BYTES
from . import protocol as convert
from .actions import code_actions
from .analysis import Analysis, LineMap, Problem, View, analyse, settings_for
from .completion import complete
from .hover import hover
from .navigate import RenameRefused, definition, prepare_rename, references, rename
from .outline import Outline, outline
from .scan import scan
from .text import Source, apply_change

DEBOUNCE = 0.25  # seconds of quiet after a change before it is checked
_SNIFF = 65536  # characters read for the root element of an .xml or .manifest file


class _Document:
    """An open document: its text, and what has been found in it."""

    def __init__(self, uri: str, text: str, version: int | None) -> None:
        self.uri = uri
        self.path = to_fs_path(uri) or uri
        self.text = text
        self.version = version
        self.source = Source(text)
        self.edits = 0  # changes applied: what the caches below are keyed on
        self.manifest: bool = False
        self.analysis: Analysis | None = None  # the latest check
        self.last_good: Analysis | None = None  # the latest well-formed check
        self.timer: asyncio.TimerHandle | None = None
        self.running = False  # a check of this document is on the worker
        self.dirty = False  # the text changed while it was
        self._view: tuple[tuple[int, int], View] | None = None
        self._outline: tuple[int, list[Outline]] | None = None

    def view(self) -> View:
        key = (id(self.last_good), self.edits)
        if self._view is None or self._view[0] != key:
            self._view = (key, View.of(self.source, self.last_good))
        return self._view[1]

    def outline(self) -> list[Outline]:
        if self._outline is None or self._outline[0] != self.edits:
            self._outline = (self.edits, outline(self.source, scan(self.text)))
        return self._outline[1]


def is_manifest(path: str, text: str, before: bool) -> bool:
    """Whether to check a document: a ``.man`` or ``.mc`` (message text) file always; an
    ``.xml`` or ``.manifest``
    file when its root is ``<instrumentationManifest>``, or an ``<assembly>`` holding
    ``<instrumentation>``, however broken the rest is; when the root cannot be read
    yet, as before."""
    suffix = PurePath(path).suffix.lower()
    if suffix in (".man", ".mc"):
        return True
    if suffix not in (".xml", ".manifest"):
        return False
    roots = scan(text[:_SNIFF]).roots
    if not roots:
        return before
    root = roots[0]
    if root.local == "instrumentationManifest":
        return True
    if root.local == "assembly" and any(c.local == "instrumentation" for c in root.children):
        return True
    return before if root.local == "assembly" and not root.closed else False


class Editor:
    """One server and the documents its client has open."""

    def __init__(self, debounce: float = DEBOUNCE) -> None:
        self.debounce = debounce
        self.ls = LanguageServer(
            "etwmc", __version__, text_document_sync_kind=lsp.TextDocumentSyncKind.Incremental
        )
        self.docs: dict[str, _Document] = {}
        # One check at a time: lxml's compiled schema is made once per thread.
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="etwmc-check")
        self.shut_down = False
        self._told: set[str] = set()
        self._register()

    # ------------------------------------------------------------------ protocol

    def _register(self) -> None:
        ls = self.ls
        features: list[tuple[str, object, Callable[..., object]]] = [
            (lsp.TEXT_DOCUMENT_DID_OPEN, None, self.did_open),
            (lsp.TEXT_DOCUMENT_DID_CHANGE, None, self.did_change),
            (lsp.TEXT_DOCUMENT_DID_SAVE, None, self.did_save),
            (lsp.TEXT_DOCUMENT_DID_CLOSE, None, self.did_close),
            (
                lsp.TEXT_DOCUMENT_COMPLETION,
                lsp.CompletionOptions(trigger_characters=["<", '"', "'", " ", ":", "."]),
                self.completion,
            ),
            (lsp.TEXT_DOCUMENT_HOVER, None, self.hover),
            (lsp.TEXT_DOCUMENT_DEFINITION, None, self.definition),
            (lsp.TEXT_DOCUMENT_REFERENCES, None, self.references),
            (lsp.TEXT_DOCUMENT_PREPARE_RENAME, None, self.prepare_rename),
            (lsp.TEXT_DOCUMENT_RENAME, None, self.rename),  # with prepareRename: see pygls
            (
                lsp.TEXT_DOCUMENT_CODE_ACTION,
                lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.QuickFix]),
                self.code_action,
            ),
            (lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL, None, self.document_symbol),
            (lsp.SHUTDOWN, None, self.shutdown),
        ]
        for name, options, handler in features:
            ls.feature(name, options)(_plain(handler))

    @property
    def encoding(self) -> str:
        found = self.ls.workspace.position_encoding
        if isinstance(found, lsp.PositionEncodingKind):
            return found.value
        return found or "utf-16"

    def units(self, doc: _Document) -> convert.Units:
        return convert.Units(doc.source, self.encoding)

    def shutdown(self, params: object = None) -> None:
        self.shut_down = True
        for doc in self.docs.values():
            if doc.timer is not None:
                doc.timer.cancel()
        self.worker.shutdown(wait=False, cancel_futures=True)

    # ----------------------------------------------------------------- documents

    def did_open(self, params: lsp.DidOpenTextDocumentParams) -> None:
        item = params.text_document
        doc = _Document(item.uri, item.text, item.version)
        self.docs[item.uri] = doc
        self._classify(doc)

    def did_change(self, params: lsp.DidChangeTextDocumentParams) -> None:
        doc = self.docs.get(params.text_document.uri)
        if doc is None:
            return
        text = doc.text
        for change in params.content_changes:
            if isinstance(change, lsp.TextDocumentContentChangePartial):
                units = convert.Units(Source(text), self.encoding)
                r = units.range_in(change.range)
                text = apply_change(text, r.start, r.end, change.text)
            else:
                text = change.text
        doc.text, doc.version, doc.source = text, params.text_document.version, Source(text)
        doc.edits += 1
        self._classify(doc, self.debounce)

    def did_save(self, params: lsp.DidSaveTextDocumentParams) -> None:
        doc = self.docs.get(params.text_document.uri)
        if doc is not None:
            self._classify(doc)  # the project's configuration may have changed too

    def did_close(self, params: lsp.DidCloseTextDocumentParams) -> None:
        doc = self.docs.pop(params.text_document.uri, None)
        if doc is None:
            return
        if doc.timer is not None:
            doc.timer.cancel()
        if doc.analysis is not None:
            self._send(lsp.PublishDiagnosticsParams(uri=doc.uri, diagnostics=[]))

    def _classify(self, doc: _Document, delay: float = 0.0) -> None:
        was = doc.manifest
        doc.manifest = is_manifest(doc.path, doc.text, was)
        if doc.manifest:
            self._schedule(doc, delay)
        elif was and doc.analysis is not None:
            doc.analysis = doc.last_good = None
            self._send(lsp.PublishDiagnosticsParams(uri=doc.uri, diagnostics=[]))

    # ------------------------------------------------------------------ checking

    def _schedule(self, doc: _Document, delay: float) -> None:
        if doc.timer is not None:
            doc.timer.cancel()
        doc.timer = asyncio.get_running_loop().call_later(delay, self._start, doc.uri)

    def _start(self, uri: str) -> None:
        doc = self.docs.get(uri)
        if doc is None or self.shut_down:
            return
        doc.timer = None
        if doc.running:
            doc.dirty = True
            return
        doc.running = True
        job = self.worker.submit(_check, doc.path, doc.text, doc.version, doc.last_good)
        loop = asyncio.get_running_loop()

        def done(f: Future[tuple[Analysis, str | None]]) -> None:
            if not loop.is_closed():  # the client may have said exit meanwhile
                loop.call_soon_threadsafe(self._finished, uri, f)

        job.add_done_callback(done)

    def _finished(self, uri: str, job: Future[tuple[Analysis, str | None]]) -> None:
        doc = self.docs.get(uri)
        if doc is None or job.cancelled():
            return
        doc.running = False
        try:
            analysis, problem = job.result()
        except Exception as e:  # noqa: BLE001 - a bug must not stop the server
            self._log(f"etwmc: internal error while checking {doc.path}: {type(e).__name__}: {e}")
        else:
            doc.analysis = analysis
            if analysis.well_formed:
                doc.last_good = analysis
                self.worker.submit(_warm, analysis, lambda: self._idle(doc, analysis))
            self._publish(doc)
            if problem is not None and problem not in self._told:
                self._told.add(problem)
                self.ls.window_show_message(
                    lsp.ShowMessageParams(lsp.MessageType.Warning, f"etwmc: {problem}")
                )
        if doc.dirty and doc.timer is None:
            doc.dirty = False
            self._schedule(doc, 0.0)

    @staticmethod
    def _idle(doc: _Document, analysis: Analysis) -> bool:
        """Whether ``analysis`` is of the text as it stands, with no check to come: read
        on the worker, where a stale answer costs only an index made late or twice."""
        return doc.version == analysis.version and doc.timer is None and not doc.dirty

    def _publish(self, doc: _Document) -> None:
        a = doc.analysis
        if a is None:
            return
        lines = LineMap(a.source, doc.source)
        units = self.units(doc)
        found = []
        for p in a.problems:
            moved = lines.range(p.range)
            if moved is not None:
                found.append(convert.diagnostic(units, Problem(moved, p.diagnostic)))
        params = lsp.PublishDiagnosticsParams(uri=doc.uri, version=doc.version, diagnostics=found)
        self._send(params)

    def _send(self, params: lsp.PublishDiagnosticsParams) -> None:
        self.ls.text_document_publish_diagnostics(params)

    def _log(self, message: str) -> None:
        self.ls.window_log_message(lsp.LogMessageParams(lsp.MessageType.Error, message))

    # ------------------------------------------------------------------ requests

    def _open(self, uri: str) -> _Document | None:
        """The document a request is about, when it is a manifest the compiler would
        read at all (a larger one gets only lint's ETW003, and no answers)."""
        doc = self.docs.get(uri)
        if doc is None or not doc.manifest or len(doc.text) > MAX_BYTES:
            return None
        if PurePath(doc.path).suffix.lower() == ".mc":
            return None  # a message text file gets diagnostics only
        return doc

    def completion(self, params: lsp.CompletionParams) -> lsp.CompletionList | None:
        doc = self._open(params.text_document.uri)
        if doc is None:
            return None
        units = self.units(doc)
        items = complete(doc.view(), units.offset(params.position), snippets=self._snippets())
        return lsp.CompletionList(
            is_incomplete=False, items=[convert.completion(units, i) for i in items]
        )

    def _snippets(self) -> bool:
        caps = self.ls.client_capabilities.text_document
        completion = caps.completion if caps is not None else None
        item = completion.completion_item if completion is not None else None
        return bool(item is not None and item.snippet_support)

    def hover(self, params: lsp.HoverParams) -> lsp.Hover | None:
        doc = self._open(params.text_document.uri)
        if doc is None:
            return None
        units = self.units(doc)
        found = hover(doc.view(), units.offset(params.position))
        if found is None:
            return None
        text, r = found
        contents = lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=text)
        return lsp.Hover(contents=contents, range=units.range(r))

    def definition(self, params: lsp.DefinitionParams) -> list[lsp.Location] | None:
        doc = self._open(params.text_document.uri)
        if doc is None:
            return None
        units = self.units(doc)
        found = definition(doc.view(), units.offset(params.position))
        return [lsp.Location(doc.uri, units.range(r)) for r in found] or None

    def references(self, params: lsp.ReferenceParams) -> list[lsp.Location] | None:
        doc = self._open(params.text_document.uri)
        if doc is None:
            return None
        units = self.units(doc)
        found = references(
            doc.view(), units.offset(params.position), params.context.include_declaration
        )
        return [lsp.Location(doc.uri, units.range(r)) for r in found] or None

    def prepare_rename(self, params: lsp.PrepareRenameParams) -> lsp.PrepareRenameResult | None:
        doc = self._open(params.text_document.uri)
        if doc is None:
            return None
        units = self.units(doc)
        found = prepare_rename(doc.view(), units.offset(params.position))
        if found is None:
            return None
        r, name = found
        return lsp.PrepareRenamePlaceholder(range=units.range(r), placeholder=name)

    def rename(self, params: lsp.RenameParams) -> lsp.WorkspaceEdit | None:
        doc = self._open(params.text_document.uri)
        if doc is None:
            return None
        units = self.units(doc)
        try:
            edits = rename(doc.view(), units.offset(params.position), params.new_name)
        except RenameRefused as e:
            raise JsonRpcException(str(e), lsp.LSPErrorCodes.RequestFailed) from None
        return lsp.WorkspaceEdit(changes={doc.uri: convert.text_edits(units, edits)})

    def code_action(self, params: lsp.CodeActionParams) -> list[lsp.CodeAction] | None:
        doc = self._open(params.text_document.uri)
        if doc is None:
            return None
        units = self.units(doc)
        found = code_actions(doc.view(), units.range_in(params.range))
        return [convert.code_action(units, doc.uri, a) for a in found] or None

    def document_symbol(self, params: lsp.DocumentSymbolParams) -> list[lsp.DocumentSymbol] | None:
        doc = self._open(params.text_document.uri)
        if doc is None:
            return None
        units = self.units(doc)
        return [convert.document_symbol(units, o) for o in doc.outline()]


def _plain(handler: Callable[[Any], object]) -> Callable[[Any], object]:
    """A bound method as a plain function: pygls marks the functions it registers, and
    passes the server first to one whose first parameter could take it (hence Any)."""

    def call(params: Any) -> object:
        return handler(params)

    return call


def _check(
    path: str, text: str, version: int | None, last_good: Analysis | None
) -> tuple[Analysis, str | None]:
    """On the worker: the document's settings, and the check."""
    settings, problem = settings_for(path)
    return analyse(text, path, version, settings, last_good), problem


def _warm(analysis: Analysis, idle: Callable[[], bool]) -> None:
    """On the worker, after publishing: the index the next request will read, made
    unless more typing has come (its check must not wait behind it; a request that
    needs the index meanwhile makes it)."""
    if idle():
        analysis.index  # noqa: B018 - made and kept by the property


def serve(
    stdin: BinaryIO | None = None, stdout: BinaryIO | None = None, debounce: float = DEBOUNCE
) -> int:
    """Serve one client over ``stdin``/``stdout`` (the process's by default) until it
    says exit; 0 when it said shutdown first, as the protocol asks, else 1."""
    editor = Editor(debounce)
    if stdout is None:
        stdout = _protocol_stream()
    editor.ls.start_io(stdin, stdout)
    editor.worker.shutdown(wait=False, cancel_futures=True)
    return 0 if editor.shut_down else 1


def _protocol_stream() -> BinaryIO:
    """Standard output for the protocol alone: a duplicate of it, which the server
    closes at exit, while file descriptor 1 is pointed at standard error, so nothing
    else written to standard output can break a message."""
    sys.stdout.flush()
    out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    return out

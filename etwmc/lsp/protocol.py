"""The package's results as the protocol's types (lsprotocol), and positions in the
client's code units.

Everything computed in :mod:`etwmc.lsp` counts characters in code points; the client
counts in the code units of the position encoding agreed at initialisation.  The
:class:`Units` of a document converts both ways, on that document's current text.
"""

from __future__ import annotations

from lsprotocol import types as lsp

from ..codes import Severity
from .actions import Action
from .analysis import Problem
from .completion import Item
from .navigate import Edit
from .outline import Outline
from .text import Pos, Range, Source, from_units, to_units

_SEVERITY = {
    Severity.ERROR: lsp.DiagnosticSeverity.Error,
    Severity.WARNING: lsp.DiagnosticSeverity.Warning,
    Severity.NOTE: lsp.DiagnosticSeverity.Information,
}
_COMPLETION_KIND = {
    "element": lsp.CompletionItemKind.Class,
    "attribute": lsp.CompletionItemKind.Property,
    "value": lsp.CompletionItemKind.EnumMember,
    "reference": lsp.CompletionItemKind.Reference,
    "type": lsp.CompletionItemKind.TypeParameter,
    "number": lsp.CompletionItemKind.Value,
}
_SYMBOL_KIND = {
    "provider": lsp.SymbolKind.Module,
    "channel": lsp.SymbolKind.Interface,
    "level": lsp.SymbolKind.Constant,
    "task": lsp.SymbolKind.Namespace,
    "opcode": lsp.SymbolKind.Constant,
    "keyword": lsp.SymbolKind.Key,
    "map": lsp.SymbolKind.Enum,
    "template": lsp.SymbolKind.Struct,
    "event": lsp.SymbolKind.Event,
    "filter": lsp.SymbolKind.Field,
}


class Units:
    """Positions of one document's current text, in the client's code units."""

    __slots__ = ("source", "encoding")

    def __init__(self, source: Source, encoding: str) -> None:
        self.source = source
        self.encoding = encoding

    def pos(self, p: lsp.Position) -> Pos:
        line = max(0, p.line)
        return Pos(line, from_units(self.source.line(line), max(0, p.character), self.encoding))

    def offset(self, p: lsp.Position) -> int:
        return self.source.offset(self.pos(p))

    def range_in(self, r: lsp.Range) -> Range:
        return Range(self.pos(r.start), self.pos(r.end))

    def position(self, p: Pos) -> lsp.Position:
        return lsp.Position(p.line, to_units(self.source.line(p.line), p.char, self.encoding))

    def range(self, r: Range) -> lsp.Range:
        return lsp.Range(self.position(r.start), self.position(r.end))


def diagnostic(units: Units, p: Problem) -> lsp.Diagnostic:
    return lsp.Diagnostic(
        range=units.range(p.range),
        message=p.message,
        severity=_SEVERITY[p.severity],
        code=p.code,
        code_description=lsp.CodeDescription(href=p.href),
        source="etwmc",
    )


def completion(units: Units, item: Item) -> lsp.CompletionItem:
    return lsp.CompletionItem(
        label=item.label,
        kind=_COMPLETION_KIND[item.kind],
        detail=item.detail,
        sort_text=item.sort or None,
        filter_text=item.label,
        text_edit=lsp.TextEdit(units.range(item.replace), item.insert),
        insert_text_format=(
            lsp.InsertTextFormat.Snippet if item.snippet else lsp.InsertTextFormat.PlainText
        ),
    )


def text_edits(units: Units, edits: list[Edit] | tuple[Edit, ...]) -> list[lsp.TextEdit]:
    return [lsp.TextEdit(units.range(e.range), e.new_text) for e in edits]


def code_action(units: Units, uri: str, action: Action) -> lsp.CodeAction:
    return lsp.CodeAction(
        title=action.title,
        kind=lsp.CodeActionKind.QuickFix,
        diagnostics=[diagnostic(units, action.problem)],
        edit=lsp.WorkspaceEdit(changes={uri: text_edits(units, action.edits)}),
        is_preferred=action.preferred or None,
    )


def document_symbol(units: Units, o: Outline) -> lsp.DocumentSymbol:
    return lsp.DocumentSymbol(
        name=o.name,
        kind=_SYMBOL_KIND[o.kind],
        range=units.range(o.range),
        selection_range=units.range(o.selection),
        detail=o.detail,
        children=[document_symbol(units, c) for c in o.children] or None,
    )

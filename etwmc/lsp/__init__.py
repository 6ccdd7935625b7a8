"""``etwmc lsp``: a language server for instrumentation manifests.

The server (:mod:`.server`, the only module that speaks the protocol, through pygls)
keeps the open documents and converts positions; everything it answers is computed by
pure functions of a document's text and model, each testable without a server:

* :mod:`.text` — positions as the protocol counts lines, and code-unit conversion;
* :mod:`.scan` — a tolerant reading of the text with offsets (half-typed text too);
* :mod:`.analysis` — ``etwmc lint``'s diagnostics placed in the text, the project's
  settings, the last well-formed version and the lines edited since;
* :mod:`.index` — where each named thing is defined and referenced;
* :mod:`.completion`, :mod:`.hover`, :mod:`.navigate` (definition, references,
  rename), :mod:`.actions` (quick fixes), :mod:`.outline` (document symbols);
* :mod:`.protocol` — those results as the protocol's types.

Nothing here validates: the diagnostics are the validation pipeline's
(:mod:`etwmc.lint`), and names are resolved by lowering (:mod:`etwmc.lower`).
"""

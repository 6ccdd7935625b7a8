"""``etwmc guid NAME...``: the provider GUID EventSource and TraceLogging derive from
a name (:func:`etwmc.guid.provider_guid`).

One name prints the bare GUID (handy in scripts); several print ``GUID  NAME`` lines
in the order given.  ``--braces`` writes ``{...}``, the form a manifest's ``guid``
attribute takes.
"""

from __future__ import annotations

import argparse
import uuid

from ..guid import provider_guid
from ..inputs import UsageError
from . import EXIT_OK

DESCRIPTION = (
    "Print the provider GUID that EventSource and TraceLogging derive from a provider name "
    "(SHA-1 over a fixed namespace and the upper-cased name), which tools that enable "
    "providers by name compute."
)


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("names", nargs="+", metavar="NAME", help="provider names")
    p.add_argument(
        "--braces",
        action="store_true",
        help="write {xxxxxxxx-...}, the form a manifest's guid attribute takes",
    )


def run(args: argparse.Namespace) -> int:
    names: list[str] = list(args.names)
    for name in names:
        if not name:
            raise UsageError("a provider name cannot be empty")
        if any("\ud800" <= c <= "\udfff" for c in name):
            # Bytes the locale cannot decode: the name's UTF-16 form would be a guess.
            raise UsageError(f"the provider name {name!r} is not valid text")
    if len(names) == 1:
        print(_show(provider_guid(names[0]), args.braces))
    else:
        for name in names:
            print(f"{_show(provider_guid(name), args.braces)}  {name}")
    return EXIT_OK


def _show(guid: uuid.UUID, braces: bool) -> str:
    return f"{{{guid}}}" if braces else str(guid)

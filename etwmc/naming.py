"""Manifest names -> Python identifiers: the one naming function and its scopes.

No manifest text ever becomes code except through :func:`identifier`, which returns a
plain ASCII identifier.  The rules, in order:

1. NFKC-normalize (Python does the same to identifiers, so ``ﬁle`` and ``file`` are one
   name; normalizing first makes that collision visible here instead of at import).
2. Every character outside ``[A-Za-z0-9_]`` becomes ``_`` (mc's symbol rule), and runs
   of ``_`` produced that way collapse into one; an empty result becomes ``_``.
3. A leading digit gets a ``_`` prefix (mc's rule).
4. No name may start with ``_``: the generated module's private names all do (so a
   manifest name can never shadow one), ``_sunder_`` names are reserved by :mod:`enum`
   and ``__x`` is mangled in class bodies.  Leading underscores are stripped and, when
   a digit or nothing is left, a letter is put in front: ``N`` for module-level names,
   ``V`` for enum members and class attributes, ``f`` for parameters.
5. Python keywords and soft keywords, and names the scope reserves (names the generated
   code itself defines, ``int`` methods for enum members, ...) get a ``_`` suffix.

A :class:`Scope` hands out unique names: the first claimant (in manifest order) keeps
the name; later ones that collide (after the rules above, compared case-sensitively)
get ``_2``, ``_3``... and a warning ETW600 that names both manifest names (unless the
two manifest names are the same text, as value-map items sharing a message are).  The result
depends only on the input order, never on hashing.
"""

from __future__ import annotations

import enum
import keyword
import re
import unicodedata
from collections.abc import Iterable, Sequence

from .codes import W_COLLISION
from .diagnostics import Diagnostic, Span, diag

# As text: the re module compiles it on first use, and names that are identifiers
# already (most) never need it.
_INVALID = r"[^A-Za-z0-9_]+"

# Attributes of ``int`` and of enum members: an IntEnum/IntFlag member with one of these
# names would shadow a method the enum machinery or callers rely on.  A fixed list, not
# ``dir(int)``, so the output does not depend on the Python version that generates it.
ENUM_RESERVED = frozenset(
    {
        "as_integer_ratio",
        "bit_count",
        "bit_length",
        "conjugate",
        "denominator",
        "from_bytes",
        "imag",
        "is_integer",
        "mro",
        "name",
        "numerator",
        "real",
        "to_bytes",
        "value",
    }
)


class Kind(enum.Enum):
    """What a name is used for; decides the prefix rules of step 4."""

    GLOBAL = "global"  # module-level names and class names
    MEMBER = "member"  # enum members and namespace-class attributes
    PARAM = "param"  # function parameters (template fields)


_PREFIX = {Kind.GLOBAL: "N", Kind.MEMBER: "V", Kind.PARAM: "f"}


# Python's keywords and soft keywords (``type`` is one from 3.12; listed so the output
# does not depend on the interpreter that generates it), as one set: one lookup per try.
_KEYWORDS = frozenset(keyword.kwlist) | frozenset(keyword.softkwlist) | {"type"}


def sanitize(text: str) -> str:
    """Steps 1-3: any text -> an ASCII identifier-shaped string (maybe a keyword)."""
    if text.isascii():
        # NFKC leaves ASCII as it is, and an ASCII identifier has nothing to replace:
        # most manifest names take this path.
        s = text if text.isidentifier() else re.sub(_INVALID, "_", text)
    else:
        s = re.sub(_INVALID, "_", unicodedata.normalize("NFKC", text))
    if not s:
        return "_"
    if s[0].isdigit():
        s = "_" + s
    return s


def identifier(text: str, kind: Kind = Kind.GLOBAL, reserved: Iterable[str] = ()) -> str:
    """The Python identifier for a manifest name (steps 1-5, without collision handling)."""
    return _identifier(text, kind, _taken(kind, reserved))


def _taken(kind: Kind, reserved: Iterable[str]) -> frozenset[str]:
    """The names step 5 avoids besides keywords: ``reserved``, and for enum members and
    class attributes also :data:`ENUM_RESERVED`."""
    names = reserved if isinstance(reserved, frozenset) else frozenset(reserved)
    return names | ENUM_RESERVED if kind is Kind.MEMBER else names


def _identifier(text: str, kind: Kind, taken: frozenset[str]) -> str:
    s = sanitize(text)
    if s[0] == "_":
        rest = s.lstrip("_")
        if not rest or rest[0].isdigit():
            rest = _PREFIX[kind] + rest
        s = rest
    while s in _KEYWORDS or s in taken:
        s += "_"
    if not (s.isascii() and s.isidentifier()):  # cannot happen; checked, not assumed
        raise ValueError(f"naming produced a non-identifier {s!r}")
    return s


class Scope:
    """A namespace in the generated module: unique identifiers handed out in order."""

    def __init__(
        self,
        what: str,
        kind: Kind = Kind.GLOBAL,
        reserved: Iterable[str] = (),
        *,
        file: str = "<unknown>",
    ) -> None:
        self.what = what
        self.kind = kind
        self.reserved = frozenset(reserved)
        self._taken = _taken(kind, self.reserved)  # computed once, not per claim
        self.file = file
        self._owner: dict[str, str] = {}  # identifier -> the manifest name that got it
        self.diagnostics: list[Diagnostic] = []

    def claim(self, text: str, span: Span | None = None) -> str:
        """A unique identifier for ``text``; reports a collision with an earlier claim."""
        if (
            text.isascii()
            and text.isidentifier()
            and text[0] != "_"
            and text not in _KEYWORDS
            and text not in self._taken
        ):
            base = text  # what the rules make of it, without the calls: most names
        else:
            base = _identifier(text, self.kind, self._taken)
        name = base
        n = 1
        while name in self._owner or name in self.reserved:
            n += 1
            name = f"{base}_{n}"
        # The same manifest text twice (value-map items that share a message) is no
        # surprise to anyone: numbered silently.  Different texts that meet are.
        if name != base and self._owner.get(base) != text:
            first = self._owner.get(base, base)
            self.diagnostics.append(
                diag(
                    W_COLLISION,
                    span or Span(self.file),
                    f"{self.what} {text!r} and {first!r} both become the Python name "
                    f"{base!r}; the later one is named {name!r}",
                    hint="give one of them a distinct name or symbol in the manifest",
                )
            )
        self._owner[name] = text
        return name

    def claim_derived(self, prefixes: Sequence[str], name: str) -> list[str]:
        """:meth:`claim` of ``prefix + name`` for each of ``prefixes`` in order, for a
        ``name`` that :func:`identifier` made and prefixes of ASCII letters and ``_``
        that start with a letter (the generated module's ``write_<event>``...): such a
        text is an identifier that steps 1-4 keep, so only the scope's own names need
        checking (an event's names are claimed in one call, for every event of a
        manifest)."""
        owner = self._owner
        taken = self._taken
        names: list[str] = []
        for prefix in prefixes:
            text = prefix + name
            if text in owner or text in taken:
                text = self.claim(text)
            else:
                owner[text] = text
            names.append(text)
        return names

    def __contains__(self, name: str) -> bool:
        return name in self._owner or name in self.reserved

"""Every kind of output etwmc makes, in one registry that ``compile``, ``mc``, ``lint``
and the build plugins iterate.

An :class:`OutputKind` says

* ``wanted``: when it is produced, from the options (:class:`etwmc.options.CompileOptions`);
* ``check``: what it reports without being made (``etwmc lint`` runs the checks of the
  default outputs, so that lint and a default compile fail and pass together);
* ``render``: its files as bytes, with every diagnostic its check gives and whatever
  making them found;
* ``place``: which output folder a command puts it in (``compile -o`` puts them all in
  one; ``mc`` puts the header in ``-h``, the resources in ``-r``, the baseline in ``-s``).

Adding an output kind is one step: define it below and add it to its input's tuple,
:data:`MANIFEST_OUTPUTS` or :data:`MESSAGE_TEXT_OUTPUTS` (classic message text files,
``.mc``: a header, an ``.rc``, one message table per language, and mc's ``.dbg``).

The outputs' names are checked here too: a base name or module name must be a
portable file name (:func:`names_problem`, ETW612).  The generators are imported by
the kinds that render with them, not here: ``etwmc lint`` imports this module for the
checks, and the C header, WEVT_TEMPLATE writer and PE writer together are a sixth of
its run.
"""

from __future__ import annotations

import keyword
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, Literal, TypeAlias, TypeVar

from . import __version__
from .codes import E_INTERNAL_RENDER, W_LONG_MESSAGE
from .diagnostics import Diagnostic, Span, diag, has_errors
from .model import Manifest
from .msgids import MessageIds, message_ids, with_customer_bit
from .options import CompileOptions, TextEncoding
from .python import check as python_check
from .python import module_name
from .wevt import binary_outputs, output_diagnostics
from .wevt.rc import template_file

Place: TypeAlias = Literal["module", "header", "resources", "baseline", "debug"]
B = TypeVar("B")  # what a kind renders from: one input's model, options and names


@dataclass(frozen=True, slots=True)
class Rendered:
    """A kind's files (name -> bytes; empty when it has errors) and its diagnostics."""

    files: dict[str, bytes]
    diagnostics: list[Diagnostic]


@dataclass(frozen=True, slots=True)
class OutputKind(Generic[B]):
    """One kind of output (the module docstring)."""

    name: str
    place: Place
    summary: str
    wanted: Callable[[CompileOptions], bool]
    render: Callable[[B], Rendered]
    check: Callable[[B], list[Diagnostic]] | None = None


# --------------------------------------------------------------------------- names

# Device names Windows reserves in every folder, with any extension and in any case
# (Microsoft's "Naming Files, Paths, and Namespaces"; superscript digits count too).
_DEVICES = frozenset(
    {"con", "prn", "aux", "nul", "conin$", "conout$"}
    | {f"{dev}{n}" for dev in ("com", "lpt") for n in "0123456789\u00b9\u00b2\u00b3"}
)
_PORTABLE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.")


def default_base(path: str | Path) -> str:
    """The outputs' base name for a manifest: its file name without the last extension
    (``x.man`` -> ``x``), as mc names them."""
    return Path(path).stem or "manifest"


def reserved_device(name: str) -> bool:
    """True for a Windows device name such as ``CON``, ``nul.txt`` or ``COM1.tar.gz``."""
    return name.split(".", 1)[0].rstrip(" ").casefold() in _DEVICES


def file_name_problem(name: str) -> str | None:
    """Why ``name`` cannot name outputs, or None.  It must be a plain file name of the
    portable set (ASCII letters, digits, ``_``, ``-``, ``.``) that does not start with
    ``-`` or ``.``, so that no tool reads it as an option or a hidden file and no shell
    a build passes it through (binutils' windres runs the C preprocessor through one)
    finds syntax in it; and one Windows can create: no trailing dot, no device name."""
    if not name or name in (".", ".."):
        return "it is not a file name"
    if "/" in name or "\\" in name:
        return "it names a folder"
    bad = next((c for c in name if c not in _PORTABLE), None)
    if bad is not None:
        return (
            f"it holds {bad!r}; output names take ASCII letters, digits, '_', '-' and '.' "
            "only, so that no build tool or shell misreads them"
        )
    if name[0] in "-.":
        return f"it starts with {name[0]!r}, which tools read as an option or a hidden file"
    if name[-1] == ".":
        return "it ends with a dot, which Windows drops"
    if reserved_device(name):
        return f"{name.split('.', 1)[0]!r} is a device name reserved by Windows"
    return None


def names_problem(
    base: str, module: str | None, *, derived: bool = False
) -> tuple[str, str] | None:
    """(message, hint) when the output base name or the module name cannot be used
    (ETW612).  The base names every output and is written into the .rc; the module
    name must also be a Python identifier that is not a keyword, to be importable."""
    why = file_name_problem(base)
    if why:
        origin = " (from the manifest's file name)" if derived else ""
        return (
            f"the output base name {base!r}{origin} cannot be used: {why}",
            "choose another with -z BASE",
        )
    if module is not None:
        if not (module.isidentifier() and module.isascii()) or keyword.iskeyword(module):
            return (
                f"the module name {module!r} is not an importable Python module name",
                "use an ASCII identifier that is not a Python keyword",
            )
        why = file_name_problem(f"{module}.py")
        if why:
            return f"the module name {module!r} cannot be used: {why}", "choose another"
    return None


# --------------------------------------------------------------------------- manifests


class ManifestBuild:
    """One manifest's outputs in the making: the model, the options and the names the
    kinds read, and what several kinds share (message ids, the binary outputs and their
    checks), each made once."""

    def __init__(
        self,
        manifest: Manifest,
        options: CompileOptions,
        *,
        path: str,
        base: str,
        module: str | None = None,
    ) -> None:
        self.manifest = manifest
        self.options = options
        self.path = path  # the manifest as diagnostics name it
        self.base = base
        self.module = module
        self._ids: MessageIds | None = None
        self._binary_checks: list[Diagnostic] | None = None
        self._binaries: dict[str, bytes] | None = None

    def ids(self) -> MessageIds:
        """The message ids of the binaries and the header (with mc's ``-c`` bit)."""
        if self._ids is None:
            ids = message_ids(self.manifest)
            if self.options.customer_bit:
                ids = with_customer_bit(self.manifest, ids)
            self._ids = ids
        return self._ids

    def binary_checks(self) -> list[Diagnostic]:
        if self._binary_checks is None:
            self._binary_checks = list(output_diagnostics(self.manifest))
        return self._binary_checks

    def binaries(self, *, prefixed: bool | None = None) -> dict[str, bytes]:
        """WEVT_TEMPLATE, message tables and .rc, by file name (call after the checks)."""
        o = self.options
        if prefixed is not None and prefixed != o.prefixed_tables:
            return binary_outputs(
                self.manifest, self.base, version=o.version, prefixed=prefixed,
                legacy_ids=o.legacy_template_ids, ids=self.ids(),
            )  # fmt: skip
        if self._binaries is None:
            self._binaries = binary_outputs(
                self.manifest, self.base, version=o.version, prefixed=o.prefixed_tables,
                legacy_ids=o.legacy_template_ids, ids=self.ids(),
            )  # fmt: skip
        return self._binaries


def encode_text(text: str | bytes, encoding: TextEncoding) -> bytes:
    """A header's or .rc's text in mc's ``-cp`` encoding (UTF-8 and UTF-16 with a BOM)."""
    data = text if isinstance(text, bytes) else text.encode("ascii")
    if encoding == "utf-8":
        return b"\xef\xbb\xbf" + data
    if encoding == "utf-16":
        return b"\xff\xfe" + data.decode("utf-8").encode("utf-16-le")
    return data


def _python_check(build: ManifestBuild) -> list[Diagnostic]:
    return python_check(build.manifest)


def _python_module(build: ManifestBuild) -> Rendered:
    from .python import generate

    text, diags = generate(build.manifest, source=Path(build.path).name, version=__version__)
    if has_errors(diags):
        return Rendered({}, diags)
    if build.options.verify:
        # Only --verify parses the module (it imports ast: start-up cost of a compile).
        from .python.verify import safety_problem

        problem = safety_problem(text)
        if problem:
            return Rendered({}, [*diags, diag(E_INTERNAL_RENDER, Span(build.path), problem)])
    name = f"{build.module or module_name(build.base)}.py"
    return Rendered({name: text.encode("ascii")}, diags)


def _c_header(build: ManifestBuild) -> Rendered:
    from .header import HeaderOptions, build_header

    o = build.options
    options = HeaderOptions(
        kernel=o.c_header == "km",
        write_prefix=o.write_prefix,
        strip_prefix=o.strip_prefix,
        customer_bit=o.customer_bit,
    )
    header = build_header(build.manifest, options, ids=build.ids())
    if not header.ok:
        return Rendered({}, header.diagnostics)
    name = f"{build.base}.{o.header_extension}"
    return Rendered({name: encode_text(header.text, o.text_encoding)}, header.diagnostics)


def _binary_check(build: ManifestBuild) -> list[Diagnostic]:
    return build.binary_checks()


def _binary(
    pick: Callable[[ManifestBuild, dict[str, bytes]], dict[str, bytes]],
) -> Callable[[ManifestBuild], Rendered]:
    """A binary kind's render: the shared checks, then its files from the outputs."""

    def render(build: ManifestBuild) -> Rendered:
        checks = build.binary_checks()
        if has_errors(checks):
            return Rendered({}, checks)
        return Rendered(pick(build, build.binaries()), checks)

    return render


def _template(build: ManifestBuild, files: Mapping[str, bytes]) -> dict[str, bytes]:
    name = template_file(build.base)
    return {name: files[name]}


def _tables(build: ManifestBuild, files: Mapping[str, bytes]) -> dict[str, bytes]:
    others = {template_file(build.base), f"{build.base}.rc"}
    return {n: d for n, d in files.items() if n not in others}


def _rc(build: ManifestBuild, files: Mapping[str, bytes]) -> dict[str, bytes]:
    name = f"{build.base}.rc"
    return {name: encode_text(files[name], build.options.text_encoding)}


def _baseline(build: ManifestBuild, files: Mapping[str, bytes]) -> dict[str, bytes]:
    return {f"{build.base}.BIN": files[template_file(build.base)]}


def _dll(build: ManifestBuild, files: Mapping[str, bytes]) -> dict[str, bytes]:
    from .pe import dll_name, resource_dll

    default = f"{build.base}.dll"
    name = dll_name(build.manifest, default)
    if file_name_problem(name):  # a device name such as con.dll
        name = default
    outputs = build.binaries(prefixed=True)  # the DLL reads the tables by those names
    return {name: resource_dll(build.manifest, outputs=outputs, base=build.base)}


def _table_checks(build: ManifestBuild) -> list[Diagnostic]:
    return [*build.binary_checks(), *_long_messages(build)]


def _long_messages(build: ManifestBuild) -> list[Diagnostic]:
    """mc's ``-m LENGTH``: a warning per message longer than the limit."""
    limit = build.options.max_message_length
    if limit is None:
        return []
    out: list[Diagnostic] = []
    for res in build.manifest.resources:
        for sid in sorted(build.ids().strings):
            s = res.strings.get(sid)
            if s is not None and len(s.value) > limit:
                out.append(
                    diag(
                        W_LONG_MESSAGE,
                        s.span,
                        f"string '{sid}' ({res.culture}) is {len(s.value)} characters long, "
                        f"more than the {limit} that -m allows",
                        hint="shorten the message, or raise -m",
                    )
                )
    return out


def _render_tables(build: ManifestBuild) -> Rendered:
    made = _binary(_tables)(build)
    return Rendered(made.files, [*made.diagnostics, *_long_messages(build)])


PYTHON_MODULE: OutputKind[ManifestBuild] = OutputKind(
    "python-module", "module", "the Python provider module, <module>.py",
    wanted=lambda o: o.python, render=_python_module, check=_python_check,
)  # fmt: skip
C_HEADER: OutputKind[ManifestBuild] = OutputKind(
    "c-header", "header", "mc's C/C++ header, <base>.h (-um or -km)",
    wanted=lambda o: o.c_header is not None, render=_c_header,
)  # fmt: skip
WEVT_TEMPLATE: OutputKind[ManifestBuild] = OutputKind(
    "wevt-template", "resources", "the WEVT_TEMPLATE blob, <base>TEMP.BIN",
    wanted=lambda o: o.binary, render=_binary(_template), check=_binary_check,
)  # fmt: skip
MESSAGE_TABLES: OutputKind[ManifestBuild] = OutputKind(
    "message-tables", "resources", "one MESSAGETABLE per culture, <base>_MSG0000n.bin",
    wanted=lambda o: o.binary, render=_render_tables, check=_table_checks,
)  # fmt: skip
RC: OutputKind[ManifestBuild] = OutputKind(
    "rc", "resources", "the resource script that links them, <base>.rc",
    wanted=lambda o: o.binary, render=_binary(_rc), check=_binary_check,
)  # fmt: skip
RESOURCE_DLL: OutputKind[ManifestBuild] = OutputKind(
    "resource-dll", "resources", "a resource-only DLL holding the blob and the tables",
    wanted=lambda o: o.resource_dll, render=_binary(_dll), check=_binary_check,
)  # fmt: skip
BASELINE: OutputKind[ManifestBuild] = OutputKind(
    "baseline", "baseline", "mc's -s baseline for later -t checks, <base>.BIN",
    wanted=lambda o: o.baseline, render=_binary(_baseline), check=_binary_check,
)  # fmt: skip

# In the order they are made (and their diagnostics found).
MANIFEST_OUTPUTS: tuple[OutputKind[ManifestBuild], ...] = (
    PYTHON_MODULE,
    C_HEADER,
    WEVT_TEMPLATE,
    MESSAGE_TABLES,
    RC,
    RESOURCE_DLL,
    BASELINE,
)

# Classic message text files (.mc): their header ("header"), .rc and one message table
# per language ("resources") and mc's -x .dbg ("debug") register here, each an
# OutputKind over that input's build.
MESSAGE_TEXT_OUTPUTS: tuple[OutputKind[Any], ...] = ()


# --------------------------------------------------------------------------- making


@dataclass(frozen=True, slots=True)
class Planned:
    """Files by place (place -> name -> bytes) and every diagnostic found."""

    files: dict[Place, dict[str, bytes]]
    diagnostics: list[Diagnostic]


def plan(build: B, kinds: tuple[OutputKind[B], ...], options: CompileOptions) -> Planned:
    """Every wanted kind of ``kinds`` made, in order (nothing is written)."""
    files: dict[Place, dict[str, bytes]] = {}
    diags: list[Diagnostic] = []
    for kind in kinds:
        if kind.wanted(options):
            made = kind.render(build)
            diags.extend(made.diagnostics)
            if made.files:
                files.setdefault(kind.place, {}).update(made.files)
    return Planned(files, diags)


def lint_checks(manifest: Manifest, options: CompileOptions | None = None) -> list[Diagnostic]:
    """What making the outputs would report, without making them: the checks of every
    kind the options (by default: a default compile's) want."""
    options = options or CompileOptions()
    build = ManifestBuild(manifest, options, path=manifest.path, base="lint")
    out: list[Diagnostic] = []
    ran: set[object] = set()
    for kind in MANIFEST_OUTPUTS:
        if kind.check is not None and kind.wanted(options) and kind.check not in ran:
            ran.add(kind.check)
            out.extend(kind.check(build))
    return out

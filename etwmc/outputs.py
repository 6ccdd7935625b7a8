"""Every kind of output etwmc makes, in one registry that ``compile``, ``mc``, ``lint``
and the build plugins iterate.

An :class:`OutputKind` says

* ``wanted``: when it is produced, from its build (the options,
  :class:`etwmc.options.CompileOptions`, and for message text files mc's switches);
* ``check``: what it reports without being made (``etwmc lint`` runs the checks of the
  default outputs, so that lint and a default compile fail and pass together);
* ``render``: its files as bytes, with every diagnostic its check gives and whatever
  making them found;
* ``place``: which output folder a command puts it in (``compile -o`` puts them all in
  one; ``mc`` puts the header in ``-h``, the resources in ``-r``, the baseline in ``-s``).

Adding an output kind is one step: define it below and add it to its input's tuple,
:data:`MANIFEST_OUTPUTS` (a manifest: :class:`ManifestBuild`) or
:data:`MESSAGE_TEXT_OUTPUTS` (a classic message text file, ``.mc``: its header, its
``.rc`` with one message table per language, and mc's ``.dbg``; :class:`TextBuild`).

The outputs' names are checked here too: a base name or module name must be a
portable file name (:func:`names_problem`, ETW612; the rule itself is
:func:`etwmc.writer.file_name_problem`).  The generators are imported by the kinds that
render with them, not here: ``etwmc lint`` imports this module for the checks, and the
C header, WEVT_TEMPLATE writer and PE writer together are a sixth of its run; and
:mod:`etwmc.mctext` only for a message text file.
"""

from __future__ import annotations

import keyword
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Generic, Literal, TypeAlias, TypeVar

from . import __version__
from .codes import E_BASE, E_INTERNAL_RENDER, W_LONG_MESSAGE
from .diagnostics import Diagnostic, Span, diag, has_errors
from .model import Manifest
from .msgids import MessageIds, message_ids, with_customer_bit
from .options import CompileOptions
from .python import check as python_check
from .python import generate, module_name
from .record import Record, replace
from .wevt import binary_outputs, output_diagnostics
from .wevt.rc import encode_text, template_file
from .writer import file_name_problem

if TYPE_CHECKING:
    from .mctext import ManifestPart, McTextOptions, MessageFile
    from .mctext import Planned as TextPlanned

Place: TypeAlias = Literal["module", "header", "resources", "baseline", "debug"]
B = TypeVar("B")  # what a kind renders from: one input's model, options and names


class Rendered(Record):
    """A kind's files (name -> bytes; empty when it has errors) and its diagnostics."""

    files: dict[str, bytes]
    diagnostics: list[Diagnostic]


class OutputKind(Record, Generic[B]):
    """One kind of output (the module docstring)."""

    name: str
    place: Place
    summary: str
    wanted: Callable[[B], bool]
    render: Callable[[B], Rendered]
    check: Callable[[B], list[Diagnostic]] | None = None


# --------------------------------------------------------------------------- names


def default_base(path: str | Path) -> str:
    """The outputs' base name for a manifest: its file name without the last extension
    (``x.man`` -> ``x``), as mc names them."""
    return Path(path).stem or "manifest"


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


def name_check(path: str, base: str, module: str | None, *, derived: bool) -> list[Diagnostic]:
    """ETW612 for ``path``'s outputs when :func:`names_problem` finds one, else nothing."""
    problem = names_problem(base, module, derived=derived)
    if problem is None:
        return []
    message, hint = problem
    return [diag(E_BASE, Span(path), message, hint=hint)]


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
        ids: MessageIds | None = None,
    ) -> None:
        self.manifest = manifest
        self.options = options
        self.path = path  # the manifest as diagnostics name it
        self.base = base
        self.module = module
        self._ids = ids  # given: mc's -W gives predefined items a winmeta.xml's texts
        self._binary_checks: list[Diagnostic] | None = None
        self._binaries: dict[str, bytes] | None = None

    def ids(self) -> MessageIds:
        """The message ids of the binaries and the header (with mc's ``-c`` bit), unless
        the build was given its own."""
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


def _text(data: str | bytes, build: ManifestBuild, *, rc: bool = False) -> bytes:
    """A header's or .rc's text in mc's ``-cp`` encoding (the manifest's are ASCII)."""
    text = data if isinstance(data, str) else data.decode("ascii")
    return encode_text(text, build.options.text_encoding, "ascii", rc=rc)


def _python_check(build: ManifestBuild) -> list[Diagnostic]:
    return python_check(build.manifest)


def _python_module(build: ManifestBuild) -> Rendered:
    version = __version__ if build.options.version_comment else None
    text, diags = generate(build.manifest, source=Path(build.path).name, version=version)
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
    from .header import HeaderOptions, build_header  # a header is asked for (start-up)

    o = build.options
    options = HeaderOptions(
        kernel=o.c_header == "km",
        logging=o.c_header != "definitions",
        write_prefix=o.write_prefix,
        strip_prefix=o.strip_prefix,
        customer_bit=o.customer_bit,
    )
    header = build_header(build.manifest, options, ids=build.ids())
    if not header.ok:
        return Rendered({}, header.diagnostics)
    name = f"{build.base}.{o.header_extension}"
    return Rendered({name: _text(header.text, build)}, header.diagnostics)


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
    return {name: _text(files[name], build, rc=True)}


BASELINE_SUMMARY = "MCGenResource.BIN"


def baseline_files(manifest: Manifest, ids: MessageIds) -> dict[str, bytes]:
    """What mc's ``-s`` writes (:mod:`etwmc.mcexe.baseline` reads it back for ``-t``):
    each provider's WEVT_TEMPLATE blob alone (with the whole manifest's message ids) as
    ``<provider name>.BIN`` (made a portable name; the provider's GUID when it cannot be
    one or two would clash), and every provider's in ``MCGenResource.BIN``."""
    from .wevt import writer  # mc's -s only (start-up of lint)

    out = {BASELINE_SUMMARY: writer.build(manifest, ids=ids)}
    taken = {BASELINE_SUMMARY.casefold()}
    for p in manifest.providers:
        name = "".join(c if c.isascii() and (c.isalnum() or c in "_.-") else "_" for c in p.name)
        name += ".BIN"
        if file_name_problem(name) or name.casefold() in taken:
            name = f"{p.guid}.BIN"
        taken.add(name.casefold())
        out[name] = writer.build(replace(manifest, providers=(p,)), ids=ids)
    return out


def _baseline(build: ManifestBuild, files: Mapping[str, bytes]) -> dict[str, bytes]:
    return baseline_files(build.manifest, build.ids())


def _dll(build: ManifestBuild, files: Mapping[str, bytes]) -> dict[str, bytes]:
    from .pe import dll_name, resource_dll  # --resource-dll only (start-up of lint)

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
    wanted=lambda b: b.options.python, render=_python_module, check=_python_check,
)  # fmt: skip
C_HEADER: OutputKind[ManifestBuild] = OutputKind(
    "c-header", "header", "mc's C/C++ header, <base>.h (-um, -km, or definitions only)",
    wanted=lambda b: b.options.c_header is not None, render=_c_header,
)  # fmt: skip
WEVT_TEMPLATE: OutputKind[ManifestBuild] = OutputKind(
    "wevt-template", "resources", "the WEVT_TEMPLATE blob, <base>TEMP.BIN",
    wanted=lambda b: b.options.binary, render=_binary(_template), check=_binary_check,
)  # fmt: skip
MESSAGE_TABLES: OutputKind[ManifestBuild] = OutputKind(
    "message-tables", "resources", "one MESSAGETABLE per culture, <base>_MSG0000n.bin",
    wanted=lambda b: b.options.binary, render=_render_tables, check=_table_checks,
)  # fmt: skip
RC: OutputKind[ManifestBuild] = OutputKind(
    "rc", "resources", "the resource script that links them, <base>.rc",
    wanted=lambda b: b.options.binary, render=_binary(_rc), check=_binary_check,
)  # fmt: skip
RESOURCE_DLL: OutputKind[ManifestBuild] = OutputKind(
    "resource-dll", "resources", "a resource-only DLL holding the blob and the tables",
    wanted=lambda b: b.options.resource_dll, render=_binary(_dll), check=_binary_check,
)  # fmt: skip
BASELINE: OutputKind[ManifestBuild] = OutputKind(
    "baseline", "baseline", "mc's -s baseline: a blob per provider, MCGenResource.BIN",
    wanted=lambda b: b.options.baseline, render=_binary(_baseline), check=_binary_check,
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

# --------------------------------------------------------------------------- .mc files


class TextBuild:
    """One message text file's outputs in the making: its model, mc's switches for it,
    the names, and (when mc compiles a manifest in the same run) what the manifest adds
    to the resources; every file is made at once (:func:`etwmc.mctext.plan_files`)."""

    def __init__(
        self,
        model: MessageFile,
        options: McTextOptions,
        *,
        base: str,
        ext: str,
        prefixed: bool,
        encoding: str,
        debug: bool,
        manifest: ManifestPart | None = None,
    ) -> None:
        self.model = model
        self.options = options
        self.base = base
        self.ext = ext
        self.prefixed = prefixed
        self.encoding = encoding
        self.debug = debug  # mc's -x: the .dbg is wanted
        self.manifest = manifest
        self._files: TextPlanned | None = None

    def files(self) -> TextPlanned:
        from .mctext import plan_files  # message text files only (start-up of lint)

        if self._files is None:
            self._files = plan_files(
                self.model, self.options, base=self.base, ext=self.ext,
                prefixed=self.prefixed, encoding=self.encoding, dbg=self.debug,
                manifest=self.manifest,
            )  # fmt: skip
        return self._files


def manifest_part(build: ManifestBuild) -> ManifestPart:
    """What a manifest adds to the resources of a message text file in the same mc
    run: its WEVT_TEMPLATE blob and its cultures' messages (call after its checks)."""
    # A manifest and a message text file in one mc run only (start-up of lint).
    from .mctext import ManifestPart
    from .mctext.combine import manifest_cultures

    blob = build.binaries()[template_file(build.base)]
    return ManifestPart(blob, manifest_cultures(build.manifest, build.ids()))


def _mc_header(build: TextBuild) -> Rendered:
    return Rendered(build.files().header, [])


def _mc_resources(build: TextBuild) -> Rendered:
    made = build.files()  # the joined resources' problems are found here
    return Rendered(made.resources, made.diagnostics)


def _mc_debug(build: TextBuild) -> Rendered:
    return Rendered(build.files().debug, [])


MC_HEADER: OutputKind[TextBuild] = OutputKind(
    "mc-header", "header", "a message text file's C header: message ids, <base>.h",
    wanted=lambda b: True, render=_mc_header,
)  # fmt: skip
MC_RESOURCES: OutputKind[TextBuild] = OutputKind(
    "mc-resources", "resources", "its .rc and one message table per language",
    wanted=lambda b: True, render=_mc_resources,
)  # fmt: skip
MC_DEBUG: OutputKind[TextBuild] = OutputKind(
    "mc-debug", "debug", "mc's -x file: message ids and their names, <base>.dbg",
    wanted=lambda b: b.debug, render=_mc_debug,
)  # fmt: skip

MESSAGE_TEXT_OUTPUTS: tuple[OutputKind[TextBuild], ...] = (MC_HEADER, MC_RESOURCES, MC_DEBUG)


# --------------------------------------------------------------------------- making


class Planned(Record):
    """Files by place (place -> name -> bytes) and every diagnostic found."""

    files: dict[Place, dict[str, bytes]]
    diagnostics: list[Diagnostic]


def plan(build: B, kinds: tuple[OutputKind[B], ...]) -> Planned:
    """Every kind of ``kinds`` the build wants, made in order (nothing is written)."""
    files: dict[Place, dict[str, bytes]] = {}
    diags: list[Diagnostic] = []
    for kind in kinds:
        if kind.wanted(build):
            made = kind.render(build)
            diags.extend(made.diagnostics)
            if made.files:
                files.setdefault(kind.place, {}).update(made.files)
    return Planned(files, diags)


def checks(build: B, kinds: tuple[OutputKind[B], ...]) -> list[Diagnostic]:
    """What making ``kinds`` would report, without making them (each check once)."""
    out: list[Diagnostic] = []
    ran: set[object] = set()
    for kind in kinds:
        if kind.check is not None and kind.check not in ran:
            ran.add(kind.check)
            out.extend(kind.check(build))
    return out


def lint_checks(manifest: Manifest, options: CompileOptions | None = None) -> list[Diagnostic]:
    """The checks of every kind a default compile (or ``options``) wants: what ``etwmc
    lint`` adds to validation."""
    build = ManifestBuild(manifest, options or CompileOptions(), path=manifest.path, base="lint")
    return checks(build, tuple(k for k in MANIFEST_OUTPUTS if k.wanted(build)))

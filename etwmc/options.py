"""What a compile is asked to produce: one frozen type for the command lines (``etwmc
compile``, ``etwmc mc``), the build plugins and :func:`etwmc.compile.compile_manifest`.

Every option is validated here and nowhere else: :class:`CompileOptions` refuses a
value it cannot use with :class:`OptionsError`, whose ``key`` names the option so that
each caller can say where the value came from (a flag, a configuration key).  The
WEVT_TEMPLATE version in force, with mc 8.1's rule that its template ids go with its
version 3 layout, is :attr:`CompileOptions.version`.

The compile keys are read from ``[tool.etwmc]`` (``pyproject.toml``), ``etwmc.toml``
and the hatchling hook's table by :func:`options_from_table`; a command line starts
from them and its flags win (:meth:`CompileOptions.with_flags`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, Literal, TypeAlias

from .record import Record, fields

WevtVersion: TypeAlias = Literal[3, 5]
HeaderMode: TypeAlias = Literal["um", "km", "definitions"]
TextEncoding: TypeAlias = Literal["ansi", "utf-8", "utf-16"]

WEVT_VERSIONS: Final[tuple[WevtVersion, ...]] = (3, 5)
DEFAULT_WEVT_VERSION: Final[WevtVersion] = 5  # mc 10.0.16299 and later
LEGACY_WEVT_VERSION: Final[WevtVersion] = 3  # mc 8.1 and 10.0 before 16299
HEADER_MODES: Final[tuple[HeaderMode, ...]] = ("um", "km", "definitions")
TEXT_ENCODINGS: Final[tuple[TextEncoding, ...]] = ("ansi", "utf-8", "utf-16")

# The keys of the configuration tables, as written there.
KEYS: Final = (
    "wevt-version",
    "legacy-template-ids",
    "python",
    "binaries",
    "resource-dll",
    "c-header",
    "werror",
    "version-comment",
)


class OptionsError(ValueError):
    """An option's value cannot be used, or options cannot go together; the message
    says which and why, ``key`` names the option (None for a combination)."""

    def __init__(self, message: str, key: str | None = None, reason: str = "") -> None:
        super().__init__(message)
        self.key = key
        self.reason = reason  # what the value must be, for a message that names the key


def check_wevt_version(value: object) -> WevtVersion:
    """``value`` when it is a WEVT_TEMPLATE version etwmc writes, else OptionsError."""
    if not isinstance(value, int) or isinstance(value, bool) or value not in WEVT_VERSIONS:
        reason = f"must be 3 or 5, not {value!r}"
        raise OptionsError(f"the WEVT_TEMPLATE version {reason}", "wevt_version", reason)
    return LEGACY_WEVT_VERSION if value == LEGACY_WEVT_VERSION else DEFAULT_WEVT_VERSION


def _c_identifier(text: str) -> bool:
    return bool(text) and text.isascii() and text.isidentifier()


class CompileOptions(Record, kw_only=True):
    """``wevt_version`` None means the default (:attr:`version`).  ``c_header`` adds
    mc's C/C++ header (``"um"``: ``mc -um``, ``"km"``: ``-km``, ``"definitions"``: mc
    with neither, a header of definitions only); ``header_extension``,
    ``write_prefix`` (mc's ``-p``), ``strip_prefix`` (``-P``) and ``customer_bit``
    (``-c``) shape it; ``text_encoding`` (``-cp``) encodes the header and the .rc.
    ``prefixed_tables`` names message tables ``BASE_MSG0000n.bin`` (else mc's
    ``MSG0000n.bin``); ``baseline`` adds mc's ``-s`` baseline ``BASE.BIN``;
    ``max_message_length`` (``-m``) warns about longer messages.  ``version_comment``
    off leaves etwmc's version out of the generated module's first line, so committed
    outputs stay current across an upgrade of etwmc that changes nothing else."""

    wevt_version: WevtVersion | None = None
    legacy_template_ids: bool = False
    python: bool = True
    binary: bool = True
    resource_dll: bool = False
    c_header: HeaderMode | None = None
    werror: bool = False
    verify: bool = False
    version_comment: bool = True
    header_extension: str = "h"
    write_prefix: str = "EventWrite"
    strip_prefix: str | None = None
    customer_bit: bool = False
    text_encoding: TextEncoding = "ansi"
    prefixed_tables: bool = True
    baseline: bool = False
    max_message_length: int | None = None

    def __post_init__(self) -> None:
        declared = CompileOptions.__annotations__
        for name in fields(self):
            value = getattr(self, name)
            if declared[name] == "bool" and not isinstance(value, bool):
                reason = f"must be true or false, not {value!r}"
                raise OptionsError(f"'{name}' {reason}", name, reason)
        if self.wevt_version is not None:
            check_wevt_version(self.wevt_version)
        if self.legacy_template_ids and self.wevt_version == DEFAULT_WEVT_VERSION:
            raise OptionsError(
                "legacy template ids are mc 8.1's, and mc 8.1 wrote WEVT_TEMPLATE version 3; "
                "drop version 5"
            )
        if self.c_header is not None and self.c_header not in HEADER_MODES:
            raise OptionsError(
                f'the C header mode must be "um", "km" or "definitions", not {self.c_header!r}',
                "c_header",
            )
        if not (self.python or self.binary or self.resource_dll or self.c_header):
            raise OptionsError(
                "these options leave nothing to write: the Python module, the binaries, the "
                "resource DLL and the C header are all off"
            )
        ext = self.header_extension
        if not (isinstance(ext, str) and 1 <= len(ext) <= 3 and ext.isascii() and ext.isalnum()):
            raise OptionsError(
                f"the header extension {ext!r} is not 1 to 3 letters or digits", "header_extension"
            )
        if not (isinstance(self.write_prefix, str) and _c_identifier(self.write_prefix)):
            raise OptionsError(
                f"the macro prefix {self.write_prefix!r} is not a C identifier", "write_prefix"
            )
        if self.strip_prefix is not None and not (
            isinstance(self.strip_prefix, str) and self.strip_prefix
        ):
            raise OptionsError("the prefix to take off event symbols is empty", "strip_prefix")
        if self.text_encoding not in TEXT_ENCODINGS:
            raise OptionsError(
                f"the text encoding {self.text_encoding!r} is not one of "
                f"{', '.join(TEXT_ENCODINGS)}",
                "text_encoding",
            )
        limit = self.max_message_length
        if limit is not None and (
            isinstance(limit, bool) or not isinstance(limit, int) or limit < 1
        ):
            raise OptionsError(
                f"the message length limit must be a positive number, not {limit!r}",
                "max_message_length",
            )

    @property
    def implied_version(self) -> WevtVersion:
        """The version when none is given: mc 8.1's template ids came with its layout."""
        return LEGACY_WEVT_VERSION if self.legacy_template_ids else DEFAULT_WEVT_VERSION

    @property
    def version(self) -> WevtVersion:
        """The WEVT_TEMPLATE version in force."""
        return self.wevt_version if self.wevt_version is not None else self.implied_version

    def with_flags(
        self,
        *,
        wevt_version: object = None,
        legacy_template_ids: bool | None = None,
        python: bool | None = None,
        binary: bool | None = None,
        resource_dll: bool | None = None,
        c_header: str | None = None,
        werror: bool | None = None,
        verify: bool | None = None,
        version_comment: bool | None = None,
    ) -> CompileOptions:
        """These options with a command line's flags over them (None: not given).  A
        ``legacy_template_ids`` flag without a version asks for mc 8.1's outputs, so the
        configuration's version gives way to the one those ids imply."""
        version = self.wevt_version
        if wevt_version is not None:
            version = check_wevt_version(wevt_version)
        elif legacy_template_ids:
            version = None

        def pick(flag: bool | None, current: bool) -> bool:
            return current if flag is None else flag

        return CompileOptions(
            wevt_version=version,
            legacy_template_ids=pick(legacy_template_ids, self.legacy_template_ids),
            python=pick(python, self.python),
            binary=pick(binary, self.binary),
            resource_dll=pick(resource_dll, self.resource_dll),
            c_header=self.c_header if c_header is None else c_header,  # type: ignore[arg-type]
            werror=pick(werror, self.werror),
            verify=pick(verify, self.verify),
            version_comment=pick(version_comment, self.version_comment),
        )


def options_from_table(table: Mapping[str, object], where: str) -> CompileOptions:
    """Options from a configuration table's compile keys (others are ignored here);
    ``where`` names the table in messages.  Keys are spelled with ``-`` (``_`` works)."""
    t = {str(k).replace("_", "-"): v for k, v in table.items()}
    header = t.get("c-header", False)
    mode = ("um" if header else None) if isinstance(header, bool) else header
    field_of = {
        "wevt-version": "wevt_version",
        "legacy-template-ids": "legacy_template_ids",
        "python": "python",
        "binaries": "binary",
        "resource-dll": "resource_dll",
        "werror": "werror",
        "version-comment": "version_comment",
    }
    given = {field_of[k]: v for k, v in t.items() if k in field_of}
    try:
        return CompileOptions(c_header=mode, **given)  # type: ignore[arg-type]
    except OptionsError as e:
        key = next((k for k, f in field_of.items() if f == e.key), e.key)
        if key == "c_header":
            raise OptionsError(
                f'{where}: \'c-header\' must be true, false, "um" or "km"', e.key
            ) from None
        message = f"'{key}' {e.reason}" if key and e.reason else str(e)
        raise OptionsError(f"{where}: {message}", e.key, e.reason) from None


def as_table(options: CompileOptions) -> dict[str, object]:
    """The options as configuration keys, for ``--show-config``."""
    return {
        "wevt-version": options.version,
        "legacy-template-ids": options.legacy_template_ids,
        "python": options.python,
        "binaries": options.binary,
        "resource-dll": options.resource_dll,
        "c-header": options.c_header or False,
        "werror": options.werror,
        "version-comment": options.version_comment,
    }

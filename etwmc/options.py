"""What a compile is asked to produce: one frozen type for the command line, the build
plugins and :func:`etwmc.compile.compile_manifest` alike.

The same keys are read from ``[tool.etwmc]`` (``pyproject.toml``), ``etwmc.toml`` and
the hatchling hook's table by :func:`options_from_table`; the command line starts from
them and its flags win.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, Literal, TypeAlias

WevtVersion: TypeAlias = Literal[3, 5]
HeaderMode: TypeAlias = Literal["um", "km"]

WEVT_VERSIONS: Final[tuple[WevtVersion, ...]] = (3, 5)
DEFAULT_WEVT_VERSION: Final[WevtVersion] = 5  # mc 10.0.16299 and later
LEGACY_WEVT_VERSION: Final[WevtVersion] = 3  # mc 8.1 and 10.0 before 16299

# The keys of the configuration tables, as written there.
KEYS: Final = (
    "wevt-version",
    "legacy-template-ids",
    "python",
    "binaries",
    "resource-dll",
    "c-header",
    "werror",
)


class OptionsError(ValueError):
    """Options that cannot go together or a value of the wrong kind; says which."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CompileOptions:
    """``wevt_version`` None means the default: 3 with ``legacy_template_ids`` (mc 8.1
    wrote version 3), else 5; :attr:`version` gives the one in force."""

    wevt_version: WevtVersion | None = None
    legacy_template_ids: bool = False
    python: bool = True
    binary: bool = True
    resource_dll: bool = False
    c_header: HeaderMode | None = None
    werror: bool = False
    verify: bool = False

    def __post_init__(self) -> None:
        if self.wevt_version is not None and self.wevt_version not in WEVT_VERSIONS:
            raise OptionsError(f"the WEVT_TEMPLATE version must be 3 or 5, not {self.wevt_version}")
        if self.legacy_template_ids and self.wevt_version == DEFAULT_WEVT_VERSION:
            raise OptionsError(
                "legacy template ids are mc 8.1's, and mc 8.1 wrote WEVT_TEMPLATE version 3; "
                "drop version 5"
            )
        if self.c_header not in (None, "um", "km"):
            raise OptionsError(f'the C header mode must be "um" or "km", not {self.c_header!r}')
        if not (self.python or self.binary or self.resource_dll or self.c_header):
            raise OptionsError(
                "nothing to write: the module, the binaries, the DLL and the header are all off"
            )

    @property
    def version(self) -> WevtVersion:
        if self.wevt_version is not None:
            return self.wevt_version
        return LEGACY_WEVT_VERSION if self.legacy_template_ids else DEFAULT_WEVT_VERSION


def options_from_table(table: Mapping[str, object], where: str) -> CompileOptions:
    """Options from a configuration table's compile keys (others are ignored here);
    ``where`` names the table in messages.  Keys are spelled with ``-`` (``_`` works)."""
    t = {str(k).replace("_", "-"): v for k, v in table.items()}
    version = t.get("wevt-version")
    if version is not None and (isinstance(version, bool) or version not in WEVT_VERSIONS):
        raise OptionsError(f"{where}: 'wevt-version' must be 3 or 5")
    header = t.get("c-header", False)
    if isinstance(header, bool):
        mode: HeaderMode | None = "um" if header else None
    elif header == "um" or header == "km":
        mode = header
    else:
        raise OptionsError(f'{where}: \'c-header\' must be true, false, "um" or "km"')
    try:
        return CompileOptions(
            wevt_version=3 if version == 3 else 5 if version == 5 else None,
            legacy_template_ids=_bool(t, "legacy-template-ids", False, where),
            python=_bool(t, "python", True, where),
            binary=_bool(t, "binaries", True, where),
            resource_dll=_bool(t, "resource-dll", False, where),
            c_header=mode,
            werror=_bool(t, "werror", False, where),
        )
    except OptionsError as e:
        raise OptionsError(f"{where}: {e}") from None


def _bool(t: Mapping[str, object], key: str, default: bool, where: str) -> bool:
    v = t.get(key, default)
    if not isinstance(v, bool):
        raise OptionsError(f"{where}: '{key}' must be true or false")
    return v


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
    }

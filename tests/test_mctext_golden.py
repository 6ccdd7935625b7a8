"""Message text files against what mc.exe wrote from them (../shared/golden/mc).

For every set: each message table is byte-identical, the header defines the same names
with the same values, and the .rc names the same languages with the same table files in
the same order.  Where the golden text is the current mc's (every set but pgbouncer's,
whose .rc is an older mc's, without quotes; it has no header), the header and the .rc
are compared byte for byte.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import GOLDEN
from etwmc import mctext
from etwmc.wevt.msgtable import read_message_table

MC = GOLDEN / "mc"
SETS = sorted(p for p in MC.iterdir() if p.is_dir()) if MC.is_dir() else []
# Built with mc -u -U (message-text-files golden README); the others are ANSI files.
UNICODE_INPUT = {"wellbay__nssm"}
OLDER_RC = {"pgbouncer__pgbouncer"}
_DEFINE = re.compile(r"^#define (\w+) +(\S+)$", re.M)
_RC = re.compile(r'^LANGUAGE (0x[0-9a-f]+),(0x[0-9a-f]+)\n1 11 "?([^"\n]+)"?$', re.M)


def _built(folder: Path) -> tuple[mctext.MessageFile, mctext.McOutputs]:
    source = next(folder.glob("*.mc"))
    options = mctext.McTextOptions(unicode_input=folder.name in UNICODE_INPUT)
    model, diags = mctext.read_file(source, options)
    assert model is not None and mctext.usable(diags), diags
    return model, mctext.build(model, options, base=source.stem, prefixed=False)


@pytest.mark.parametrize("folder", SETS, ids=[p.name for p in SETS] or None)
def test_tables_are_mcs_byte_for_byte(folder: Path) -> None:
    _, out = _built(folder)
    golden = {p.name: p.read_bytes() for p in folder.glob("*.bin")}
    assert out.tables == golden
    for data in out.tables.values():
        assert read_message_table(data)  # and they read back


@pytest.mark.parametrize("folder", SETS, ids=[p.name for p in SETS] or None)
def test_rc_names_the_same_languages_in_order(folder: Path) -> None:
    _, out = _built(folder)
    golden = next(folder.glob("*.rc")).read_text(encoding="ascii")
    assert _RC.findall(out.rc) == _RC.findall(golden)
    if folder.name not in OLDER_RC:
        assert out.rc == golden


@pytest.mark.parametrize("folder", [p for p in SETS if list(p.glob("*.h"))], ids=lambda p: p.name)
def test_header_is_mcs(folder: Path) -> None:
    _, out = _built(folder)
    golden = next(folder.glob("*.h")).read_text(encoding="ascii")
    assert _DEFINE.findall(out.header) == _DEFINE.findall(golden)
    assert out.header == golden


def test_every_message_has_the_ids_of_the_golden_header() -> None:
    """The values the golden headers define are the ids in the tables, both ways."""
    for folder in SETS:
        model, out = _built(folder)
        for data in out.tables.values():
            assert set(read_message_table(data)) == {m.id for m in model.messages}


def test_the_goldens_are_there() -> None:
    if not SETS:
        pytest.skip("../shared/golden is not present next to this checkout")
    assert [p.name for p in SETS] == [
        "ejsiron__HyperVive",
        "hiyohiyo__CrystalDiskInfo",
        "pgbouncer__pgbouncer",
        "wellbay__nssm",
    ]

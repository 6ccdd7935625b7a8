"""``etwmc mc``: mc.exe's command line, its outputs and their names, and its errors."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from header_helpers import facts, predating

from conftest import CORPUS, GOLDEN
from etwmc.buildhooks import ConfigError, generate, parse_options
from etwmc.cli import main as cli_main
from etwmc.commands.mc import McOptions, UsageError, parse
from etwmc.header import HeaderOptions, build_header
from etwmc.validate import check_file
from etwmc.wevt.msgtable import read_message_table

ROOT = Path(__file__).resolve().parents[1]
HELLO = ROOT / "examples" / "hello.man"
INVALID = ROOT / "tests" / "manifests" / "invalid"
ETK = GOLDEN / "event-trace-kit"
WPF = GOLDEN / "dotnet-wpf"


def _need(*paths: Path) -> None:
    for p in paths:
        if not p.exists():
            pytest.skip(f"{p} is not present next to this checkout")


def _run(*argv: str | Path) -> int:
    return cli_main(["mc", *map(str, argv)])


# ------------------------------------------------------------------------- parsing


@pytest.mark.parametrize(
    ("argv", "want"),
    [
        (["-um", "x.man"], McOptions(manifest="x.man", mode="um")),
        (["/km", "x.man"], McOptions(manifest="x.man", mode="km", kernel=True)),
        (
            ["-h", "inc", "-r", "res", "x.man"],
            McOptions(manifest="x.man", header_dir="inc", rc_dir="res"),
        ),
        (
            ["/h", "inc", "/r", "res", "x.man"],
            McOptions(manifest="x.man", header_dir="inc", rc_dir="res"),
        ),
        (
            ["-bcv", "x.man"],
            McOptions(manifest="x.man", base_names=True, customer_bit=True, verbose=True),
        ),
        (
            ["-cp", "UTF-8", "-e", "hpp", "-m", "80", "x.man"],
            McOptions(manifest="x.man", encoding="utf-8", ext="hpp", max_length=80),
        ),
        (
            ["-p", "Log", "-P", "Evt", "-z", "out", "x.man"],
            McOptions(manifest="x.man", write_prefix="Log", strip_prefix="Evt", base="out"),
        ),
        (
            ["-s", "old", "-t", "new", "x.man"],
            McOptions(manifest="x.man", baseline_dir="old", check_dir="new"),
        ),
        (
            ["-W", "winmeta.xml", "-um", "-b", "x.man"],
            McOptions(manifest="x.man", mode="um", base_names=True, winmeta="winmeta.xml"),
        ),
        # A path that starts with "/" is a path, not the -t option.
        (["/tmp/x.man"], McOptions(manifest="/tmp/x.man")),
        (["-?"], McOptions(help=True)),
        (["/?"], McOptions(help=True)),
        (["--help"], McOptions(help=True)),
    ],
)
def test_parse(argv: list[str], want: McOptions) -> None:
    assert parse(argv) == want


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["-um", "-km", "x.man"], "-um and -km"),
        (["-mof", "-um", "x.man"], "option -mof is not supported"),
        (["-cs", "Ns", "x.man"], "option -cs is not supported"),
        (["-css", "Ns", "x.man"], "option -css is not supported"),
        (["-generateProjections", "x.man"], "option -generateProjections is not supported"),
        (["-co", "x.man"], "option -co is not supported"),
        (["-A", "x.man"], "-A and -U8 apply to message text files"),
        (["-U8", "x.man"], "-A and -U8 apply to message text files"),
        (["-x", "dbg", "x.man"], "-x applies to message text files"),
        (["-um"], "no input given"),
        (["a.man", "b.man"], "at most one manifest and one message text file"),
        (["a.mc", "b.MC"], "at most one manifest and one message text file"),
        (["-z", "x", "a.man", "b.mc"], "-z with a manifest and a message text file"),
        (["x.man", "X.mc"], "would both write the header X.h"),
        (["-acp", "nosuch", "x.mc"], "not a code page"),
        (["-generateTemplateStubs", "f", "x.man"], "option -generateTemplateStubs is not"),
        (["-q", "x.man"], "unknown option '-q'"),
        (["-hinc", "x.man"], "unknown option '-hinc'"),
        (["-e", "long", "x.man"], "1 to 3 letters"),
        (["-cp", "latin1", "x.man"], "ansi, utf-8, utf-16"),
        (["-m", "0", "x.man"], "positive number"),
        (["-p", "1x", "x.man"], "C identifier"),
        (["-z", "a/b", "x.man"], "plain file name"),
        (["x.man", "-h"], "-h needs a value"),
    ],
)
def test_usage_errors(argv: list[str], message: str) -> None:
    with pytest.raises(UsageError, match=re.escape(message)):
        parse(argv)


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert _run("-mof", "-um", HELLO) == 2
    err = capsys.readouterr().err
    assert err.startswith("etwmc mc: option -mof is not supported") and "usage:" in err
    assert _run("-?") == 0
    assert "usage: etwmc mc" in capsys.readouterr().out


# ------------------------------------------------------------------------- outputs


def test_outputs_are_mcs_with_mcs_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """mc -um -z x (event-trace-kit's Generate.ps1): x.h, x.rc, xTEMP.BIN, x_MSG00001.bin."""
    _need(ETK / "TaskOpcodes.man")
    monkeypatch.chdir(tmp_path)
    assert _run("-um", "-z", "x", "-h", "inc", "-r", "res", ETK / "TaskOpcodes.man") == 0
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")) == [
        "inc", "inc/x.h", "res", "res/x.rc", "res/xTEMP.BIN", "res/x_MSG00001.bin",
    ]  # fmt: skip
    assert (res := tmp_path / "res").is_dir()
    assert (res / "xTEMP.BIN").read_bytes() == (ETK / "TaskOpcodes.wevt.v5.bin").read_bytes()
    assert (res / "x_MSG00001.bin").read_bytes() == (ETK / "TaskOpcodes.msg.bin").read_bytes()
    want = facts((ETK / "TaskOpcodes.h").read_text(errors="replace"))
    assert predating(facts((tmp_path / "inc" / "x.h").read_text())) == want


def test_dotnet_wpf_command_line(tmp_path: Path) -> None:
    """dotnet/wpf runs mc -um -mof -r resources -h native wpf-etw.man: without -mof,
    the .rc and MSG00001.bin are the ones it committed, byte for byte."""
    _need(CORPUS / "dotnet__wpf__wpf-etw.man", WPF / "wpf-etw.rc")
    man = tmp_path / "wpf-etw.man"
    shutil.copy(CORPUS / "dotnet__wpf__wpf-etw.man", man)
    rc, h = tmp_path / "resources", tmp_path / "native"
    assert _run("-um", "-r", rc, "-h", h, man) == 0
    assert (rc / "wpf-etw.rc").read_bytes() == (WPF / "wpf-etw.rc").read_bytes()
    assert (rc / "MSG00001.bin").read_bytes() == (WPF / "MSG00001.bin").read_bytes()
    assert (rc / "wpf-etwTEMP.BIN").is_file() and (h / "wpf-etw.h").is_file()


def test_b_names_message_tables_after_the_base(tmp_path: Path) -> None:
    assert _run("-b", "-h", tmp_path, "-r", tmp_path, "-e", "hpp", HELLO) == 0
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["hello.hpp", "hello.rc", "helloTEMP.BIN", "hello_MSG00001.bin"]
    assert b'1 11 "hello_MSG00001.bin"' in (tmp_path / "hello.rc").read_bytes()


@pytest.mark.parametrize(
    ("encoding", "bom", "codec", "rc_bom", "rc_codec"),
    [
        ("ansi", b"", "ascii", b"", "ascii"),
        # mc 10 writes the .rc in UTF-16 when asked for UTF-8: rc.exe reads no UTF-8.
        ("utf-8", b"\xef\xbb\xbf", "utf-8", b"\xff\xfe", "utf-16-le"),
        ("utf-16", b"\xff\xfe", "utf-16-le", b"\xff\xfe", "utf-16-le"),
    ],
)
def test_cp_encodes_the_text_outputs(
    tmp_path: Path, encoding: str, bom: bytes, codec: str, rc_bom: bytes, rc_codec: str
) -> None:
    assert _run("-cp", encoding, "-h", tmp_path, "-r", tmp_path, HELLO) == 0
    checked = check_file(HELLO)
    assert checked.manifest is not None
    header = build_header(checked.manifest, HeaderOptions(logging=False)).text
    assert (tmp_path / "hello.h").read_bytes() == bom + header.encode(codec)
    rc = (tmp_path / "hello.rc").read_bytes()
    assert rc.startswith(rc_bom)
    assert rc[len(rc_bom) :].decode(rc_codec).startswith("LANGUAGE 0x9,0x1\n")


def test_without_um_or_km_the_header_holds_definitions_only(tmp_path: Path) -> None:
    assert _run("-h", tmp_path, "-r", tmp_path, HELLO) == 0
    text = (tmp_path / "hello.h").read_text()
    assert "EVENT_DESCRIPTOR Hello" in text and "EventWrite" not in text
    assert _run("-um", "-h", tmp_path, "-r", tmp_path, HELLO) == 0
    assert "#define EventWriteHello(" in (tmp_path / "hello.h").read_text()


def test_km_p_and_c_reach_the_header_and_the_tables(tmp_path: Path) -> None:
    man = tmp_path / "t.man"
    # hello.man's provider and channel messages (0x9...) would collide with its event
    # messages (0xB...) under -c: drop the events' messages.
    man.write_text(re.sub(r' message="\$\(string\.Event\.\w+\)"', "", HELLO.read_text()))
    assert _run("-km", "-c", "-p", "Log", "-h", tmp_path, "-r", tmp_path, man) == 0
    checked = check_file(man)
    assert checked.manifest is not None
    opts = HeaderOptions(kernel=True, customer_bit=True, write_prefix="Log")
    assert (tmp_path / "t.h").read_text() == build_header(checked.manifest, opts).text
    table = read_message_table((tmp_path / "MSG00001.bin").read_bytes())
    assert table and all(mid & 0x20000000 for mid in table)


def test_m_warns_about_long_messages(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    fixture = INVALID / "mc_long_message.man"
    text = fixture.read_text()
    options = re.search(r"<!-- mc: (.*?) -->", text)
    assert options
    expected = {
        (n, c)
        for n, line in enumerate(text.splitlines(), 1)
        for m in re.finditer(r"<!-- expect: ((?:ETW\d{3}\s*)+)-->", line)
        for c in m.group(1).split()
    }
    assert _run(*options.group(1).split(), "-h", tmp_path, "-r", tmp_path, fixture) == 0
    found = {
        (int(m.group(1)), m.group(2))
        for m in re.finditer(r":(\d+):\d+: \w+ (ETW\d{3})", capsys.readouterr().out)
    }
    assert found == expected
    assert _run("-h", tmp_path, "-r", tmp_path, fixture) == 0
    assert "ETW623" not in capsys.readouterr().out


def test_baseline_and_compatibility_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, base = tmp_path / "out", tmp_path / "baseline"
    man = tmp_path / "hello.man"
    shutil.copy(HELLO, man)
    assert _run("-s", base, "-h", out, "-r", out, man) == 0
    # mc 10: a binary resource per provider and the summary MCGenResource.BIN.
    assert sorted(p.name for p in base.iterdir()) == [
        "Etwmc-Examples-Hello.BIN",
        "MCGenResource.BIN",
    ]
    assert (base / "MCGenResource.BIN").read_bytes() == (out / "helloTEMP.BIN").read_bytes()
    assert (base / "Etwmc-Examples-Hello.BIN").read_bytes() == (out / "helloTEMP.BIN").read_bytes()
    assert _run("-t", base, "-h", out, "-r", out, man) == 0
    # Event 3 removed: consumers that decode it break.
    text = HELLO.read_text()
    man.write_text(re.sub(r'<event value="3".*?/>', "", text, flags=re.S))
    capsys.readouterr()
    assert _run("-t", base, "-h", out, "-r", out, man) == 1
    assert "ETW710" in capsys.readouterr().out  # diagnostics go to stdout
    assert _run("-t", tmp_path / "nowhere", man) == 2
    assert "there is no baseline" in capsys.readouterr().err
    # Without the summary, each provider's file is the baseline.
    (base / "MCGenResource.BIN").unlink()
    assert _run("-t", base, "-h", out, "-r", out, man) == 1
    assert "ETW710" in capsys.readouterr().out
    # A folder holding the BASE.BIN earlier etwmc versions wrote still works.
    (base / "Etwmc-Examples-Hello.BIN").rename(base / "hello.BIN")
    assert _run("-t", base, "-h", out, "-r", out, man) == 1
    assert "ETW710" in capsys.readouterr().out


def test_a_manifest_with_errors_exits_1_and_writes_nothing(tmp_path: Path) -> None:
    bad = INVALID / "references.man"
    assert _run("-h", tmp_path, "-r", tmp_path, bad) == 1
    assert not list(tmp_path.iterdir())


def test_outputs_are_all_or_nothing(tmp_path: Path) -> None:
    res = tmp_path / "res"
    res.mkdir()
    (res / "hello.rc").write_bytes(b"old")
    blocked = tmp_path / "inc"
    blocked.write_bytes(b"a file where the header folder should be")
    assert _run("-h", blocked, "-r", res, HELLO) == 1
    assert sorted(p.name for p in res.iterdir()) == ["hello.rc"]
    assert (res / "hello.rc").read_bytes() == b"old"


def test_build_hooks_take_a_c_header_key() -> None:
    base = {"manifests": ["x.man"], "package": "acme._etw"}
    assert parse_options(base, "t").c_header is None
    assert parse_options({**base, "c-header": True}, "t").c_header == "um"
    assert parse_options({**base, "c-header": "km"}, "t").c_header == "km"
    for bad in ("kernel", 1):
        with pytest.raises(ConfigError, match="c-header"):
            parse_options({**base, "c-header": bad}, "t")


def test_build_hooks_ship_the_header(tmp_path: Path) -> None:
    package = tmp_path / "src" / "acme"
    package.mkdir(parents=True)
    shutil.copy(HELLO, package / "hello.man")
    opts = parse_options(
        {"manifests": "src/acme/*.man", "package": "acme._etw", "c-header": "km", "python": False},
        "t",
    )
    made = generate(tmp_path, opts, out_dir=tmp_path / "out")
    header = made.files["acme/_etw/hello.h"].read_text()
    checked = check_file(HELLO)
    assert checked.manifest is not None
    assert header == build_header(checked.manifest, HeaderOptions(kernel=True)).text

"""The headers compile, and programs built with them hold etwmc's resources (mingw-w64).

Needs x86_64-w64-mingw32-gcc/-g++/-windres (Debian: gcc-mingw-w64-x86-64 and
g++-mingw-w64-x86-64; .ci/run installs them); without them every test here skips.

* Every manifest of ../shared/golden and every valid corpus manifest: its -um header
  compiles as C and as C++ after <windows.h>, its -km header as C after <ntifs.h>
  (mingw-w64's kernel headers), all with -Wall -Wextra -Werror and with
  MCGEN_ENABLE_FORCONTEXT_CODE_GENERATION defined (the _ForContext code is compiled
  too); its header of definitions only (no -um or -km) as C and as C++.  Kernel-mode C++ is
  compiled when the toolchain's own <ntifs.h> compiles as C++ (mingw-w64's wdm.h did
  not at the time of writing).  A header etwmc warned about (ETW621: a name defined
  twice, as in mc's own header for event-trace-kit's Large.man) must fail to compile,
  on exactly that.
* A program that registers examples/hello.man's provider in two contexts of its own and
  writes through the _ForContext macros links against advapi32.
* examples/cmake-mingw's program (C and C++ sources sharing one provider) links
  against advapi32 into greeter.exe; its resources, compiled from the .rc etwmc wrote
  with windres, hold etwmc's WEVT_TEMPLATE and message table byte for byte (read back
  with pefile), and it imports the ETW functions the header calls.  A kernel driver
  built from examples/hello.man's -km header links against ntoskrnl.
* The CMake project itself configures and builds when cmake is installed.

Headers compile in parallel, against <windows.h> and <ntifs.h> precompiled once per
session (tests/mingw_helpers.py).  Everything here is slow but the driver, a quick proof
that a header compiles and links.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pefile
import pytest
from mingw_helpers import CC, CXX, WARNINGS, WINDRES, Prefixes
from mingw_helpers import run as _run

from conftest import CORPUS, GOLDEN, corpus_files, expected_failures, slow
from etwmc.cli import main as cli_main
from etwmc.header import HeaderOptions, build_header
from etwmc.validate import check_file

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "cmake-mingw"
HELLO = ROOT / "examples" / "hello.man"
pytestmark = pytest.mark.skipif(
    not (CC and CXX and WINDRES), reason="mingw-w64 (x86_64-w64-mingw32-gcc) is not installed"
)


def _manifests() -> list[Path]:
    """Golden manifests, then valid corpus manifests; one path per distinct content."""
    seen: set[str] = set()
    out: list[Path] = []
    failing = expected_failures()
    candidates = sorted((GOLDEN / "event-trace-kit").glob("*.man")) if GOLDEN.is_dir() else []
    candidates += [p for p in corpus_files() if p.name not in failing]
    for p in candidates:
        digest = hashlib.sha256(p.read_bytes()).hexdigest()
        if digest not in seen:
            seen.add(digest)
            out.append(p)
    return out


MANIFESTS = _manifests()
VARIANTS = ("um-c", "um-c++", "km-c", "defs-c", "defs-c++")
FOR_CONTEXT = "#define MCGEN_ENABLE_FORCONTEXT_CODE_GENERATION\n"


@dataclass
class Toolchain:
    work: Path  # a folder per variant for its headers and translation units
    ddk: Path
    prefixes: dict[str, Path]  # variant -> the folder of its precompiled prefix.h
    kernel_cxx: bool  # the toolchain's <ntifs.h> compiles as C++


def _include_dirs(compiler: str) -> list[Path]:
    probe = _run([compiler, "-xc", "-E", "-v", os.devnull])
    text = probe.stderr.split("#include <...> search starts here:", 1)[-1]
    return [Path(line.strip()) for line in text.split("End of search list.")[0].splitlines()]


@pytest.fixture(scope="module")
def ddk() -> Path:
    """mingw-w64's kernel-mode headers."""
    assert CC
    ddk = next((d / "ddk" for d in _include_dirs(CC) if (d / "ddk" / "ntifs.h").is_file()), None)
    assert ddk is not None, "mingw-w64's ddk headers (ntifs.h) are missing"
    return ddk


def _prefix(variant: str, ddk: Path) -> tuple[str, str, tuple[str, ...]]:
    """Compiler, system header and options of a variant: <windows.h> for user mode and
    for the definitions-only header, <ntifs.h> for kernel mode."""
    compiler = CC if variant.endswith("-c") else CXX
    assert compiler
    if variant.startswith("km"):
        return compiler, "ntifs.h", ("-I", str(ddk))
    return compiler, "windows.h", ()


@pytest.fixture(scope="module")
def toolchain(
    tmp_path_factory: pytest.TempPathFactory, ddk: Path, mingw_prefixes: Prefixes
) -> Toolchain:
    work = tmp_path_factory.mktemp("mingw")
    prefixes: dict[str, Path] = {}
    kernel_cxx = False
    for variant in (*VARIANTS, "km-c++"):
        (work / variant).mkdir()
        folder, built = mingw_prefixes.build(*_prefix(variant, ddk))
        if variant == "km-c++":
            kernel_cxx = built.returncode == 0
        else:
            assert built.returncode == 0, built.stderr
        prefixes[variant] = folder
    return Toolchain(work, ddk, prefixes, kernel_cxx)


def _compile_command(tc: Toolchain, variant: str, header: Path) -> list[str]:
    tu = header.with_suffix(".c" if variant.endswith("-c") else ".cpp")
    context = "" if variant.startswith("defs") else FOR_CONTEXT
    tu.write_text(f'#include "prefix.h"\n{context}#include "{header.name}"\n')
    compiler, _, options = _prefix(variant, tc.ddk)
    prefix = str(tc.prefixes[variant])
    return [compiler, *WARNINGS, "-fsyntax-only", "-I", prefix, *options, str(tu)]


@dataclass
class Outcome:
    warned: bool  # etwmc reported ETW621 for this header
    returncode: int
    stderr: str


@pytest.fixture(scope="module")
def compiled(toolchain: Toolchain) -> dict[tuple[str, str], Outcome]:
    jobs: dict[tuple[str, str], tuple[bool, list[str]]] = {}
    for i, man in enumerate(MANIFESTS):
        checked = check_file(man)
        assert checked.ok and checked.manifest is not None, man
        for mode in ("um", "km", "defs"):
            options = HeaderOptions(kernel=mode == "km", logging=mode != "defs")
            result = build_header(checked.manifest, options)
            assert result.ok, result.diagnostics
            warned = any(d.code == "ETW621" for d in result.diagnostics)
            for variant in (*VARIANTS, "km-c++"):
                if not variant.startswith(mode) or (
                    variant == "km-c++" and not toolchain.kernel_cxx
                ):
                    continue
                header = toolchain.work / variant / f"m{i}.h"
                header.write_text(result.text)
                jobs[(man.name, variant)] = (warned, _compile_command(toolchain, variant, header))
    workers = max(2, os.cpu_count() or 2)
    with ThreadPoolExecutor(workers) as pool:
        done = dict(zip(jobs, pool.map(lambda job: _run(job[1]), jobs.values()), strict=True))
    return {key: Outcome(jobs[key][0], p.returncode, p.stderr) for key, p in done.items()}


@slow
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("manifest", MANIFESTS, ids=[p.name for p in MANIFESTS])
def test_header_compiles(
    manifest: Path, variant: str, compiled: dict[tuple[str, str], Outcome]
) -> None:
    _check(compiled[(manifest.name, variant)])


@slow
def test_kernel_headers_compile_as_cpp(
    toolchain: Toolchain, compiled: dict[tuple[str, str], Outcome]
) -> None:
    if not toolchain.kernel_cxx:
        pytest.skip("this mingw-w64's own <ntifs.h> does not compile as C++")
    for (_, variant), outcome in compiled.items():
        if variant == "km-c++":
            _check(outcome)


def _check(outcome: Outcome) -> None:
    if outcome.warned:
        # etwmc said the header defines a name twice: the compiler must agree, and
        # find nothing else wrong.
        errors = [line for line in outcome.stderr.splitlines() if "error:" in line]
        assert outcome.returncode != 0 and errors
        assert all(re.search(r"redefin|conflicting types", e) for e in errors), errors
    else:
        assert outcome.returncode == 0, outcome.stderr[-4000:]


@slow
def test_compile_matrix_is_complete(compiled: dict[tuple[str, str], Outcome]) -> None:
    if not GOLDEN.is_dir() or not CORPUS.is_dir():
        pytest.skip("../shared is not present next to this checkout")
    assert {(m, v) for m, v in compiled if v in VARIANTS} == {
        (p.name, v) for p in MANIFESTS for v in VARIANTS
    }
    # The only headers that cannot be one translation unit: mc's would not be either.
    assert {m for (m, _), o in compiled.items() if o.warned} == {
        "Large.man",
        "microsoft__Tx__asp.man",
        "palantir__windows-event-forwarding__CustomEventChannels.man",
    }


# ----------------------------------------------------------------------- programs


def _resources(exe: Path) -> dict[tuple[str | int, int], bytes]:
    """(type, name) -> data of every resource in a PE file."""
    pe = pefile.PE(str(exe))
    out: dict[tuple[str | int, int], bytes] = {}
    for rtype in pe.DIRECTORY_ENTRY_RESOURCE.entries:
        key = str(rtype.name) if rtype.name is not None else rtype.id
        for rname in rtype.directory.entries:
            for lang in rname.directory.entries:
                d = lang.data.struct
                out[(key, rname.id)] = pe.get_data(d.OffsetToData, d.Size)
    pe.close()
    return out


def _imports(exe: Path) -> dict[str, set[str]]:
    pe = pefile.PE(str(exe))
    out = {
        imp.dll.decode().lower(): {i.name.decode() for i in imp.imports if i.name}
        for imp in pe.DIRECTORY_ENTRY_IMPORT
    }
    pe.close()
    return out


def _mc(*argv: str | Path) -> None:
    assert cli_main(["mc", *map(str, argv)]) == 0


@slow
def test_program_links_with_etwmc_resources(tmp_path: Path) -> None:
    assert CC and CXX and WINDRES
    gen = tmp_path / "etw"
    _mc("-um", "-h", gen, "-r", gen, EXAMPLE / "greeter.man")
    build = [
        [CC, *WARNINGS, "-I", str(gen), "-c", str(EXAMPLE / "greeter.c"), "-o", "greeter.o"],
        [CXX, *WARNINGS, "-I", str(gen), "-c", str(EXAMPLE / "farewell.cpp"), "-o", "farewell.o"],
        [WINDRES, "-I", str(gen), "-O", "coff", "-i", str(gen / "greeter.rc"), "-o", "res.o"],
        [CXX, "greeter.o", "farewell.o", "res.o", "-ladvapi32", "-o", "greeter.exe"],
    ]
    for cmd in build:
        step = _run(cmd, tmp_path)
        assert step.returncode == 0, step.stderr
    exe = tmp_path / "greeter.exe"
    res = _resources(exe)
    assert res[("WEVT_TEMPLATE", 1)] == (gen / "greeterTEMP.BIN").read_bytes()
    assert res[(11, 1)] == (gen / "MSG00001.bin").read_bytes()  # RT_MESSAGETABLE
    assert {"EventRegister", "EventWriteTransfer", "EventUnregister", "EventSetInformation"} <= (
        _imports(exe)["advapi32.dll"]
    )


@slow
def test_program_writes_through_contexts(tmp_path: Path) -> None:
    assert CC
    _mc("-um", "-h", tmp_path, "-r", tmp_path, HELLO)
    (tmp_path / "contexts.c").write_text(
        "#include <windows.h>\n"
        "#define MCGEN_ENABLE_FORCONTEXT_CODE_GENERATION\n"
        '#include "hello.h"\n'
        "static McGenContext_Etwmc_Examples_Hello First, Second;\n"
        "int main(void) {\n"
        "    ULONG a = EventRegisterEtwmc_Examples_Hello_ForContext(&First);\n"
        "    ULONG b = EventRegisterByGuidEtwmc_Examples_Hello_ForContext(\n"
        "        HELLO_PROVIDER, &Second);\n"
        "    if (EventEnabledHello_ForContext(&First)) {\n"
        '        EventWriteHello_ForContext(&First, L"first", 1, 2);\n'
        "    }\n"
        '    EventWriteRequestStart_ForContextAssumeEnabled(&Second, 7, "path", 0);\n'
        "    (void)Etwmc_Examples_HelloHandle_ForContext(&Second);\n"
        "    EventUnregisterEtwmc_Examples_Hello_ForContext(&Second);\n"
        "    EventUnregisterEtwmc_Examples_Hello_ForContext(&First);\n"
        "    return (int)(a | b);\n"
        "}\n"
    )
    step = _run([CC, *WARNINGS, "contexts.c", "-ladvapi32", "-o", "contexts.exe"], tmp_path)
    assert step.returncode == 0, step.stderr
    assert {"EventRegister", "EventWriteTransfer", "EventUnregister"} <= (
        _imports(tmp_path / "contexts.exe")["advapi32.dll"]
    )
    # A context of another type does not compile.
    (tmp_path / "wrong.c").write_text(
        "#include <windows.h>\n"
        "#define MCGEN_ENABLE_FORCONTEXT_CODE_GENERATION\n"
        '#include "hello.h"\n'
        "static MCGEN_TRACE_CONTEXT Other;\n"
        "int main(void) { return EventEnabledHello_ForContext(&Other); }\n"
    )
    wrong = _run([CC, *WARNINGS, "-c", "wrong.c", "-o", "wrong.o"], tmp_path)
    assert wrong.returncode != 0 and "McGenCheckContextType_Etwmc_Examples_Hello" in wrong.stderr


def test_driver_links_against_ntoskrnl(tmp_path: Path, ddk: Path) -> None:
    assert CC
    _mc("-km", "-h", tmp_path, "-r", tmp_path, HELLO)
    (tmp_path / "driver.c").write_text(
        "#include <ntifs.h>\n"
        '#include "hello.h"\n'
        "static void Unload(PDRIVER_OBJECT d) { (void)d; EventUnregisterEtwmc_Examples_Hello(); }\n"
        "NTSTATUS DriverEntry(PDRIVER_OBJECT d, PUNICODE_STRING r) {\n"
        "    (void)r;\n"
        "    EventRegisterEtwmc_Examples_Hello();\n"
        '    EventWriteHello(NULL, L"driver", 1, 2);\n'
        '    EventWriteRequestStart(NULL, 7, "path", 0);\n'
        "    d->DriverUnload = Unload;\n"
        "    return STATUS_SUCCESS;\n"
        "}\n"
    )
    steps = [
        [CC, *WARNINGS, "-I", str(ddk), "-c", "driver.c", "-o", "driver.o"],
        [CC, "-nostdlib", "-shared", "-Wl,--subsystem,native", "-Wl,--entry,DriverEntry",
         "driver.o", "-lntoskrnl", "-o", "hello.sys"],
    ]  # fmt: skip
    for cmd in steps:
        step = _run(cmd, tmp_path)
        assert step.returncode == 0, step.stderr
    imports = _imports(tmp_path / "hello.sys")["ntoskrnl.exe"]
    assert {"EtwRegister", "EtwWriteTransfer", "EtwUnregister"} <= imports


@pytest.fixture
def etwmc_on_path(tmp_path: Path) -> Iterator[Path]:
    """An ``etwmc`` command for CMake: this interpreter running etwmc's CLI."""
    script = tmp_path / "bin" / "etwmc"
    script.parent.mkdir()
    script.write_text(
        f"#!{sys.executable}\nimport sys\nfrom etwmc.cli import main\nsys.exit(main())\n"
    )
    script.chmod(0o755)
    yield script


@slow
@pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is not installed")
def test_cmake_example_cross_builds(tmp_path: Path, etwmc_on_path: Path) -> None:
    build = tmp_path / "build"
    configure = _run(
        [
            "cmake", "-S", str(EXAMPLE), "-B", str(build),
            f"-DCMAKE_TOOLCHAIN_FILE={EXAMPLE / 'mingw-w64-x86_64.cmake'}",
            f"-DETWMC={etwmc_on_path}",
        ]
    )  # fmt: skip
    assert configure.returncode == 0, configure.stdout + configure.stderr
    made = _run(["cmake", "--build", str(build)])
    assert made.returncode == 0, made.stdout + made.stderr
    assert "warning" not in made.stdout.lower()
    res = _resources(build / "greeter.exe")
    assert res[("WEVT_TEMPLATE", 1)] == (build / "etw" / "greeterTEMP.BIN").read_bytes()
    assert res[(11, 1)] == (build / "etw" / "MSG00001.bin").read_bytes()

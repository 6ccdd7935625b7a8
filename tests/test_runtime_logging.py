"""EtwLoggingHandler: Python log records as events of the provider etwmc ships, decoded
with the shipped manifest and binaries; the shipped files equal what compile writes."""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from etwmc.cli import main
from etwmc.compile import compile_manifest
from etwmc.guid import provider_guid
from etwmc.options import CompileOptions
from etwmc.runtime import (
    EtwLoggingHandler,
    PayloadFilter,
    activity,
    decode_payload,
    get_backend,
)
from etwmc.runtime.backends.inproc import InProcBackend, Session
from etwmc.runtime.backends.null import NullBackend
from etwmc.runtime.providers import python_logging
from etwmc.testing import assert_event, assert_no_event

SHIPPED = Path(python_logging.__file__).parent
MANIFEST = SHIPPED / "python_logging.man"
NAME = "Etwmc-Python-Logging"


@pytest.fixture
def logger() -> Iterator[logging.Logger]:
    # A logger of its own, outside logging's tree: no other handler sees its records.
    log = logging.Logger(f"etwmc.test.{uuid.uuid4().hex[:8]}", level=1)
    yield log
    for handler in list(log.handlers):
        log.removeHandler(handler)
        handler.close()


def attach(logger: logging.Logger, session: Session) -> EtwLoggingHandler:
    session.enable(NAME_GUID, level=5)
    handler = EtwLoggingHandler(backend=session.backend)
    logger.addHandler(handler)
    return handler


NAME_GUID = provider_guid(NAME)


def fields(record: object) -> dict[str, object]:
    return decode_payload(python_logging._T0, record.user_data)  # type: ignore[attr-defined]


# -- the shipped provider -----------------------------------------------------------------------


def test_shipped_files_are_what_compile_writes() -> None:
    result = compile_manifest(MANIFEST, CompileOptions(resource_dll=True, verify=True))
    assert result.ok, result.diagnostics
    assert set(result.files) == {
        "python_logging.py",
        "python_loggingTEMP.BIN",
        "python_logging_MSG00001.bin",
        "python_logging.rc",
        "etwmc_python_logging.dll",
    }
    stale = [n for n, data in result.files.items() if (SHIPPED / n).read_bytes() != data]
    assert not stale, (
        f"{stale} are stale; regenerate them with: etwmc compile "
        "etwmc/runtime/providers/python_logging.man -o etwmc/runtime/providers --resource-dll"
    )


def test_provider_guid_is_the_hash_of_its_name() -> None:
    handler = EtwLoggingHandler(backend=NullBackend())
    try:
        # the EventSource convention of etw-semantics.md, as `etwmc guid` computes it
        assert handler.provider_guid == NAME_GUID == python_logging.PYTHON_LOGGING.GUID
    finally:
        handler.close()


# -- what a record becomes ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("levelno", "event_id", "etw_level"),
    [
        (logging.CRITICAL, 1, 1),
        (logging.ERROR, 2, 2),
        (logging.WARNING, 3, 3),
        (logging.INFO, 4, 4),
        (logging.DEBUG, 5, 5),
        (60, 1, 1),  # above CRITICAL
        (45, 2, 2),  # custom levels take the ETW level of the standard level below them
        (25, 4, 4),
        (15, 5, 5),
        (1, 5, 5),
    ],
)
def test_levels_map_to_etw_levels(
    etw_session: Session, logger: logging.Logger, levelno: int, event_id: int, etw_level: int
) -> None:
    attach(logger, etw_session)
    logger.log(levelno, "message")
    record = assert_event(etw_session, event_id, level=etw_level, count=1)
    assert fields(record)["Level"] == levelno


def test_fields(etw_session: Session, logger: logging.Logger) -> None:
    attach(logger, etw_session)
    logger.info("hello %s, %d", "world", 42)
    try:
        1 / 0  # noqa: B018
    except ZeroDivisionError:
        logger.exception("it failed")
    logger.warning("with stack", stack_info=True)
    info, error, warning = etw_session.events()
    assert fields(info) == {
        "Logger": logger.name,
        "Level": logging.INFO,
        "Message": "hello world, 42",
        "Exception": "",
    }
    err = fields(error)
    assert err["Message"] == "it failed"
    assert str(err["Exception"]).startswith("Traceback (most recent call last):")
    assert str(err["Exception"]).endswith("ZeroDivisionError: division by zero")
    assert "test_fields" in str(fields(warning)["Exception"])  # the stack


def test_current_activity_id(etw_session: Session, logger: logging.Logger) -> None:
    attach(logger, etw_session)
    logger.info("outside")
    with activity() as act:
        logger.info("inside")
    outside, inside = etw_session.events()
    assert outside.activity_id == uuid.UUID(int=0)
    assert inside.activity_id.bytes_le == act.id


def test_awkward_strings(etw_session: Session, logger: logging.Logger) -> None:
    attach(logger, etw_session)
    logger.info("a\0b")  # a NUL would end the string early for decoders
    logger.info("file \udcff name")  # a lone surrogate, as surrogateescape makes
    logger.info("x" * 100_000)  # longer than an event can hold
    nul, surrogate, long = (fields(r)["Message"] for r in etw_session.events())
    assert nul == "a\ufffdb"
    assert surrogate == "file \ufffd name"
    assert isinstance(long, str) and 15_990 <= len(long) <= 16_000
    kept = long.index(" [")
    assert long[:kept] == "x" * kept
    assert long[kept:] == f" [... {100_000 - kept} more characters cut to fit the event]"


def utf16_units(text: object) -> int:
    assert isinstance(text, str)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def test_astral_text_is_cut_by_its_utf16_size_and_says_so(
    etw_session: Session, logger: logging.Logger
) -> None:
    """Characters outside the BMP take two UTF-16 units: 16,000 of them fill twice the
    message's budget.  With a long traceback the record used to exceed 64 KiB, and
    vanished (status 534, nothing counted)."""
    handler = attach(logger, etw_session)
    clef = "\U0001d11e"
    try:
        raise ValueError(clef * 20_000)
    except ValueError:
        logger.exception("%s", clef * 16_000)
    [record] = etw_session.events()
    got = fields(record)
    message, exception = got["Message"], got["Exception"]
    assert isinstance(message, str) and isinstance(exception, str)
    assert utf16_units(message) <= 16_000 and utf16_units(exception) <= 12_000
    assert message.startswith(clef * 7_900)
    assert message.endswith("more characters cut to fit the event]")
    dropped = int(message.rsplit("[... ", 1)[1].split()[0])
    assert message.count(clef) + dropped == 16_000  # the note counts what was cut
    assert exception.startswith("[... ") and "earlier characters cut" in exception
    assert exception.endswith(clef * 5_000)  # the end of the traceback is kept
    assert "\ud834" not in exception.replace(clef, "")  # no half of a pair survives
    assert handler.events_lost == 0


def test_a_refused_write_is_counted(etw_session: Session, logger: logging.Logger) -> None:
    handler = attach(logger, etw_session)
    full = etw_session.backend.session("one event", capacity=1).enable(NAME_GUID, level=5)
    logger.error("taken")
    logger.error("no room")  # every dependent session loses it (ETW's delivery rule)
    logger.error("no room either")
    assert handler.events_lost == 2 and handler.last_status == 8
    assert full.events_lost == 2
    full.stop()


def test_records_of_any_size_and_plane_arrive_or_are_counted(
    etw_session: Session, logger: logging.Logger
) -> None:
    """A bounded stress run: random mixes of BMP and astral text, message and traceback
    of every size up to far beyond an event; each record gives one event of at most
    64 KiB, or counts as lost."""
    import random

    handler = attach(logger, etw_session)
    rng = random.Random(1234)
    alphabet = ["a", "\u00e9", "\u4e2d", "\U0001f600", "\U0001d11e", "\n", "\0", "\udcff"]
    sent = 0
    for _ in range(60):

        def text(most: int) -> str:
            return "".join(rng.choices(alphabet, k=rng.randrange(most)))

        try:
            raise RuntimeError(text(30_000))
        except RuntimeError:
            logger.error("%s", text(40_000), exc_info=rng.random() < 0.7)
        sent += 1
    events = etw_session.events()
    assert len(events) + handler.events_lost == sent
    assert handler.events_lost == 0
    for record in events:
        assert len(record.user_data) <= 0xFFFF
        got = fields(record)
        assert utf16_units(got["Message"]) <= 16_000
        assert utf16_units(got["Exception"]) <= 12_000


def test_session_level_and_filters_apply(etw_session: Session, logger: logging.Logger) -> None:
    handler = attach(logger, etw_session)
    etw_session.enable(
        NAME_GUID, level=3, filters=[PayloadFilter(3, [("Message", "CONTAINS", "disk")])]
    )
    logger.info("too verbose")
    logger.warning("disk full")
    logger.warning("cpu hot")
    logger.error("disk gone")  # event 2: the payload filter concerns event 3 only
    assert [fields(r)["Message"] for r in etw_session.events()] == ["disk full", "disk gone"]
    assert handler.backend is etw_session.backend


# -- disabled, backends, life cycle -----------------------------------------------------------


def test_disabled_handler_touches_nothing(logger: logging.Logger) -> None:
    backend = InProcBackend()
    handler = EtwLoggingHandler(backend=backend)
    try:
        logger.addHandler(handler)
        calls: list[str] = []

        class Spy(logging.Filter):
            def filter(self, record: logging.LogRecord) -> bool:
                calls.append(record.getMessage())
                return True

        handler.addFilter(Spy())
        logger.info("%d", "not a number")  # getMessage would raise: never called
        assert calls == []
        session = backend.session().enable(NAME_GUID, level=5)
        logger.info("now %s", "on")
        assert calls == ["now on"]
        assert_event(session, 4, Message="now on")
    finally:
        handler.close()


def test_session_enabled_only_for_errors(etw_session: Session, logger: logging.Logger) -> None:
    etw_session.enable(NAME_GUID, level=2)
    logger.addHandler(EtwLoggingHandler(backend=etw_session.backend))
    logger.warning("dropped")
    logger.error("kept")
    assert_no_event(etw_session, 3)
    assert_event(etw_session, 2, Message="kept")


def test_backend_by_name_and_default(etw_session: Session, logger: logging.Logger) -> None:
    # the default backend is the session's during the test (ETWMC_BACKEND=inproc)
    etw_session.enable(NAME_GUID)
    handler = EtwLoggingHandler()
    assert handler.backend is etw_session.backend is get_backend("inproc")
    logger.addHandler(handler)
    logger.info("default")
    assert_event(etw_session, 4, Message="default")


def test_one_registration_shared_and_released(logger: logging.Logger) -> None:
    backend = InProcBackend()
    first = EtwLoggingHandler(backend=backend)
    second = EtwLoggingHandler(backend=backend)
    with pytest.raises(ValueError, match="registered with the inproc backend"):
        EtwLoggingHandler(backend="null")
    first.close()
    assert python_logging.PYTHON_LOGGING.runtime.backend is backend  # second is open
    second.close()
    assert python_logging.PYTHON_LOGGING.runtime.backend is None
    assert second.backend is None
    other = EtwLoggingHandler(backend="null")  # free again
    assert isinstance(other.backend, NullBackend)
    other.close()


# -- decoded with the shipped manifest and binaries ---------------------------------------------


def test_records_decode_with_the_shipped_metadata(
    tmp_path: Path, logger: logging.Logger, etw_session: Session
) -> None:
    trace = tmp_path / "log.etwmc"
    with etw_session.backend.session("file", path=trace) as s:
        s.enable(NAME_GUID, level=5)
        logger.addHandler(EtwLoggingHandler(backend=etw_session.backend))
        logger.warning("disk %s is full", "C:")
        try:
            raise KeyError("k")
        except KeyError:
            logger.exception("lookup")
    for metadata in (
        ["--manifest", str(MANIFEST)],
        [
            "--wevt",
            str(SHIPPED / "python_loggingTEMP.BIN"),
            "--messages",
            str(SHIPPED / "python_logging_MSG00001.bin"),
        ],
    ):
        out = tmp_path / "decoded.json"
        assert main(["decode", str(trace), *metadata, "--format", "json", "-o", str(out)]) == 0
        warning, error = json.loads(out.read_text(encoding="utf-8"))
        assert warning["fields"] == {
            "Logger": logger.name,
            "Level": 30,
            "Message": "disk C: is full",
            "Exception": "",
        }
        assert warning["message"] == f"{logger.name}: disk C: is full\r\n"
        assert error["fields"]["Message"] == "lookup"
        assert error["fields"]["Exception"].endswith("KeyError: 'k'")

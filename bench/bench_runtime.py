"""Cost of generated event functions, as ratios against baselines measured in the same
process (absolute times vary by machine; ratios much less).

1. a disabled event call vs an empty function taking the same arguments (target <= 1.2x),
   both against a function with the event's exact parameter list (three, the ``_kw``
   marker, ``activity_id``, ``related_activity_id``: all positional-or-keyword with
   defaults, which CPython calls on its fast path; a bare ``*`` would cost ~20 ns more
   per call) and, for information, against a plain three-parameter function (<= 1.5x);
2. for information, a disabled ``logging.debug`` vs a disabled event, with its ceiling:
   ``logging.debug`` vs the empty function with the event's parameters.  The old target
   (>= 3x) measured the logging module more than etwmc: a disabled event is one call and
   one flag test, and cannot cost less than the call; the ratio can never pass the
   ceiling, which is about 3.2x on CPython 3.11;
3. an enabled (UInt32, UInt32, UnicodeString) event into a null sink vs a hand-written
   ``struct.pack`` + ``str.encode("utf-16-le")`` of the same payload (target <= 2.5x);
4. the same event written into an in-process session with a buffer (target <= 2x), and,
   for information, against floors: what storing an event takes at the least, the
   packing plus a timestamp (``time.time_ns``, as the backend) and an append to a deque
   bounded like the session's (10,000), behind a lock (``acquire``/``release``) and
   without one (``deque.append`` is thread-safe by itself: what the backend's common
   write does).  The floors pack as generated code does (``codecs.utf_16_le_encode``,
   about 140 ns cheaper than ``str.encode``, which looks the codec up by name on every
   call), so that the event / floor ratio is the runtime's own overhead; the floor as
   it was first measured (``str.encode`` and ``with lock:``, which costs twice
   ``acquire()``/``release()`` on CPython 3.11) is printed too;
5. a log record offered to an ``EtwLoggingHandler`` whose provider no session enables
   (``handler.handle(record)``, what ``logging`` calls per record) vs a disabled event
   (target <= 1.0x: no more than a disabled generated event).

Each figure is the CPU time (``time.process_time``) per call of the best of R rounds;
the statements run interleaved, one batch each per round, so that a busy machine slows
every candidate and its baseline alike.  Three copies of the generated module are
loaded: one unregistered (disabled), one registered with the null sink, one with the
in-process backend and a session that enables it.

Run: ``python bench/bench_runtime.py`` (``--quick`` for fewer rounds).  Exit status 1
when a target is missed.
"""

from __future__ import annotations

import argparse
import codecs
import collections
import importlib.util
import logging
import struct
import sys
import tempfile
import threading
import time
import timeit
import uuid
from pathlib import Path
from types import ModuleType

from etwmc.compile import compile_manifest
from etwmc.options import CompileOptions
from etwmc.runtime import EtwLoggingHandler
from etwmc.runtime.backends.inproc import InProcBackend

GUID = uuid.UUID("7d5f3a3e-8c1b-4b7e-9f41-2f6e0c9d1a55")
MANIFEST = f"""<?xml version="1.0" encoding="UTF-8"?>
<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
    xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events">
  <instrumentation><events>
    <provider name="Etwmc-Bench" guid="{{{GUID}}}" symbol="BENCH"
              resourceFileName="b.dll" messageFileName="b.dll">
      <templates>
        <template tid="T">
          <data name="a" inType="win:UInt32"/>
          <data name="b" inType="win:UInt32"/>
          <data name="s" inType="win:UnicodeString"/>
        </template>
      </templates>
      <events>
        <event value="1" symbol="Sample" level="win:Informational" template="T"/>
      </events>
    </provider>
  </events></instrumentation>
</instrumentationManifest>
"""


class NullSink:
    """A backend that enables every provider at registration and drops every event."""

    name = "null-sink"

    def register(self, guid: uuid.UUID, callback):  # type: ignore[no-untyped-def]
        callback(1, 5, 0xFFFF_FFFF_FFFF_FFFF, 0)
        return 1

    def set_traits(self, handle: object, blob: bytes) -> int:
        return 0

    def write(self, handle, descriptor, activity, related, payload):  # type: ignore[no-untyped-def]
        return 0

    def unregister(self, handle: object) -> None:
        return None


def compiled_module() -> Path:
    folder = Path(tempfile.mkdtemp(prefix="etwmc-bench-"))
    man = folder / "bench.man"
    man.write_text(MANIFEST, encoding="utf-8")
    result = compile_manifest(man, CompileOptions(binary=False))
    if not result.ok:
        raise SystemExit(f"bench manifest does not compile: {result.diagnostics}")
    [(name, data)] = result.files.items()
    (folder / name).write_bytes(data)
    return folder / name


def load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def interleaved(
    stmts: dict[str, str], env: dict[str, object], number: int, repeat: int
) -> dict[str, float]:
    """CPU ns per call of each statement: the best of ``repeat`` interleaved rounds."""
    timers = {
        label: timeit.Timer(stmt, globals=env, timer=time.process_time)
        for label, stmt in stmts.items()
    }
    best = dict.fromkeys(stmts, float("inf"))
    for _ in range(repeat):
        for label, timer in timers.items():
            best[label] = min(best[label], timer.timeit(number) / number * 1e9)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds")
    args = parser.parse_args()
    number, repeat = (20_000, 5) if args.quick else (100_000, 15)

    path = compiled_module()
    off = load(path, "etwmc_bench_off")
    null = load(path, "etwmc_bench_null")
    inproc = load(path, "etwmc_bench_inproc")
    null.register(NullSink())
    backend = InProcBackend()
    session = backend.session("bench", buffer=10_000).enable(GUID)
    inproc.register(backend)
    assert not off.is_enabled_Sample()
    handler = EtwLoggingHandler(backend=InProcBackend())  # registered, no session enables it
    record = logging.LogRecord("etwmc.bench", logging.INFO, __file__, 1, "x %s", ("y",), None)
    assert null.is_enabled_Sample() and inproc.is_enabled_Sample()

    log = logging.getLogger("etwmc.bench")
    log.setLevel(logging.WARNING)
    pack = struct.Struct("<II").pack

    def empty(a: int, b: int, s: str) -> None:
        pass

    def empty_same(
        a: int,
        b: int,
        s: str,
        _kw: object = None,
        activity_id: uuid.UUID | None = None,
        related_activity_id: uuid.UUID | None = None,
    ) -> None:
        pass

    def hand_written(a: int, b: int, s: str) -> bytes:
        return pack(a, b) + s.encode("utf-16-le") + b"\x00\x00"

    now = time.time_ns
    u16 = codecs.utf_16_le_encode
    lock = threading.Lock()
    acquire, release = lock.acquire, lock.release
    first: collections.deque[tuple[bytes, int]] = collections.deque(maxlen=10_000)
    locked: collections.deque[tuple[bytes, int]] = collections.deque(maxlen=10_000)
    unlocked: collections.deque[tuple[bytes, int]] = collections.deque(maxlen=10_000)

    def first_floor(a: int, b: int, s: str) -> None:  # as the floor was first measured
        payload = pack(a, b) + s.encode("utf-16-le") + b"\x00\x00"
        with lock:
            first.append((payload, now()))

    def locked_floor(a: int, b: int, s: str) -> None:
        payload = pack(a, b) + u16(s)[0] + b"\x00\x00"
        acquire()
        locked.append((payload, now()))
        release()

    def unlocked_floor(a: int, b: int, s: str) -> None:
        unlocked.append((pack(a, b) + u16(s)[0] + b"\x00\x00", now()))

    env: dict[str, object] = {
        "disabled": off.write_Sample,
        "null": null.write_Sample,
        "inproc": inproc.write_Sample,
        "empty": empty,
        "empty_same": empty_same,
        "log": log,
        "hand": hand_written,
        "first_floor": first_floor,
        "locked_floor": locked_floor,
        "unlocked_floor": unlocked_floor,
        "s": "hello world",
        "handle": handler.handle,
        "record": record,
    }
    ns = interleaved(
        {
            "disabled event": "disabled(1, 2, s)",
            "empty, same params": "empty_same(1, 2, s)",
            "empty, 3 params": "empty(1, 2, s)",
            "disabled logging": "log.debug('x %s %s %s', 1, 2, s)",
            "enabled, null sink": "null(1, 2, s)",
            "enabled, in-process": "inproc(1, 2, s)",
            "hand-written pack": "hand(1, 2, s)",
            "floor, first form": "first_floor(1, 2, s)",
            "floor, locked": "locked_floor(1, 2, s)",
            "floor, lock-free": "unlocked_floor(1, 2, s)",
            "disabled log record": "handle(record)",
        },
        env,
        number,
        repeat,
    )
    assert session.delivered > 0
    null.unregister()
    inproc.unregister()
    session.stop()
    handler.close()

    # (what is compared, candidate, baseline, how, target)
    rows = [
        ("disabled event / empty function, same parameters",
         "disabled event", "empty, same params", "<=", 1.2),
        ("disabled event / empty function, 3 parameters",
         "disabled event", "empty, 3 params", "<=", 1.5),
        ("disabled logging.debug / disabled event",
         "disabled logging", "disabled event", "", None),
        ("  its ceiling: logging.debug / empty, same parameters",
         "disabled logging", "empty, same params", "", None),
        ("enabled event (null sink) / hand-written pack",
         "enabled, null sink", "hand-written pack", "<=", 2.5),
        ("enabled event (in-process session) / hand-written pack",
         "enabled, in-process", "hand-written pack", "<=", 2.0),
        ("floor, first form (str.encode, with lock) / hand pack",
         "floor, first form", "hand-written pack", "", None),
        ("floor, locked (acquire/release) / hand pack",
         "floor, locked", "hand-written pack", "", None),
        ("floor, lock-free (deque.append) / hand pack",
         "floor, lock-free", "hand-written pack", "", None),
        ("enabled event (in-process session) / locked floor",
         "enabled, in-process", "floor, locked", "", None),
        ("enabled event (in-process session) / lock-free floor",
         "enabled, in-process", "floor, lock-free", "", None),
        ("disabled EtwLoggingHandler.handle / disabled event",
         "disabled log record", "disabled event", "<=", 1.0),
    ]  # fmt: skip
    for label, value in ns.items():
        print(f"{label:20s} {value:8.1f} ns")
    assert first and locked and unlocked
    failed = 0
    for label, num, den, op, target in rows:
        ratio = ns[num] / ns[den]
        if target is None:  # for information
            print(f"{label:56s} {ratio:5.2f}x")
            continue
        ok = ratio <= target if op == "<=" else ratio >= target
        failed += not ok
        print(f"{label:56s} {ratio:5.2f}x  (target {op} {target}x)  {'ok' if ok else 'MISSED'}")
    ceiling = ns["disabled logging"] / ns["empty, same params"]
    print(
        "note: logging.debug / disabled event is for information (it was a >= 3x target):\n"
        "a disabled event is one call and one flag test and cannot cost less than an empty\n"
        "function with its parameters, so the ratio cannot pass logging.debug / that\n"
        f"function ({ceiling:.2f}x here), which measures the logging module; the disabled\n"
        "event's own target is the first line."
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

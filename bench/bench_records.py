"""What a record costs, declared as etwmc.record.Record and as a frozen, slotted dataclass.

Run: .venv/bin/python bench/bench_records.py [--rounds N]

Two figures each way, best CPU time of interleaved rounds (``time.process_time``):

* defining a class: the model's ``Event`` (15 fields, keyword-only) and
  ``diagnostics.Span`` (3 positional fields, ordered), as the package's sixty-odd
  records on the lint path are defined at every start-up;
* making an instance: a 3-field record by position (a span, made for nearly every
  element read), a 6-field one by keyword, an 18-field one by keyword (the Python
  generator's event context).

Whole commands are measured by bench/run.py (``--only compile``); etwmc/CONVENTIONS.md
gives both this file's figures and that one's.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from etwmc.record import Record  # noqa: E402

_FIELDS = 15


def _record_class(n: int, *, kw_only: bool, order: bool = False) -> type:
    namespace: dict[str, Any] = {"__annotations__": {f"f{i}": "int" for i in range(n)}}
    namespace.update({f"f{i}": i for i in range(1, n)})  # all but the first have defaults
    return type(Record)("R", (Record,), namespace, kw_only=kw_only, order=order)


def _dataclass(n: int, *, kw_only: bool, order: bool = False) -> type:
    namespace: dict[str, Any] = {"__annotations__": {f"f{i}": "int" for i in range(n)}}
    namespace.update({f"f{i}": i for i in range(1, n)})
    cls = type("D", (), namespace)
    return dataclasses.dataclass(frozen=True, slots=True, kw_only=kw_only, order=order)(cls)


def _best(fn: Callable[[], object], number: int, rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        t = time.process_time()
        for _ in range(number):
            fn()
        best = min(best, (time.process_time() - t) / number)
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--rounds", type=int, default=7)
    rounds = ap.parse_args().rounds
    print("defining a class (ms)              Record  dataclass")
    for label, n, kw, order in (("15 fields, keyword-only", _FIELDS, True, False),
                                ("3 fields, positional, ordered", 3, False, True)):  # fmt: skip
        r = _best(lambda: _record_class(n, kw_only=kw, order=order), 50, rounds)  # noqa: B023
        d = _best(lambda: _dataclass(n, kw_only=kw, order=order), 50, rounds)  # noqa: B023
        print(f"  {label:32s} {r * 1e3:6.3f}  {d * 1e3:9.3f}  ({d / r:.0f}x)")
    print("making an instance (us)            Record  dataclass")
    for label, n, kw in (("3 fields by position", 3, False), ("6 fields by keyword", 6, True),
                         ("18 fields by keyword", 18, True)):  # fmt: skip
        rec, dc = _record_class(n, kw_only=kw), _dataclass(n, kw_only=kw)
        values = {f"f{i}": i for i in range(n)}
        if kw:
            r = _best(lambda: rec(**values), 20_000, rounds)  # noqa: B023
            d = _best(lambda: dc(**values), 20_000, rounds)  # noqa: B023
        else:
            args = tuple(values.values())
            r = _best(lambda: rec(*args), 20_000, rounds)  # noqa: B023
            d = _best(lambda: dc(*args), 20_000, rounds)  # noqa: B023
        print(f"  {label:32s} {r * 1e6:6.2f}  {d * 1e6:9.2f}  ({r / d:.2f}x the dataclass)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

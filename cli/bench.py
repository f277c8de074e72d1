"""``remask bench <name>``: the benchmarks, each a module of ``remask.bench``.

Every benchmark module has ``register(subparsers)`` (which sets ``func``) and ``run(args)``;
this command only gathers them, so a benchmark lands by adding its module, and one not yet
written is simply absent from ``remask bench --help``. It also owns what every benchmark shares
at its edges: ``--json OUT`` is checked before the benchmark starts (not found unwritable after
an hour of work), and a report that still cannot be written is one line and exit 2.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable

from .common import own_errors

BENCHES = ("infill", "inline", "speed", "edits", "quality", "lines", "lsp", "stress")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("bench", help="benchmarks: a table on screen, JSON on disk")
    benches = p.add_subparsers(dest="bench", required=True, metavar="BENCH")
    for name in BENCHES:
        try:
            module = importlib.import_module(f"remask.bench.{name}")
        except ModuleNotFoundError as e:
            if e.name != f"remask.bench.{name}":
                raise
            continue  # a benchmark not written yet
        module.register(benches)
        parser = benches.choices[name]
        parser.set_defaults(func=_guarded(name, parser.get_default("func")))
    own_errors(benches)


def _guarded(name: str, run: Callable[[argparse.Namespace], int]
             ) -> Callable[[argparse.Namespace], int]:
    """``run`` with ``--json`` checked first and a failed write reported as one line, exit 2."""
    def guarded(args: argparse.Namespace) -> int:
        from remask.bench.checks import check_out
        from remask.bench.report import ReportWriteError

        try:
            check_out(getattr(args, "json", None))
        except ValueError as e:
            print(f"remask bench {name}: {e}", file=sys.stderr)
            return 2
        try:
            return run(args)
        except ReportWriteError as e:
            print(f"remask bench {name}: --json {e}", file=sys.stderr)
            return 2
    return guarded

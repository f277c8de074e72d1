"""``remask bench <name>``: the benchmarks, each a module of ``remask.bench``.

Every benchmark module has ``register(subparsers)`` (which sets ``func``) and ``run(args)``;
this command only gathers them, so a benchmark lands by adding its module, and one not yet
written is simply absent from ``remask bench --help``.
"""

from __future__ import annotations

import argparse
import importlib

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
    own_errors(benches)

"""``remask repair FILE``: repair the statements that no longer parse, and show (or write) it."""

from __future__ import annotations

import argparse
import sys

from remask.diffing.checks import python_ok
from remask.diffing.files import SourceError
from remask.diffing.rewriter import Rewriter
from remask.diffing.syntax import parse

from .common import UsageError, add_input_args, engine_from_args, fail, read_input
from .edit_common import add_rewrite_args, emit, rewriter_config, unchanged
from .progress import model_status


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("repair", help="repair the syntax errors of a file")
    add_input_args(p)
    add_rewrite_args(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        text, path = read_input(args)
        if python_ok(text, path, None) and not parse(text, path).has_errors():
            return unchanged(args, path, text, "no syntax errors; nothing to repair")
        with model_status() as status:
            status.engine = engine = engine_from_args(args)
            config = rewriter_config(args, engine)
            proposal = Rewriter(engine, config).repair(text, path, on_step=status.on_step)
    except (SourceError, UsageError) as e:
        return fail("repair", str(e))
    if proposal is None:
        print(f"{path}: no repair that parses; file left as it was", file=sys.stderr)
    return emit(args, path, text, proposal)

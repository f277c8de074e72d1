"""``remask repair FILE``: repair the statements that no longer parse, and show (or write) it."""

from __future__ import annotations

import argparse
import sys

from remask.diffing.checks import python_ok
from remask.diffing.files import SourceError, read_source
from remask.diffing.rewriter import Rewriter
from remask.diffing.syntax import parse

from .common import UsageError, engine_from_args, fail
from .edit_common import add_rewrite_args, emit, rewriter_config, unchanged
from .progress import model_status


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("repair", help="repair the syntax errors of a file")
    p.add_argument("file")
    add_rewrite_args(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        text = read_source(args.file)
        if python_ok(text, args.file, None) and not parse(text, args.file).has_errors():
            return unchanged(args, args.file, text, "no syntax errors; nothing to repair")
        with model_status() as status:
            status.engine = engine = engine_from_args(args)
            config = rewriter_config(args, engine)
            proposal = Rewriter(engine, config).repair(text, args.file, on_step=status.on_step)
    except (SourceError, UsageError) as e:
        return fail("repair", str(e))
    if proposal is None:
        print(f"{args.file}: no repair that parses; file left as it was", file=sys.stderr)
    return emit(args, args.file, text, proposal)

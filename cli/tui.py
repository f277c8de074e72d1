"""``remask tui FILE``: edit a file in the terminal while remask proposes and denoises live.

A FILE that does not exist opens empty, and the first save makes it, as in an editor.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from remask.bench import checks
from remask.diffing.files import SourceError, read_source
from remask.diffing.rewriter import Rewriter, RewriterConfig

from .common import UsageError, add_model_args, engine_from_args, fail


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("tui", help="edit a file with live proposals in the terminal")
    p.add_argument("file")
    p.add_argument("--candidates", type=int, default=1, help="candidates denoised per span")
    p.add_argument("--idle", type=float, default=1.0,
                   help="seconds of idle typing before follow-ups are proposed (0: on demand)")
    add_model_args(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    # Textual is imported only here, so the other commands start without it.
    from remask.tui.app import RemaskApp, TuiConfig, editable

    if args.idle < 0:
        return fail("tui", "--idle must not be negative")
    try:
        checks.rows(args.candidates, "--candidates", 1)
    except ValueError as e:
        return fail("tui", str(e))
    path = Path(args.file)
    new = not path.exists() and not path.is_symlink()  # as an editor opens a name: empty
    if new and not path.parent.is_dir():
        return fail("tui", f"{args.file}: no such file, and no folder {path.parent} to make it in")
    try:
        text = "" if new else read_source(path)
        engine = engine_from_args(args)
    except (SourceError, UsageError) as e:
        return fail("tui", str(e))
    if not editable(text):
        return fail("tui", f"{args.file}: line breaks the editor would rewrite on save "
                           "(mixed line endings, or a form feed, U+2028 or another character "
                           "it reads as one); not opened")
    rewriter = Rewriter(engine, RewriterConfig(candidates=args.candidates,
                                               sampler=engine.sampler,
                                               line_threshold=args.line_threshold))
    RemaskApp(path, text, rewriter, TuiConfig(auto_delay=args.idle or None), new=new).run()
    return 0

"""``remask moved OLD NEW``: the follow-ups of a module or package folder the user moved.

The user moved or renamed ``OLD`` to ``NEW`` (``git mv``, a file manager); every other Python
file under ``--project`` (default: the current directory) that imports it, the moved
module's own relative imports, and the config files and API docs that name it
(:mod:`remask.diffing.config_files`) get their follow-ups (:mod:`remask.diffing.moves`),
each shown as a diff or written with ``--write``; ``--json`` prints one object per changed
file, one a line. No model is loaded: the move determines every new spelling.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from remask.diffing.config_files import is_config
from remask.diffing.cycles import move_cycles
from remask.diffing.files import SourceError, project_files, python_files, read_source
from remask.diffing.moves import moved_proposal, moves_for, project_moves

from .common import fail
from .edit_common import emit


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("moved", help="update the imports of a module or package you moved")
    p.add_argument("old", help="where the module (.py) or package folder was")
    p.add_argument("new", help="where it is now")
    p.add_argument("--project", metavar="DIR", default=".",
                   help="the project whose files may import it (default: .)")
    p.add_argument("--write", action="store_true", help="replace each file (atomically)")
    p.add_argument("--json", action="store_true", help="print one JSON object per file")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    root, old, new = Path(args.project), Path(args.old), Path(args.new)
    if not root.is_dir():
        return fail("moved", f"--project {args.project}: not a directory")
    if not new.exists():
        return fail("moved", f"{args.new}: not found (move it first, e.g. git mv OLD NEW)")
    if old.exists():
        return fail("moved", f"{args.old}: still there; move it first (git mv OLD NEW)")
    if not (new.is_dir() or new.suffix in (".py", ".pyi")):
        return fail("moved", f"{args.new}: not a Python module or package folder")
    outside = [a for a, p in ((args.old, old), (args.new, new))
               if not p.resolve().is_relative_to(root.resolve())]
    if outside:
        return fail("moved", f"{outside[0]}: outside --project {args.project}")
    moves = moves_for(old.absolute(), new.absolute(), root.absolute())
    if not moves:
        return fail("moved", f"{args.old} -> {args.new}: no import can name one of them "
                    f"under {args.project}")
    files = {}
    for path in python_files(root) + project_files(root, is_config):
        try:
            files[str(path)] = read_source(path)
        except SourceError as e:
            print(f"remask moved: {e}; not followed into", file=sys.stderr)
    found = project_moves(moves, files, root.absolute())
    if not found:
        what = ", ".join(f"{m.old} -> {m.new}" for m in moves)
        print(f"remask moved: nothing under {args.project} imports it ({what}); "
              "nothing to update", file=sys.stderr)
        return 0
    code = 0
    after = dict(files)
    for path, spans in sorted(found.items()):
        proposal = moved_proposal(files[path], spans, path)
        if proposal is None:
            print(f"{path}: the follow-up would add a syntax error; file left as it was",
                  file=sys.stderr)
        else:
            after[path] = proposal.text
        code = max(code, emit(args, path, files[path], proposal))
    for cycle in move_cycles(moves, {p: t for p, t in after.items() if not is_config(p)},
                             root.absolute()):
        print(f"remask moved: warning: {cycle.said()}", file=sys.stderr)
    return code

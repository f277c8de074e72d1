"""``remask moved OLD NEW``: the follow-ups of a module or package folder moved or renamed.

The user moved or renamed ``OLD`` to ``NEW`` (``git mv``, a file manager), or asks remask to:
where ``OLD`` is still there and ``NEW`` is not, the follow-ups are shown as the move would
need them, and ``--write`` makes the move (``git mv`` for a file git tracks) before writing
them. Every other Python file under ``--project`` (default: the current directory) that
imports it, the moved module's own relative imports, and the config files and API docs that
name it (:mod:`remask.diffing.config_files`) get their follow-ups
(:mod:`remask.diffing.moves`), each shown as a diff or written with ``--write``; ``--json``
prints one object per changed file, one a line. An import cycle the move makes is a warning
(:mod:`remask.diffing.cycles`). No model is loaded: the move determines every new spelling.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from remask.diffing.config_files import is_config
from remask.diffing.cycles import move_cycles
from remask.diffing.files import SourceError, is_python, project_files, read_source
from remask.diffing.modules import is_package
from remask.diffing.moves import Move, import_name, moved_proposal, moves_for, project_moves
from remask.diffing.proposal import Proposal
from remask.diffing.relocate import Module, relocate
from remask.diffing.symbol_moves import TopLevel, symbol_move, top_level

from .common import fail
from .edit_common import emit


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("moved", help="update the imports of a module or package you move")
    p.add_argument("old", help="where the module (.py) or package folder was (or is); "
                   "FILE.py::NAME: a def or class you moved out of that module")
    p.add_argument("new", help="where it is now (or is to go: --write moves it); the module "
                   "the def or class went to")
    p.add_argument("--project", metavar="DIR", default=".",
                   help="the project whose files may import it (default: .)")
    p.add_argument("--write", action="store_true",
                   help="make the move if not made yet, and replace each file (atomically)")
    p.add_argument("--json", action="store_true", help="print one JSON object per file")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    root, old, new = Path(args.project), Path(args.old), Path(args.new)
    if not root.is_dir():
        return fail("moved", f"--project {args.project}: not a directory")
    if "::" in args.old:
        return _symbol(args, root)
    if old.absolute().resolve() == new.absolute().resolve():
        return fail("moved", f"{args.old} -> {args.new}: the same path")
    if old.exists() and new.exists():
        return fail("moved", f"{args.new}: already there, and so is {args.old}")
    if not old.exists() and not new.exists():
        return fail("moved", f"{args.old}: not found, nor {args.new}")
    there = new if new.exists() else old
    if not (there.is_dir() or there.suffix in (".py", ".pyi")):
        return fail("moved", f"{there}: not a Python module or package folder")
    if there.is_file() and new.suffix != there.suffix:
        return fail("moved", f"{args.new}: a {there.suffix} module must stay one")
    outside = [a for a, p in ((args.old, old), (args.new, new))
               if not p.absolute().resolve().is_relative_to(root.resolve())]
    if outside:
        return fail("moved", f"{outside[0]}: outside --project {args.project}")
    moves = moves_for(old.absolute(), new.absolute(), root.absolute())
    if not moves:
        return fail("moved", f"{args.old} -> {args.new}: no import can name one of them "
                    f"under {args.project}")
    if old.exists() and args.write:
        why = _move(old, new)
        if why:
            return fail("moved", f"{args.old} -> {args.new}: not moved: {why}")
    elif old.exists():
        print(f"remask moved: {args.old} is not moved yet: the follow-ups its move needs "
              "(--write moves it and writes them)", file=sys.stderr)
    return _follow(args, root, moves, done=not old.exists())


def _symbol(args: argparse.Namespace, root: Path) -> int:
    """``OLD.py::name NEW.py``: a def or class the user moved; its importers' follow-ups."""
    old_file, _, name = args.old.partition("::")
    new_file, _, new_name = args.new.partition("::")
    if new_name and new_name != name:
        return fail("moved", f"{args.new}: a moved {name} keeps its name (a rename is an "
                    "edit remask follows in the editor or the hook)")
    texts = {}
    for f in (old_file, new_file):
        path = Path(f)
        if path.suffix != ".py" or not path.is_file():
            return fail("moved", f"{f}: not a Python module")
        if not path.absolute().resolve().is_relative_to(root.resolve()):
            return fail("moved", f"{f}: outside --project {args.project}")
        try:
            texts[f] = read_source(path)
        except SourceError as e:
            return fail("moved", str(e))
    if Path(old_file).absolute().resolve() == Path(new_file).absolute().resolve():
        return fail("moved", f"{old_file} -> {new_file}: the same module")
    pasted = {}
    was, now = (top_level(texts[f]) or TopLevel(set(), {}) for f in (old_file, new_file))
    if name in was.defs:  # not moved yet: remask makes the move
        if name in now.bound:
            return fail("moved", f"{old_file} and {new_file} both define {name}: which one "
                        "stays is yours to say")
        sides = [Module(texts[f], import_name(Path(f).absolute(), root.absolute()) or "",
                        is_package(f)) for f in (old_file, new_file)]
        done = relocate(*sides, name)
        if isinstance(done, str):
            return fail("moved", f"{old_file}: {done}")
        pasted = {str(Path(old_file).resolve()): done.old, str(Path(new_file).resolve()): done.new}
        if not args.write:
            print(f"remask moved: {name} is not moved yet: the move and its follow-ups "
                  "(--write writes them)", file=sys.stderr)
    elif name not in now.bound:
        return fail("moved", f"{new_file} does not define {name}, nor does {old_file}")
    elif name in was.bound:
        print(f"remask moved: {old_file} still binds {name} (a re-export?): its importers "
              "work as they are; nothing to update", file=sys.stderr)
        return 0
    move = symbol_move(Path(old_file).absolute(), Path(new_file).absolute(), name,
                       root.absolute())
    if move is None:
        return fail("moved", f"{args.old} -> {new_file}: no import can name one of them "
                    f"under {args.project}")
    return _follow(args, root, [move], done=True, pasted=pasted)


def _move(old: Path, new: Path) -> str | None:
    """Move ``old`` to ``new``: ``git mv`` where git tracks it, else a rename; why not, or None."""
    try:
        tracked = subprocess.run(["git", "ls-files", "--error-unmatch", "--", old.name],
                                 cwd=old.parent, capture_output=True, text=True).returncode == 0
    except FileNotFoundError:  # no git: a plain rename
        tracked = False
    try:
        new.parent.mkdir(parents=True, exist_ok=True)
        if tracked:
            git = subprocess.run(["git", "mv", "--", str(old.absolute()), str(new.absolute())],
                                 cwd=old.parent, capture_output=True, text=True)
            return (git.stderr.strip().splitlines() or ["git mv failed"])[-1] \
                if git.returncode else None
        os.rename(old, new)
    except OSError as e:
        return e.strerror or str(e)
    return None


def _follow(args: argparse.Namespace, root: Path, moves: list[Move], done: bool,
            pasted: dict[str, str] | None = None) -> int:
    """Show or write every file's follow-ups; warn of the import cycles the move makes.

    ``pasted``: the texts a def's move gives its two modules (resolved path → text), the
    follow-ups found on them and each shown or written from the file as it is on disk.
    """
    files, disk = {}, {}
    for path in project_files(root, lambda n: is_python(n) or is_config(n)):
        try:
            disk[str(path)] = read_source(path)
        except SourceError as e:
            print(f"remask moved: {e}; not followed into", file=sys.stderr)
            continue
        files[str(path)] = (pasted or {}).get(str(path.resolve()), disk[str(path)])
    found = project_moves(moves, files, root.absolute())
    found |= {p: [] for p in files if files[p] != disk[p] and p not in found}
    if not found:
        what = ", ".join(f"{m.old} -> {m.new}" for m in moves)
        print(f"remask moved: nothing under {args.project} imports it ({what}); "
              "nothing to update", file=sys.stderr)
        return 0
    code = 0
    after = dict(files)
    what = "definition" if moves[0].symbol else "module"
    proposals = {path: moved_proposal(files[path], spans, path, what) if spans else
                 Proposal("rename", f"Move the {what}", [], files[path], [])
                 for path, spans in sorted(found.items())}
    broken = [p for p, prop in proposals.items() if prop is None and files[p] != disk[p]]
    if broken:  # the move itself cannot be made whole: nothing is written
        return fail("moved", f"{broken[0]}: the follow-ups would add a syntax error; "
                    "nothing moved")
    for path, proposal in proposals.items():
        if proposal is None:
            print(f"{path}: the follow-up would add a syntax error; file left as it was",
                  file=sys.stderr)
        else:
            after[path] = proposal.text
        code = max(code, emit(args, path, disk[path], proposal))  # from the disk's text
    for cycle in move_cycles(moves, {p: t for p, t in after.items() if not is_config(p)},
                             root.absolute(), done):
        print(f"remask moved: warning: {cycle.said()}", file=sys.stderr)
    return code

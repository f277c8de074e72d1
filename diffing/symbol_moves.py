"""A function or class moved to another module: which moves an edit made, as :class:`Move`s.

Cutting ``def helper`` out of ``pkg/a.py`` and pasting it into ``pkg/b.py`` breaks every
``from pkg.a import helper``, ``pkg.a.helper(…)``, ``mock.patch("pkg.a.helper")`` and
``tool = "pkg.a:helper"``. Such a move is a :class:`Move` of the dotted name (``pkg.a.helper``
→ ``pkg.b.helper``, ``symbol`` set), and its follow-ups are found as a moved module's are
(:func:`~.moves.project_moves`), with what a symbol needs besides: ``import pkg.b`` where
``pkg.a.helper`` is respelled, the new home's import of the name from the old one dropped,
and an import of it added to the old module where that still calls it.

A name the old module still binds (a re-export, ``from .b import helper``) moved nothing its
importers can see: their imports keep working, and a package may mean them as its public
face, so no move is made of it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from difflib import SequenceMatcher
from pathlib import Path
from typing import NamedTuple

from .modules import bindings
from .moves import import_name
from .respell import Move

__all__ = ["TopLevel", "moved_symbols", "same_code", "symbol_move", "top_level"]


class TopLevel(NamedTuple):
    """What a module binds at its top level, read from one parse."""

    bound: set[str]  # every name (in ``if``/``try`` blocks too)
    defs: dict[str, str]  # its defs and classes, each with its source


def top_level(text: str) -> TopLevel | None:
    """What ``text``'s module binds at its top level; None where it does not parse."""
    try:
        body = ast.parse(text).body
    except (SyntaxError, ValueError):
        return None
    lines = text.splitlines(keepends=True)  # once: get_source_segment splits per call
    return TopLevel(set(bindings(body)), {
        s.name: "".join(lines[s.lineno - 1:s.end_lineno]) for s in body
        if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)})


def same_code(a: str, b: str) -> bool:
    """Whether two defs are one moved (pasted, maybe touched up), not two that share a name.

    Half their lines or more in common, as difflib matches them.
    """
    return a == b or SequenceMatcher(None, a.splitlines(), b.splitlines(),
                                     autojunk=False).ratio() >= 0.5


def symbol_move(old_file: str | Path, new_file: str | Path, name: str, root: str | Path
                ) -> Move | None:
    """The move of ``name`` from module ``old_file`` to ``new_file``; None if unnameable."""
    a = import_name(Path(old_file), root)
    b = import_name(Path(new_file), root)
    if not (a and b and a != b and name.isidentifier()):
        return None
    return Move(f"{a}.{name}", f"{b}.{name}", symbol=True)


def moved_symbols(changes: Iterable[tuple[str, str | None, str | None]], root: str | Path
                  ) -> list[Move]:
    """The defs and classes ``changes`` took out of one module and put into another.

    Each change is a path with its text before and after (None: it was not there, or is
    gone).
    A name goes where it was a module-level def or class before and the module binds it no
    longer, and comes where a module gained a def or class of that name and much the same
    code (:func:`same_code`: a new ``main`` is not the old one moved); a name that came to two
    modules, or left two, is no move anyone can follow.
    """
    gone: dict[str, list[tuple[str, str]]] = {}
    came: dict[str, list[tuple[str, str]]] = {}
    empty = TopLevel(set(), {})
    for path, before, after in changes:
        if not path.endswith(".py"):
            continue
        was = (top_level(before) or empty) if before is not None else empty
        now = top_level(after) if after is not None else empty
        if now is None:
            continue  # no longer parses: nothing can be said of what it binds
        old_defs, new_defs, still = was.defs, now.defs, now.bound
        for name in old_defs.keys() - still:
            gone.setdefault(name, []).append((path, old_defs[name]))
        for name in new_defs.keys() - old_defs.keys():
            came.setdefault(name, []).append((path, new_defs[name]))
    moves = []
    for name in sorted(gone.keys() & came.keys()):
        if len(gone[name]) == len(came[name]) == 1:
            (old, left), (new, arrived) = gone[name][0], came[name][0]
            move = symbol_move(old, new, name, root) if same_code(left, arrived) else None
            if move is not None:
                moves.append(move)
    return moves

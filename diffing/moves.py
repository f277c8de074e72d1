"""Follow-ups of a moved module: its imports and dotted references, in every file.

Renaming ``pkg/old.py`` to ``pkg/new.py``, moving it to ``pkg/util/new.py`` or renaming a
package folder breaks every ``import pkg.old``, ``from pkg import old``, ``from .old import
f``, ``pkg.old.f(…)`` and ``mock.patch("pkg.old.f")`` that reached it, and the moved module's
own relative imports where it changed packages. A move maps dotted names (``pkg.old`` and
everything under it → ``pkg.util.new…``); every file's imports are read as they were written
(for a file that moved, from where it was) and spelled again for where everything is now.
Relative imports stay relative where they can, absolute ones stay absolute, and a name an
import binds takes the module's new name with its uses, as a rename does (``new as old``
where the file binds ``new`` itself). Model-free: the move determines every new spelling, so
these spans carry their one candidate and get no model pass.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from pathlib import Path

from .config_files import config_spans, is_config
from .mechanical import mechanical_proposal
from .modules import Denotations, is_package, module_names, resolve
from .proposal import Proposal, Span
from .respell import Move, Project, move_spans, moved
from .scopes import ScopeIndex, scope_index

__all__ = ["Move", "import_name", "moved_proposal", "moves_for", "project_moves"]


def moves_for(old: str | Path, new: str | Path, root: str | Path) -> list[Move]:
    """The move of a file or folder from ``old`` to ``new`` (either may exist yet, not both).

    A folder is its package (``pkg/a`` → ``pkg.a``). Each side is named as imports name it:
    through its packages where it sits in one (``src/pkg/a.py`` is ``pkg.a``), else from
    ``root`` (``tools/run.py`` is ``tools.run``). A name no import can spell gives none.
    """
    old, new = Path(old), Path(new)
    folder = next((p for p in (old, new) if p.is_dir()), None)
    packaged = folder is not None and (folder / "__init__.py").is_file()
    a, b = import_name(old, root, packaged), import_name(new, root, packaged)
    if not (a and b and a != b and all(w.isidentifier() for w in f"{a}.{b}".split("."))):
        return []
    return [Move(a, b, str(old.absolute()), str(new.absolute()))]


def import_name(path: Path, root: str | Path, packaged: bool = False) -> str | None:
    """``path``'s dotted name as imports spell it (``packaged``: a folder that is a package)."""
    if path.suffix in (".py", ".pyi"):
        target, in_package = path, (path.parent / "__init__.py").is_file()
    else:
        target, in_package = path / "__init__.py", packaged
    if packaged and target.name == "__init__.py":  # the folder itself may not exist yet
        parent = path.parent / "__init__.py"
        above = module_names(parent) if parent.is_file() else ()
        return f"{above[0]}.{path.name}" if above else path.name
    chain = module_names(target)
    if in_package:
        return chain[0] if chain else None
    names = module_names(target, root)
    return next((n for n in names if n not in chain), names[0] if names else None)


def project_moves(moves: list[Move], files: Mapping[str, str], root: str | Path
                  ) -> dict[str, list[Span]]:
    """Spans in each of ``files`` (path → text) for ``moves``.

    A file may sit where it was (a language server asked before the rename) or where it went
    (the rename done): its name says which. Config files and docs
    (:func:`~.config_files.is_config`) get the spans of the names and paths they spell.
    """
    back = [Move(m.new, m.old) for m in moves]
    lasts = {m.old.rpartition(".")[2] for m in moves}
    seen: list[tuple[str, ScopeIndex, str, str, bool]] = []
    out: dict[str, list[Span]] = {}
    for path, text in files.items():
        if is_config(path):
            if spans := config_spans(text, path, moves):
                out[path] = spans
            continue
        names = module_names(path, root)
        if not names:
            continue
        now = names[0]
        before, after = moved(back, now) or now, moved(moves, now) or now
        if before == after and not any(last in text for last in lasts):
            continue  # a quick look: whatever it needs respelt spells the module's name
        index = scope_index(text)
        if index is not None:  # read once, for the survey and for the spans
            seen.append((path, index, before, after, is_package(path)))
    project = _survey(moves, [(index, before, package, path.endswith(".pyi"))
                              for path, index, before, _, package in seen])
    for path, index, before, after, package in seen:
        spans = move_spans(index, before, after, package, moves, project)
        if spans:
            out[path] = spans
    return out


def _survey(moves: list[Move], files: list[tuple[ScopeIndex, str, bool, bool]]) -> Project:
    """What ``files`` say of the moved modules' names (:class:`Project`).

    Each file is its index, dotted name, whether a package's ``__init__``, whether a stub.
    A stub's ``__init__.pyi`` is no package's code: what it binds is not what imports get.

    A package whose ``__init__.py`` binds the name of its submodule otherwise
    (``from .inline import inline``) gives ``from pkg import inline`` that binding, not the
    module. A module's import of a moved module may be imported onward by its name
    (``from ..fixer_util import token``): that name must stay.
    """
    lasts = {m.old.rpartition(".")[2] for m in moves}
    shadowed, reached, cyclic = set(), set(), set()
    for index, module, package, stub in files:
        for m in moves:  # a def's new module that imports its old one
            old_home = m.old.rpartition(".")[0]
            if m.symbol and module == m.new.rpartition(".")[0] and _imports(index.tree, module,
                                                                            package, old_home):
                cyclic.add(m.old)
        for m in moves:
            parent, _, last = m.old.rpartition(".")
            if package and not stub and module == parent and \
                    _binds_otherwise(index.tree.body, parent, last):
                shadowed.add(m.old)
        den = None
        for node in ast.walk(index.tree):
            if isinstance(node, ast.ImportFrom):
                source = resolve(node, module, package)
                reached |= {f"{source}.{al.name}" for al in node.names if al.name in lasts}
            elif isinstance(node, ast.Attribute) and node.attr in lasts:
                den = den or Denotations(index, module, package)
                reached |= {f"{d}.{node.attr}" for d in den.of(node.value)}
    # the moved modules themselves are imported by their path, which follows the move
    reached = {r for r in reached if moved(moves, r) is None or r in shadowed}
    return Project(frozenset(shadowed), frozenset(reached), frozenset(cyclic))


def _imports(tree: ast.Module, module: str, package: bool, other: str) -> bool:
    """Whether the module's top-level code imports module ``other`` (or a name from it)."""
    for node in tree.body:
        if isinstance(node, ast.Import) and any(al.name == other or al.name.startswith(
                f"{other}.") for al in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and (resolve(node, module, package) or "") in (
                other, *(f"{other}.{al.name}" for al in node.names)):
            return True
    return False


def _binds_otherwise(body: list[ast.stmt], package: str, name: str,
                     fallback: bool = False) -> bool:
    """Whether module-level ``body`` binds ``name`` other than by importing the submodule.

    A def, a class, an import of something else, an assignment; not an assignment in an
    ``except`` block (``try: from dbm import ndbm`` / ``except ImportError: ndbm = None``
    falls back when the submodule is missing, and takes nothing over).
    """
    for stmt in body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            if stmt.name == name:
                return True
        elif isinstance(stmt, ast.Import | ast.ImportFrom):
            own = isinstance(stmt, ast.ImportFrom) and resolve(stmt, package, True) == package
            if any((al.asname or al.name.split(".")[0]) == name and not (own and al.name == name)
                   for al in stmt.names):
                return True
        elif isinstance(stmt, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            if not fallback and any(isinstance(n, ast.Name) and n.id == name
                                    for t in targets for n in ast.walk(t)):
                return True
        else:
            inner = [b for f in ("body", "orelse", "finalbody") for b in getattr(stmt, f, [])]
            handlers = [b for h in getattr(stmt, "handlers", []) for b in h.body]
            if _binds_otherwise(inner, package, name, fallback) or \
                    _binds_otherwise(handlers, package, name, True):
                return True
    return False


def moved_proposal(text: str, spans: list[Span], path: str | None = None,
                   what: str = "module") -> Proposal | None:
    """The file with every span's one candidate, unless that adds a syntax error.

    ``what`` moved: a ``module``, or a ``definition`` (:mod:`.symbol_moves`).
    """
    n = len(spans)
    return mechanical_proposal(text, spans, path,
                               f"Update {n} reference{'s' * (n != 1)} to the moved {what}")

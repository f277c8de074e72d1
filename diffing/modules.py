"""Which module a file is, and what another module's names denote: ``pkg.a.f`` for ``a.f``.

An edit to a module-level name reaches every module that imports it (:mod:`.elsewhere`). To
find those uses, each file is given its dotted module names, and each name an import binds in
another file is followed to every expression that reaches through it: ``from pkg.a import f``
makes ``f`` denote ``pkg.a.f``; ``import pkg.a`` makes ``pkg.a.f`` do so; ``from . import a``
in ``pkg/b.py`` makes ``a.f`` do so. Model-free: ``ast`` and the scope index, so a local that
shadows an imported name denotes nothing.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from .edits import ast_offset, line_starts
from .scopes import ScopeIndex


def module_names(path: str | Path, root: str | Path | None = None) -> tuple[str, ...]:
    """The dotted names a file is imported by: through its packages, and from ``root``.

    ``pkg/sub/a.py`` beside ``pkg/__init__.py`` and ``pkg/sub/__init__.py`` is ``pkg.sub.a``
    (``pkg/sub`` without one too: a namespace folder inside a package, flask's ``sansio``);
    a package's ``__init__.py`` is the package. Without ``__init__.py`` files (namespace
    packages, a ``src`` layout's top) the path under ``root`` names it too. Never every suffix
    of the path: a project's ``util/json.py`` is not the standard library's ``json``.
    """
    p = Path(path).absolute()
    parts = [] if p.stem == "__init__" else [p.stem]
    d = p.parent
    # a folder without ``__init__.py`` inside a package is a namespace portion of it
    while d.parent != d and ((d / "__init__.py").is_file() or
                             (d.parent / "__init__.py").is_file()):
        parts.insert(0, d.name)
        d = d.parent
    names = [".".join(parts)] if parts else []
    if root is not None:
        try:
            rel = p.relative_to(Path(root).absolute()).with_suffix("")
        except ValueError:
            rel = None
        if rel is not None:
            under = [*rel.parts[:-1], *([] if rel.name == "__init__" else [rel.name])]
            if under and all(s.isidentifier() for s in under):
                names.append(".".join(under))
    return tuple(dict.fromkeys(n for n in names
                               if n and all(w.isidentifier() for w in n.split("."))))


def may_import(text: str, modules: tuple[str, ...]) -> bool:
    """Whether ``text`` may import one of the dotted ``modules`` (a quick look, no parse).

    Any import of a module spells its last name, or is relative (``from . import m``).
    """
    return "from ." in text or any(m.rpartition(".")[2] in text for m in modules)


@lru_cache(maxsize=64)
def imports_by_name(text: str, modules: tuple[str, ...]) -> bool:
    """Whether an import line (or its parentheses) names one of the modules after ``import``.

    Cached: a changed ``__init__``'s heirs are exports of one module, asked about in turn.
    """
    return any(re.search(rf"\bfrom\s+[\w.]+\s+import\s+(?:\([^)]*|[^\n;]*)\b{re.escape(last)}\b",
                         text) for last in {m.rpartition(".")[2] for m in modules})


def is_package(path: str | Path) -> bool:
    return Path(path).stem == "__init__"


def resolve(node: ast.ImportFrom, module: str, package: bool) -> str | None:
    """The absolute module a ``from … import`` names, read from the importing ``module``.

    ``from .a import f`` in ``pkg.b`` is ``pkg.a``; in ``pkg/__init__.py`` (``package``) too.
    None where the dots climb above the top package.
    """
    if not node.level:
        return node.module
    parts = module.split(".") if module else []
    base = parts if package else parts[:-1]
    if node.level - 1 >= len(base):
        return None
    base = base[:len(base) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])]) or None


@dataclass(frozen=True)
class Bound:
    """A name an import binds: where, and the dotted name it denotes."""

    start: int  # the binding's offset (the alias after ``as``, else the name)
    local: str  # the name bound
    dotted: str
    aliased: bool  # ``as`` gave it another name than the one imported
    name_at: int  # where the imported name itself is written (``f`` of ``f as g``)
    node: ast.Import | ast.ImportFrom
    star: bool = False


class Denotations:
    """What each name and attribute chain of a file denotes, through its imports.

    ``module`` is the file's own dotted name (for relative imports); ``package`` whether it is
    a package's ``__init__.py``. With ``wanted``, only the imports that may lead to one of
    those dotted names are followed to their uses (a file imports dozens of others).
    """

    def __init__(self, index: ScopeIndex, module: str, package: bool,
                 wanted: set[str] | None = None) -> None:
        self.index, self.text = index, index.text
        self.starts = line_starts(self.text)
        self.bound: list[Bound] = []
        self._names: dict[int, str] = {}  # a Name's offset → what it denotes
        self.members: dict[int, str] = {}  # ``self.X`` of an ``X`` a class body imports
        for node in ast.walk(index.tree):
            if isinstance(node, ast.Import):
                self._imports(node)
            elif isinstance(node, ast.ImportFrom):
                source = resolve(node, module, package)
                if source is not None:
                    self._from(node, source)
        def leads(dotted: str) -> bool:
            return wanted is None or any(w == dotted or w.startswith(f"{dotted}.")
                                         for w in wanted)
        self.bound = [b for b in self.bound if leads(b.dotted)]
        for b in self.bound:
            if b.star:
                continue
            occ = index.at(b.start)
            if occ is None or occ.start != b.start:
                continue
            member = index.is_member(occ)  # an import in a class body: ``self.X`` reads it
            for ref in index.references(occ):
                if ref.key == occ.key:
                    self._names[ref.start] = b.dotted
                elif member and ref.kind == "attribute-use" and ref.owner == occ.key[1]:
                    self.members[ref.start] = b.dotted
        self._star_uses(index)

    def offset(self, line: int, col: int) -> int:
        return ast_offset(self.text, self.starts, line, col)

    def _imports(self, node: ast.Import) -> None:
        for al in node.names:
            at = self.offset(al.lineno, al.col_offset)
            if al.asname:
                end = self.offset(al.end_lineno, al.end_col_offset)
                self.bound.append(Bound(end - len(al.asname), al.asname, al.name, True, at,
                                        node))
            else:  # ``import pkg.a`` binds ``pkg``
                top = al.name.split(".")[0]
                self.bound.append(Bound(at, top, top, False, at, node))

    def _from(self, node: ast.ImportFrom, source: str) -> None:
        for al in node.names:
            at = self.offset(al.lineno, al.col_offset)
            if al.name == "*":
                self.bound.append(Bound(at, "*", source, False, at, node, star=True))
            elif al.asname:
                end = self.offset(al.end_lineno, al.end_col_offset)
                self.bound.append(Bound(end - len(al.asname), al.asname, f"{source}.{al.name}",
                                        True, at, node))
            else:
                self.bound.append(Bound(at, al.name, f"{source}.{al.name}", False, at, node))

    def _star_uses(self, index: ScopeIndex) -> None:
        """A module-level name nothing in the file binds, after a ``from m import *``: ``m.name``.

        With several star imports the name may come from any; each is a candidate
        (``self.stars``), and only a match with the edited module counts.
        """
        self.stars: dict[int, tuple[str, ...]] = {}
        sources = tuple(b.dotted for b in self.bound if b.star and b.node in index.tree.body)
        if not sources:
            return
        bound = {o.key for o in index.occurrences if o.binding}
        for o in index.occurrences:
            if o.key[0] == "name" and o.key[1] == 0 and o.key not in bound and not o.binding:
                self.stars[o.start] = tuple(f"{s}.{o.name}" for s in sources)

    def of(self, expr: ast.expr) -> tuple[str, ...]:
        """The dotted names ``expr`` may denote (a Name or an attribute chain), else ``()``."""
        if isinstance(expr, ast.Name):
            at = self.offset(expr.lineno, expr.col_offset)
            if at in self._names:
                return (self._names[at],)
            return self.stars.get(at, ())
        if isinstance(expr, ast.Attribute):
            member = self.members.get(self.attr_start(expr))
            if member is not None:
                return (member,)
            return tuple(f"{d}.{expr.attr}" for d in self.of(expr.value))
        return ()

    def attr_start(self, expr: ast.Attribute) -> int:
        """Where an attribute's name is written (``f`` of ``a.f``)."""
        return self.offset(expr.end_lineno, expr.end_col_offset) - len(expr.attr)


def spell(target: str, relative: bool, module: str, package: bool) -> str:
    """How ``module`` imports from ``target``: relatively where it did and can, else absolute.

    Relative imports climb within one top-level package: ``pkg.a.x`` from ``pkg.b.y`` is
    ``..a.x``; from another top package it is spelled absolute.
    """
    if not relative:
        return target
    base = module.split(".") if package else module.split(".")[:-1]
    parts = target.split(".")
    common = 0
    while common < min(len(base), len(parts)) and base[common] == parts[common]:
        common += 1
    if common == 0:
        return target
    return "." * (len(base) - common + 1) + ".".join(parts[common:])


@dataclass
class Binding:
    """How a module binds a name: the statements that do, and whether for type checkers only."""

    stmts: list[ast.stmt]
    typing: bool  # only under ``if TYPE_CHECKING:``


def bindings(body: list[ast.stmt], typing: bool = False,
             out: dict[str, Binding] | None = None) -> dict[str, Binding]:
    """Each name module-level ``body`` binds (in ``if``/``try`` blocks too), and how."""
    out = {} if out is None else out

    def bind(name: str, stmt: ast.stmt) -> None:
        b = out.setdefault(name, Binding([], typing))
        b.stmts.append(stmt)
        b.typing = b.typing and typing

    for stmt in body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bind(stmt.name, stmt)
        elif isinstance(stmt, ast.Import | ast.ImportFrom):
            for a in stmt.names:
                bind((a.asname or a.name).split(".")[0], stmt)
        elif isinstance(stmt, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for t in targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name):
                        bind(n.id, stmt)
        elif isinstance(stmt, ast.If) and type_checking(stmt.test):
            bindings(stmt.body, True, out)
            bindings(stmt.orelse, typing, out)
        else:
            inner = [s for f in ("body", "orelse", "finalbody") for s in getattr(stmt, f, [])]
            bindings(inner + [s for h in getattr(stmt, "handlers", []) for s in h.body],
                     typing, out)
    return out


def type_checking(test: ast.expr) -> bool:
    """``TYPE_CHECKING`` or ``typing.TYPE_CHECKING``."""
    return isinstance(test, ast.Name) and test.id == "TYPE_CHECKING" or \
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"

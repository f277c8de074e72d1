"""What a file's respelling needs besides, where a def or class moved to another module.

:class:`DefFixes` is the part of :class:`~.respell._Fixes` a symbol move
(:mod:`.symbol_moves`) uses: a module to import where ``pkg.a.f`` becomes ``pkg.b.f``,
the new module's name beside the old one's (``lib.f`` → ``maths.f``), an import dropped
that was read for nothing else or that now imports a name from where it is defined, and the
import back into the module the def left where that still calls it.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable

from .edits import docstring_of
from .modules import Bound, Denotations, resolve, spell
from .scopes import ScopeIndex


class DefFixes:
    """Spans for a moved def, gathered into ``spans`` by ``add`` (:class:`~.respell._Fixes`)."""

    text: str
    index: ScopeIndex
    den: Denotations
    moves: list
    module: str  # the file's dotted name before the move, and after it
    after: str
    package: bool
    imported: dict[str, str | None]
    loaded: set[str]
    add: Callable[[int, int, str, str], None]  # a span: its range, its one text, and why

    def _drop(self, node: ast.Import | ast.ImportFrom, al: ast.alias,
              why: str = "defined here now") -> None:
        """Take ``al`` out of the import ``node`` (the whole statement where it is alone).

        ``from .a import f`` in the module ``f`` moved to, which defines ``f`` itself now;
        ``from pkg import a`` read for nothing but what moved from ``a``.
        """
        if len(node.names) > 1:
            self.add(*self._cut(node, al), "", f"import of {al.name}, {why}")
            return
        start = self.den.offset(node.lineno, node.col_offset)
        end = self.den.offset(node.end_lineno, node.end_col_offset)
        line = self.text.rfind("\n", 0, start) + 1
        rest = self.text.find("\n", end)
        if self.text[line:start].strip() or self.text[end:rest].strip(" \t;") or rest < 0:
            return  # not a statement on its own lines: left
        self.add(line, rest + 1, "", f"import of {al.name}, {why}")

    def _cut(self, node: ast.Import | ast.ImportFrom, al: ast.alias) -> tuple[int, int]:
        """The text to remove to take ``al`` out of ``node``'s names, with one comma."""
        i = node.names.index(al)
        if i + 1 < len(node.names):  # up to the next name
            nxt = node.names[i + 1]
            return (self.den.offset(al.lineno, al.col_offset),
                    self.den.offset(nxt.lineno, nxt.col_offset))
        prev = node.names[i - 1]  # from the previous name's end
        return (self.den.offset(prev.end_lineno, prev.end_col_offset),
                self.den.offset(al.end_lineno, al.end_col_offset))

    def import_home(self, home: str, name: str, cyclic: bool) -> None:
        """``from home import name`` below the module's last top-level import (or atop it).

        ``cyclic``: ``home`` imports this module, so a top-level import here would find one
        of the two half-run whichever is imported first; each function calling ``name``
        imports it when called instead.
        """
        body = self.index.tree.body
        imports = [s for s in body if isinstance(s, ast.Import | ast.ImportFrom)]
        relative = any(isinstance(s, ast.ImportFrom) and s.level for s in imports)
        spelled = spell(home, relative, self.after, self.package)
        callers = self._callers(name) if cyclic else None
        if callers:
            for fn in callers:
                doc = docstring_of(fn.body) is not None
                if doc and len(fn.body) == 1:
                    continue  # a docstring alone reads no name
                first = fn.body[1 if doc else 0]  # below the docstring, which stays one
                at = self.den.offset(first.lineno, first.col_offset)
                indent = self.text[self.text.rfind("\n", 0, at) + 1:at]
                if indent.strip():
                    continue  # ``def f(): return helper()`` on one line: left
                self.add(at, at, f"from {spelled} import {name}\n{indent}",
                         f"{name}, used here (imported when called: {home} imports this)")
            return
        if imports:
            at = self.den.offset(imports[-1].end_lineno, imports[-1].end_col_offset)
            self.add(at, at, f"\nfrom {spelled} import {name}", f"{name}, used here")
            return
        doc = docstring_of(body)
        if doc is None:  # two blank lines before a def or class, as PEP 8 sets them apart
            gap = "\n\n\n" if isinstance(body[0], ast.FunctionDef | ast.AsyncFunctionDef
                                          | ast.ClassDef) else "\n"
            self.add(0, 0, f"from {spelled} import {name}{gap}", f"{name}, used here")
        else:
            at = self.den.offset(doc.end_lineno, doc.end_col_offset)
            self.add(at, at, f"\n\nfrom {spelled} import {name}", f"{name}, used here")

    def _callers(self, name: str) -> list[ast.FunctionDef | ast.AsyncFunctionDef] | None:
        """The outermost functions reading global ``name``; None if module-level code does."""
        uses = [o.start for o in self.index.occurrences
                if not o.binding and o.key == ("name", 0, name)]
        found, covered = [], set()
        for node in ast.walk(self.index.tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
                a = self.den.offset(node.lineno, node.col_offset)
                b = self.den.offset(node.end_lineno, node.end_col_offset)
                inside = {u for u in uses if a <= u < b}
                if inside - covered:
                    found.append(node)
                    covered |= inside
        return found if covered == set(uses) else None

    def _from_imported(self, root: ast.Name) -> bool:
        """Whether ``root`` is bound by a ``from … import`` (``_click`` of ``_click.core``)."""
        bound = next((b for b in self.den.bound if b.local == root.id and not b.star), None)
        return bound is not None and isinstance(bound.node, ast.ImportFrom)

    def _import_module(self, root: ast.Name, module: str) -> None:
        """``import module`` below the import ``root`` is bound by, unless one is there.

        ``pkg.a.f`` respelled ``pkg.b.f`` where ``f`` went to ``pkg.b``: ``import pkg.a``
        does not load ``pkg.b``.
        """
        if module in self.loaded:
            return
        self.loaded.add(module)
        if any(isinstance(n, ast.Import) and any(al.name == module or al.name.startswith(
                f"{module}.") for al in n.names) for n in ast.walk(self.index.tree)):
            return
        bound = next((b for b in self.den.bound if b.local == root.id and not b.star), None)
        if bound is None:
            return
        stmt = bound.node
        at = self.den.offset(stmt.end_lineno, stmt.end_col_offset)
        start = self.den.offset(stmt.lineno, stmt.col_offset)
        indent = self.text[self.text.rfind("\n", 0, start) + 1:start]
        self.add(at, at, f"\n{indent}import {module}", f"import of {module}")

    def _module_beside(self, root: ast.Name, module: str) -> str | None:
        """The name the file reads ``module`` by, imported as ``root``'s module was if need be.

        ``from pkg import a`` … ``a.f()`` where ``f`` went to ``pkg.b``: ``from pkg import b``
        below it, and ``b.f()``; ``import a`` … ``a.f()``: ``import b``. None where the file
        uses that name otherwise, or ``root`` comes by a path it cannot follow.
        """
        if module in self.imported:
            return self.imported[module]
        parent, _, last = module.rpartition(".")
        bound = next((b for b in self.den.bound if b.local == root.id and not b.star), None)
        for node in ast.walk(self.index.tree):
            for al in getattr(node, "names", []) if isinstance(node, ast.Import | ast.ImportFrom) \
                    else []:
                source = resolve(node, self.module, self.package) \
                    if isinstance(node, ast.ImportFrom) else None
                if isinstance(node, ast.Import) and al.name == module or \
                        source is not None and f"{source}.{al.name}" == module:
                    if bound is not None and self._moved_uses_only(bound):
                        alias = next(a for a in bound.node.names if self.den.offset(
                            a.lineno, a.col_offset) == bound.name_at)
                        self._drop(bound.node, alias, "read for what moved alone")
                    name = al.asname or (module if isinstance(node, ast.Import) else al.name)
                    return self.imported.setdefault(module, name)
        taken = any(o.name == (last if parent else module) for o in self.index.occurrences)
        self.imported[module] = None
        if bound is None or taken:
            return None
        stmt = bound.node
        at = self.den.offset(stmt.end_lineno, stmt.end_col_offset)
        start = self.den.offset(stmt.lineno, stmt.col_offset)
        indent = self.text[self.text.rfind("\n", 0, start) + 1:start]
        old_parent = bound.dotted.rpartition(".")[0]
        if len(stmt.names) == 1 and not bound.aliased and self._moved_uses_only(bound) and \
                (old_parent == parent if isinstance(stmt, ast.ImportFrom) else not parent):
            # ``from pkg import a`` read for nothing but what moved: it imports ``b`` instead
            name = last if parent else module
            self.add(bound.name_at, bound.name_at + len(stmt.names[0].name), name,
                     f"import of {module}")
            self.imported[module] = name
        elif isinstance(stmt, ast.ImportFrom) and parent:
            spelled = spell(parent, stmt.level > 0, self.after, self.package)
            self.add(at, at, f"\n{indent}from {spelled} import {last}", f"import of {module}")
            self.imported[module] = last
        elif isinstance(stmt, ast.Import) and not parent:
            self.add(at, at, f"\n{indent}import {module}", f"import of {module}")
            self.imported[module] = module
        return self.imported[module]

    def _moved_uses_only(self, bound: Bound) -> bool:
        """Whether every use of the module ``bound`` names is of a def that moved away."""
        occ = self.index.at(bound.start)
        if occ is None or occ.start != bound.start:
            return False
        gone = {m.old for m in self.moves if m.symbol}
        for ref in self.index.references(occ):
            if ref.key == occ.key and ref.start != bound.start:
                attr = re.match(r"\.(\w+)", self.text[ref.end:ref.end + 200])
                if attr is None or f"{bound.dotted}.{attr[1]}" not in gone:
                    return False
        return True

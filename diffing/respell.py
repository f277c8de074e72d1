"""One file's imports, references and strings, spelled again for a module that moved.

A move maps dotted names (``pkg.old`` and everything under it → ``pkg.sub.new…``,
:class:`Move`). A file's imports are read as they were written (a file that moved, from
where it was) and spelled for where everything is now (:func:`move_spans`); which files and
what the project says about the names is :mod:`.moves`'s.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace

from .def_fixes import DefFixes
from .mentions import all_entries, module_mentions
from .modules import Denotations, resolve, spell
from .proposal import Span
from .scopes import ScopeIndex

# the module part of ``from … import``: dots alone, or a dotted name after any dots
_FROM = re.compile(r"from\s+(\.+(?=\s*import\b)|\.*[^\W\d][\w.]*)\s*import\b")


@dataclass(frozen=True)
class Move:
    """A module or package's dotted name before and after it moved (and its paths, if known).

    ``symbol``: a module-level def or class that went to another module (``pkg.a.f`` →
    ``pkg.b.f``, :mod:`.symbol_moves`); its modules stay where they are.
    """

    old: str
    new: str
    old_path: str = ""  # the file or folder, absolute: config files name it by its path
    new_path: str = ""
    symbol: bool = False

    def __call__(self, dotted: str) -> str | None:
        """``dotted``'s name after the move; None where it is not the module or under it."""
        if dotted == self.old or dotted.startswith(f"{self.old}."):
            return self.new + dotted[len(self.old):]
        return None


def moved(moves: Iterable[Move], dotted: str) -> str | None:
    return next((n for m in moves if (n := m(dotted)) is not None), None)


@dataclass(frozen=True)
class Project:
    """What the project's other files say about the moved modules' names."""

    shadowed: frozenset[str] = frozenset()  # moved modules whose package binds their name
    reached: frozenset[str] = frozenset()  # ``m.name``: names other modules get from ``m``
    cyclic: frozenset[str] = frozenset()  # moved defs whose new module imports their old one


def move_spans(index: ScopeIndex, before: str, after: str, package: bool, moves: list[Move],
               project: Project | None = None) -> list[Span]:
    """The spans of one module's text (``index``: its scope index) for ``moves``.

    ``before`` is the module's dotted name its imports were written from, ``after`` its name
    once everything has moved (the same for a module that stays); ``package``: it is a
    package's ``__init__.py``; ``project``: what the other files say (read by :mod:`.moves`).
    """
    text = index.text
    den = Denotations(index, before, package, {m.old for m in moves})
    why = ", ".join(f"{m.old} moved to {m.new}" for m in moves)
    fix = _Fixes(index, den, moves, why, (before, after, package), project or Project())
    nodes = list(ast.walk(index.tree))
    for node in nodes:  # the imports first: what they bind decides how uses are spelled
        if isinstance(node, ast.ImportFrom):
            fix.from_import(node)
        elif isinstance(node, ast.Import):
            fix.plain_import(node)
    for node in nodes:
        if isinstance(node, ast.Attribute | ast.Name):
            fix.reference(node)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            fix.string(node)
    for m in moves:  # a package's ``__all__`` naming its renamed submodule
        parent, _, old = m.old.rpartition(".")
        new_parent, _, new = m.new.rpartition(".")
        if m.symbol and before == parent and not _binds(index, old) and _uses(index, old):
            fix.import_home(new_parent, old, m.old in fix.project.cyclic)  # still called
        if package and before == parent == new_parent and old != new:
            fix.spans += [replace(s, model=False) for s in module_mentions(text, old, new)
                          if "__all__" in s.reason]
        elif (package or m.symbol) and before == parent != new_parent and \
                not _binds(index, old):
            # the submodule (or def) went elsewhere: ``from pkg import *`` would fail on it
            fix.spans += [Span(a, b, "rename", f"'{old}' in __all__: {why}; no longer here",
                               (put,), model=False)
                          for a, b, put in all_entries(text, index.tree, old)]
    return fix.distinct()


def _binds(index: ScopeIndex, name: str) -> bool:
    """Whether the module binds ``name`` at its top level (an import, a def, an assignment)."""
    return any(o.binding and o.key == ("name", 0, name) for o in index.occurrences)


def _uses(index: ScopeIndex, name: str) -> bool:
    """Whether the module reads ``name`` as a global anywhere."""
    return any(not o.binding and o.key == ("name", 0, name) for o in index.occurrences)


class _Fixes(DefFixes):
    """The spans one file's imports, references and strings need, gathered node by node."""

    def __init__(self, index: ScopeIndex, den: Denotations, moves: list[Move], why: str,
                 names: tuple[str, str, bool], project: Project) -> None:
        self.index, self.den, self.moves, self.why = index, den, moves, why
        self.module, self.after, self.package = names  # before and after the move
        self.project = project
        self.text = index.text
        self.spans: list[Span] = []
        self.retopped: set[str] = set()  # names an ``import old…`` bound, no longer bound
        self.imported: dict[str, str | None] = {}  # a new module → the name an added import binds
        self.loaded: set[str] = set()  # modules an ``import`` was added for (or found)

    def add(self, start: int, end: int, new: str, what: str) -> None:
        if self.text[start:end] != new:
            self.spans.append(Span(start, end, "rename", f"{what}: {self.why}", (new,),
                                   model=False))

    def from_import(self, node: ast.ImportFrom) -> None:
        """``from X import Y``: X respelled where it or this module moved; Y if it moved."""
        before, after, package = self.module, self.after, self.package
        source = resolve(node, before, package)
        start = self.den.offset(node.lineno, node.col_offset)
        m = _FROM.match(self.text, start)
        if source is None or m is None:
            return
        target = moved(self.moves, source)
        if target is not None or (node.level and before != after):
            spelled = spell(target or source, node.level > 0, after, package)
            self.add(m.start(1), m.end(1), spelled, f"import from {source}")
            return
        for al in node.names:
            went = moved(self.moves, f"{source}.{al.name}")
            if went is None or f"{source}.{al.name}" in self.project.shadowed:
                continue  # not the moved module, or its package's own binding of the name
            parent, _, last = went.rpartition(".")
            at = self.den.offset(al.lineno, al.col_offset)
            home = parent == after and any(mv.symbol and mv(f"{source}.{al.name}")
                                           for mv in self.moves)
            if home and al.asname in (None, al.name):
                self._drop(node, al)  # a def's new home imported it from the old one
            elif parent == source or len(node.names) == 1:
                if parent != source:
                    self.add(m.start(1), m.end(1), spell(parent, node.level > 0, after, package),
                             f"import of {source}.{al.name}")
                self._rename_binding(al, at, last)
            else:  # one name of several moved to another package: an import of its own
                self._split_out(node, al, parent, last)

    def _rename_binding(self, al: ast.alias, at: int, last: str) -> None:
        """The imported module's name, and the uses of the name it binds."""
        if al.asname or al.name == last or self._rename_uses(al, at, last):
            self.add(at, at + len(al.name), last, f"import of {al.name}")
        else:
            self.add(at, at + len(al.name), f"{last} as {al.name}", f"import of {al.name}")

    def _rename_uses(self, al: ast.alias, at: int, last: str) -> bool:
        """The uses of the name ``al`` binds, as ``last``; False where it must stay.

        It stays where the module binds the new name itself, and where another module
        imports the name from this one (``from ..fixer_util import token``).
        """
        occ = self.index.at(at)
        if occ is None or occ.start != at or \
                any(o.binding and o.name == last for o in self.index.occurrences):
            return False
        top = occ.key == ("name", 0, al.name)
        if top and f"{self.module}.{al.name}" in self.project.reached:
            return False
        # a module-level name is one name however it is bound (``except: old = None``)
        refs = [o for o in self.index.occurrences if o.key == occ.key] if top \
            else self.index.references(occ)
        for ref in refs:
            if ref.key == occ.key and ref.start != at and \
                    self.text[ref.start:ref.end] == al.name:
                self.add(ref.start, ref.end, last, f"{ref.kind} of module {al.name}")
        if top:  # ``__all__`` names the module's own binding
            self.spans += [replace(s, model=False) for s in
                           module_mentions(self.text, al.name, last) if "__all__" in s.reason]
        return True

    def _split_out(self, node: ast.ImportFrom, al: ast.alias, parent: str, last: str) -> None:
        """``from pkg import a, old`` where old went elsewhere: drop it, import it below."""
        here = self.den.offset(al.lineno, al.col_offset)
        cut = self._cut(node, al)
        stmt_end = self.den.offset(node.end_lineno, node.end_col_offset)
        line = self.text.rfind("\n", 0, self.den.offset(node.lineno, node.col_offset)) + 1
        indent = self.text[line:self.den.offset(node.lineno, node.col_offset)]
        local = al.asname or (last if al.name == last or self._rename_uses(al, here, last)
                              else al.name)
        spelled = spell(parent, node.level > 0, self.after, self.package)
        new_import = f"from {spelled} import {last}" + (f" as {local}" if local != last else "")
        self.add(cut[0], cut[1], "", f"import of {al.name}")
        self.add(stmt_end, stmt_end, f"\n{indent}{new_import}", f"import of {al.name}")

    def plain_import(self, node: ast.Import) -> None:
        """``import pkg.old [as m]``: the dotted name (its uses: :meth:`reference`)."""
        for al in node.names:
            went = moved(self.moves, al.name)
            if went is None:
                continue
            at = self.den.offset(al.lineno, al.col_offset)
            if self.text[at:at + len(al.name)] != al.name:
                continue  # spaces or a line break inside the dotted name: left
            self.add(at, at + len(al.name), went, f"import of {al.name}")
            top = al.name.split(".")[0]
            if not al.asname and top != went.split(".")[0]:
                self.retopped.add(top)  # ``import old`` binds ``old``; ``import new…`` not

    def reference(self, node: ast.Attribute | ast.Name) -> None:
        """``pkg.old`` in ``pkg.old.f()`` (or a bare ``old``), spelled for where it went.

        Through the name it starts from where the new module is under that name too; as
        the new dotted name whole where the file's ``import old…`` now binds another name.
        """
        root = node
        while isinstance(root, ast.Attribute):
            root = root.value
        if not isinstance(root, ast.Name):
            return
        olds = {m.old: m.new for m in self.moves}
        dotted = next((d for d in self.den.of(node) if d in olds), None)
        through = self.den.of(root)
        if dotted is None or not through or dotted in self.project.shadowed:
            return  # not the moved module itself (a member, its package's own binding of
            # the name), or not reached through an import
        base, went = through[0], olds[dotted]
        start = self.den.offset(root.lineno, root.col_offset)
        end = self.den.attr_start(node) + len(node.attr) if isinstance(node, ast.Attribute) \
            else start + len(root.id)
        written = self.text[start:end]
        if written != root.id + dotted[len(base):]:
            return  # spaces, a line break or a comment inside the chain: left
        symbol = dotted != base and any(m.symbol and m.old == dotted for m in self.moves)
        module, _, last = went.rpartition(".")
        if symbol and module == self.after:  # ``nodes.Getitem`` where Getitem went: itself
            self.add(start, end, last, f"'{written}', defined here now")
        elif went.startswith(f"{base}.") and not (symbol and self._from_imported(root)):
            self.add(start, end, root.id + went[len(base):], f"'{written}'")
            if symbol:
                self._import_module(root, module)
        elif root.id == base and base in self.retopped:
            self.add(start, end, went, f"'{written}'")
        elif symbol:  # ``lib.f()``: through the module ``f`` went to, imported as ``lib`` was
            if (name := self._module_beside(root, module)) is not None:
                self.add(start, end, f"{name}.{last}", f"'{written}'")
        elif dotted != base and (name := self._import_beside(root, went)) is not None:
            self.add(start, end, name, f"'{written}'")

    def _import_beside(self, root: ast.Name, went: str) -> str | None:
        """A name for module ``went``, bound by an import added below the one ``root`` uses.

        ``from .. import pgen2`` … ``pgen2.parse.ParseError``, where ``parse`` left
        ``pgen2``: ``from .. import parse`` is added and the chain reads ``parse``. None where
        the file already uses that name.
        """
        if went in self.imported:
            return self.imported[went]
        parent, _, last = went.rpartition(".")
        bound = next((b for b in self.den.bound if b.local == root.id and not b.star), None)
        free = parent and bound is not None and \
            not any(o.name == last and o.key[0] == "name" for o in self.index.occurrences)
        self.imported[went] = last if free else None
        if not free or bound is None:
            return None
        stmt = bound.node
        relative = isinstance(stmt, ast.ImportFrom) and stmt.level > 0
        at = self.den.offset(stmt.end_lineno, stmt.end_col_offset)
        start = self.den.offset(stmt.lineno, stmt.col_offset)
        indent = self.text[self.text.rfind("\n", 0, start) + 1:start]
        spelled = spell(parent, relative, self.after, self.package)
        self.add(at, at, f"\n{indent}from {spelled} import {last}", f"import of {went}")
        return last

    def string(self, node: ast.Constant) -> None:
        """A string that is the module's dotted name or a path under it (``mock.patch``)."""
        value = node.value
        head = value.partition(":")[0]  # an entry point: ``"pkg.old:main"``
        went = moved(self.moves, head)
        if went is None or not head.replace(".", "").replace("_", "").isalnum():
            return
        start = self.den.offset(node.lineno, node.col_offset)
        end = self.den.offset(node.end_lineno, node.end_col_offset)
        quote = self.text[start:start + 1]
        if quote not in ("'", '"') or self.text[start:end] != quote + value + quote:
            return
        self.add(start + 1, start + 1 + len(head), went, f"'{value}'")

    def distinct(self) -> list[Span]:
        """The spans in order, an overlapping later one dropped (an insertion kept beside)."""
        out: list[Span] = []
        for s in sorted(self.spans, key=lambda s: (s.start, s.end)):
            if out and s.start < out[-1].end:
                continue
            if out and (s.start, s.end) == (out[-1].start, out[-1].end) and s.start != s.end:
                continue
            out.append(s)
        return out

"""Follow-ups in other modules: the imports, references and calls of a name an edit changed.

Renaming a module-level function, class or variable, or changing a module-level function's
parameters (or a class's ``__init__``, class or static methods'), breaks every module that
imports it; follow-ups inside one file (:mod:`.spans`) leave those as ``ImportError`` and
``TypeError`` at run time. Here an edit's *exported* changes are read from the edited file
(:func:`.exports.exported`), and each other module's spans from its imports (:mod:`.modules`):

- ``from m import old`` → ``new`` and every use of that binding (``new as old`` where the
  module binds ``new`` itself); ``from m import old as x`` → ``new as x``, its uses stay;
  ``m.old`` → ``m.new`` through ``import m`` in any spelling; uses a ``from m import *``
  brings;
- the calls of the changed function through any of those names (:mod:`.callsite`).

A module that imports the name at its top level re-exports it (a package's ``__init__.py``
most often), so modules importing it from there follow too (:func:`project_spans`).
Model-free.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from copy import copy
from dataclasses import replace

from .callsite import call_site_spans
from .exports import Exported, exported, star_exported
from .instances import instance_calls, instance_uses
from .mentions import module_mentions, path_mentions
from .modules import Denotations, imports_by_name, is_package, may_import, module_names
from .proposal import Span
from .scopes import Occurrence, ScopeIndex, scope_index
from .signature import (
    callee_name,
    defines,
    is_super_init,
    lineage,
    module_classes,
)
from .spans import merge_and_cap

_DEPTH = 4  # re-exports followed through at most this many modules


def spans_in(text: str, module: str, package: bool, exports: list[Exported],
             names: tuple[str, ...] = (), indexes: dict[str, ScopeIndex | None] | None = None
             ) -> tuple[list[Span], list[Exported]]:
    """The spans another module's text needs for ``exports``, and what it re-exports.

    ``module`` is the text's own dotted name (``names`` all of them); ``package`` whether it
    is a package's ``__init__.py`` (relative imports are read from it). ``indexes`` keeps
    the texts' scope indexes for the next re-export's round (``scope_index``'s own cache
    holds eight).
    """
    wanted = [e for e in exports if _may_reach(text, e)]
    if not wanted:
        return [], []
    indexes = {} if indexes is None else indexes
    if text not in indexes:
        indexes[text] = scope_index(text)
    index = indexes[text]
    if index is None:
        return [], []
    den = Denotations(index, module, package,
                      {t for e in wanted for t in e.targets | e.made_by})
    spans: list[Span] = []
    onward: list[Exported] = []
    same_def: dict[tuple, list[Exported]] = {}  # a class and the subclasses inheriting it
    unstarred = copy(den)  # for a name a star import does not bring (``_x``, not in __all__)
    unstarred.stars = {}
    for ex in wanted:
        seen = den if ex.starred else unstarred
        if ex.new is not None:
            spans += _renamed(seen, ex)
        if ex.member is not None:
            spans += _member_renamed(seen, ex)
        if ex.change is not None:
            same_def.setdefault((ex.origin, ex.change.line, ex.change.name), []).append(ex)
        onward += _reexported(seen, ex, names or (module,))
    for group in same_def.values():
        seen = den if group[0].starred else unstarred
        spans += _calls(seen, group)
        onward += _inheriting(seen, group, names or (module,))
    return _distinct(spans), onward


def _may_reach(text: str, ex: Exported) -> bool:
    """Whether ``text`` may import the name, or re-export it or its module (a quick look).

    Most files never import the module; most that do never name the changed name. A
    package's ``from .m import *`` re-exports it unnamed, and ``from . import m`` re-exports
    the module itself.
    """
    if not may_import(text, ex.modules):
        return False
    return ex.name in text or "import *" in text or imports_by_name(text, ex.modules) or \
        any(f.rpartition(".")[2] in text for f in ex.factories)


def _renamed(den: Denotations, ex: Exported) -> list[Span]:
    old, new = ex.name, ex.new or ex.name
    index, text, spans = den.index, den.text, []
    taken = _binds(den, new)
    why = f"'{old}' was renamed to '{new}' in {ex.origin}"
    for b in den.bound:
        if b.star or b.dotted not in ex.targets:
            continue
        occ = index.at(b.start)
        if occ is None or occ.start != b.start:
            continue
        if b.aliased or _keeps_name(index, occ, taken):
            text_at = new if b.aliased else f"{new} as {old}"
            spans.append(Span(b.name_at, b.name_at + len(old), "rename",
                              f"import of '{old}': {why}", (text_at,)))
            continue
        for ref in index.references(occ):
            if ref.key == occ.key and text[ref.start:ref.end] == old:
                what = "import" if ref.start == b.start else ref.kind
                spans.append(Span(ref.start, ref.end, "rename", f"{what} of '{old}': {why}",
                                  (new,)))
        if occ.key == ("name", 0, old):
            spans += module_mentions(text, old, new)
    spans += path_mentions(text, index.tree, ex.targets, old, new, why)
    for node in ast.walk(index.tree):
        if isinstance(node, ast.Attribute) and node.attr == old \
                and den.attr_start(node) not in den.members and ex.targets & set(den.of(node)):
            at = den.attr_start(node)
            spans.append(Span(at, at + len(old), "rename", f"'{old}' through its module: {why}",
                              (new,)))
        elif isinstance(node, ast.Name) and node.id == old and \
                ex.targets & set(den.stars.get(den.offset(node.lineno, node.col_offset), ())):
            at = den.offset(node.lineno, node.col_offset)
            spans.append(Span(at, at + len(old), "rename", f"'{old}' from a * import: {why}",
                              (new,)))
        elif isinstance(node, ast.Call) and len(node.args) > 1 and \
                _names_attribute(den, node.args[0], node.args[1], old, ex.modules):
            at = den.offset(node.args[1].lineno, node.args[1].col_offset) + 1
            spans.append(Span(at, at + len(old), "rename",
                              f"'{old}' named as an attribute of its module: {why}", (new,)))
    return spans


def _names_attribute(den: Denotations, obj: ast.expr, name: ast.expr, old: str,
                     modules: tuple[str, ...]) -> bool:
    """Whether a call's first two arguments are the module and ``old`` as a plain string.

    ``getattr(lib, "old")``, ``mock.patch.object(lib, "old")``,
    ``monkeypatch.setattr(lib, "old", …)``: the attribute the string names is the renamed one.
    """
    if not (isinstance(name, ast.Constant) and name.value == old and name.lineno == name.end_lineno
            and name.end_col_offset - name.col_offset == len(old) + 2):
        return False
    return bool(set(modules) & set(den.of(obj)))


def _member_renamed(den: Denotations, ex: Exported) -> list[Span]:
    """A renamed method where this module reaches it.

    On objects of the class (as :mod:`.instances` tells them), through the class, and in
    its subclasses here (their overrides and ``self.`` uses).
    """
    assert ex.member is not None
    old, new = ex.member
    heirs = _subclasses(den, ex.targets, None)
    places = instance_uses(den, ex.targets, old, local=frozenset(c.name for c in heirs),
                           made_by=ex.made_by)
    places |= {den.attr_start(n) for n in ast.walk(den.index.tree) if isinstance(n, ast.Attribute)
               and n.attr == old and ex.targets & set(den.of(n.value))}
    for cls in heirs:
        for node in ast.walk(cls):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == old \
                    and node in cls.body:
                places.add(den.text.find(old, den.offset(node.lineno, node.col_offset)))
            elif isinstance(node, ast.Attribute) and node.attr == old and (
                    isinstance(node.value, ast.Name) and node.value.id in ("self", "cls") or
                    isinstance(node.value, ast.Call) and callee_name(node.value.func) == "super"):
                places.add(den.attr_start(node))
    places |= {den.offset(n.args[1].lineno, n.args[1].col_offset) + 1
               for n in ast.walk(den.index.tree) if isinstance(n, ast.Call) and len(n.args) > 1
               and _names_attribute(den, n.args[0], n.args[1], old, tuple(ex.targets))}
    why = f"'{ex.name}.{old}' was renamed to '{new}' in {ex.origin}"
    paths = {f"{t}.{old}" for t in ex.targets}  # ``mock.patch("pkg.net.Client.send")``
    return [Span(at, at + len(old), "rename", f"'{old}': {why}", (new,)) for at in sorted(places)] \
        + path_mentions(den.text, den.index.tree, paths, old, new, why)


def _keeps_name(index: ScopeIndex, occ: Occurrence, taken: bool) -> bool:
    """Whether an import of the renamed name must keep binding the old one (``new as old``).

    Where the module binds the new name itself (``taken``), where the import binds a class
    attribute (``self.Percolator`` reads it), and where the module binds the old name
    otherwise too (``if WIN: from ._win import f`` / ``else: def f(…)``): its own binding
    is no rename of the other module's.
    """
    return taken or index.is_member(occ) or any(
        r.binding and r.start != occ.start for r in index.references(occ))


def _calls(den: Denotations, group: list[Exported]) -> list[Span]:
    """The call sites of one changed def through this module's names for it.

    ``group``: the def's exports (a changed ``__init__``'s class and the subclasses that
    inherit it are called as one def).
    """
    change = group[0].change
    assert change is not None
    by_name: dict[str, set[int]] = {}  # the name a call goes by → where such calls name it
    init = change.name == "__init__"
    callee = set().union(*(ex.callee for ex in group))
    targets = set().union(*(ex.targets for ex in group))
    for node in ast.walk(den.index.tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        if callee & set(den.of(f)):
            at = den.offset(f.lineno, f.col_offset) if isinstance(f, ast.Name) \
                else den.attr_start(f) if isinstance(f, ast.Attribute) else -1
            by_name.setdefault(callee_name(f), set()).add(at)
        elif init and isinstance(f, ast.Attribute) and f.attr == "__init__" and \
                targets & set(den.of(f.value)):  # ``C.__init__(o, …)``, ``m.C.__init__``
            by_name.setdefault(callee_name(f.value), set()).add(den.attr_start(f))
    if group[0].instance_method:  # objects of the class, and of subclasses inheriting it
        heirs = frozenset(c.name for c in _subclasses(den, targets, change.name)
                          if not defines(c, change.name))
        made_by = frozenset().union(*(ex.made_by for ex in group))
        by_name.setdefault(change.name, set()).update(
            instance_calls(den, targets, change.name, heirs, made_by))
    for cls in _subclasses(den, targets) if init else []:
        by_name.setdefault("super", set()).update(_super_inits(den, cls))
        if not defines(cls, "__init__"):  # ``Foo(…)`` calls the inherited ``__init__``
            by_name.setdefault(cls.name, set()).update(_class_calls(den, cls))
    if not by_name:
        return []
    # one run over every name the def goes by here, so a call nested in another's arguments
    # under another name (``m.f(g(1))``) is updated inside the outer call's span
    names = tuple(by_name)
    local = replace(change, qualname=f"{names[0]}.__init__", callers=names[1:]) if init \
        else replace(change, name=names[0], qualname=names[0], callers=names[1:]) \
        if change.qualname == change.name else replace(change, callers=names[1:])
    places = set().union(*by_name.values())
    return [replace(s, reason=f"{s.reason} (defined in {group[0].origin})")
            for s in call_site_spans(den.text, local, lambda at: at not in places)]


def _subclasses(den: Denotations, targets: set[str], method: str | None = "__init__"
                ) -> list[ast.ClassDef]:
    """The module's classes deriving from a class ``targets`` names, or from an heir of one.

    All of them call the changed ``method`` (:func:`.signature.lineage`); None: every one.
    """
    return lineage([c for c in ast.walk(den.index.tree) if isinstance(c, ast.ClassDef)],
                   lambda b: bool(targets & set(den.of(b))), method)


def _class_calls(den: Denotations, cls: ast.ClassDef) -> set[int]:
    """Where the module names the class (its own binding's references)."""
    at = den.text.find(cls.name, den.offset(cls.lineno, cls.col_offset))
    occ = den.index.at(at)
    if occ is None or occ.start != at or not occ.binding:
        return set()
    return {r.start for r in den.index.references(occ) if r.key == occ.key and not r.binding}


def _super_inits(den: Denotations, cls: ast.ClassDef) -> set[int]:
    """Where the class's own methods call ``super().__init__``."""
    return {den.attr_start(node.func) for method in cls.body
            if isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef)
            for node in ast.walk(method)
            if isinstance(node, ast.Call) and is_super_init(node.func)}


def _reexported(den: Denotations, ex: Exported, names: tuple[str, ...]) -> list[Exported]:
    """The changed name as this module's own, where it imports it at its top level."""
    out = []
    tree = den.index.tree
    factories = ex.factories | _factories_here(den, ex.factories, names)
    for b in den.bound:
        if b.node not in tree.body:
            continue
        if b.star and ex.starred and f"{b.dotted}.{ex.name}" in ex.targets:
            out.append(replace(ex, modules=names, starred=star_exported(tree, ex.name),
                               factories=factories))
        elif not b.star and b.dotted in ex.modules:  # the module itself, under another name
            out.append(replace(ex, modules=tuple(f"{n}.{b.local}" for n in names),
                               starred=star_exported(tree, b.local), factories=factories))
        elif not b.star and b.dotted in ex.targets:
            kept = b.aliased or ex.new is not None and _binds(den, ex.new)  # ``new as old``
            change = ex.change
            if change is not None and change.qualname == change.name:
                change = replace(change, name=b.local, qualname=b.local)
            if change is not None or ex.member is not None or not kept:
                out.append(Exported(names, b.local, None if kept else ex.new, change,
                                    ex.origin, ex.member, star_exported(tree, b.local),
                                    ex.makers, factories))
    return out


def _factories_here(den: Denotations, factories: frozenset[str], names: tuple[str, ...]
                    ) -> frozenset[str]:
    """The names the module gives the factory functions it imports at its top level.

    ``from .net import open_client`` in ``pkg/__init__.py`` makes ``pkg.open_client`` one;
    ``import pkg.net as net`` makes ``<here>.net.open_client`` one.
    """
    out = set()
    for b in den.bound:
        if b.node not in den.index.tree.body:
            continue
        for f in factories:
            module, _, name = f.rpartition(".")
            if b.star and module == b.dotted and star_exported(den.index.tree, name):
                out |= {f"{n}.{name}" for n in names}
            elif not b.star and (f == b.dotted or f.startswith(b.dotted + ".")):
                out |= {f"{n}.{b.local}{f[len(b.dotted):]}" for n in names}
    return frozenset(out)


def _inheriting(den: Denotations, group: list[Exported], names: tuple[str, ...]
                ) -> list[Exported]:
    """The module's top-level classes that inherit a changed ``__init__``, as its exports.

    ``group``: one def's exports (its class and the heirs already found); their subclasses
    here are looked for once, not once per heir (a class such as jinja2's ``Node`` has
    dozens).
    """
    change = group[0].change
    if change is None or not (change.name == "__init__" or group[0].instance_method):
        return []
    top = module_classes(den.index.tree)
    return [Exported(names, c.name, None, replace(change, qualname=f"{c.name}.{change.name}"),
                     group[0].origin, starred=star_exported(den.index.tree, c.name),
                     makers=group[0].makers)
            for c in _subclasses(den, set().union(*(ex.targets for ex in group)), change.name)
            if c in top and not defines(c, change.name)]


def _binds(den: Denotations, name: str) -> bool:
    """Whether the module binds ``name`` itself (then an import of that name would clash)."""
    return any(o.binding and o.name == name for o in den.index.occurrences)


def _merged(exports: list[Exported]) -> list[Exported]:
    """One export per changed name, under all the modules it is found in.

    Every module that does ``import unittest`` re-exports ``unittest.TestCase`` as its own
    ``m.unittest.TestCase``: looked for one at a time, 28 such re-exports made each file be
    read 28 times.
    """
    by_key: dict[tuple, list[str]] = {}
    for ex in exports:
        names = by_key.setdefault((ex.name, ex.new, ex.change, ex.origin, ex.member,
                                   ex.starred, ex.makers, ex.factories), [])
        names += [m for m in ex.modules if m not in names]
    return [Exported(tuple(modules), *key) for key, modules in by_key.items()]


def _distinct(spans: list[Span]) -> list[Span]:
    seen: dict[tuple[int, int], Span] = {}
    for s in sorted(spans, key=lambda s: s.start):
        seen.setdefault((s.start, s.end), s)
    return list(seen.values())


def project_spans(before: str, after: str, path: str, others: Mapping[str, str],
                  root: str | None = None, cap: int = 600) -> dict[str, list[Span]]:
    """Spans in each of ``others`` (path → text) for the edit of ``path`` from ``before``."""
    return follow(exported(before, after, module_names(path, root)), path, others, root, cap)


def follow(exports: list[Exported], path: str, others: Mapping[str, str],
           root: str | None = None, cap: int = 600) -> dict[str, list[Span]]:
    """Spans in each of ``others`` (path → text) for ``exports`` of the module at ``path``.

    Re-exports are followed: a package's ``__init__.py`` that imports the name makes the
    modules importing it from the package follow as well, through at most ``_DEPTH`` modules.
    Each file's spans are merged and capped as one edit's are (:func:`.spans.merge_and_cap`).
    A renamed import or reference takes the new name, which the edit determines and which
    the Rewriter ranks first wherever it validates: those spans get no model pass
    (``model=False``; denoising each cost a rename used in 27 modules 45 CPU-seconds), and
    the file's proposal is checked whole. A call site's new argument is the model's to write.
    """
    found: dict[str, list[Span]] = {}
    seen: set[Exported] = set()
    indexes: dict[str, ScopeIndex | None] = {}
    for _ in range(_DEPTH):
        fresh = [e for e in exports if e not in seen]
        if not fresh:
            break
        seen |= set(fresh)
        fresh = _merged(fresh)
        exports = []
        for other, text in others.items():
            if other == path:
                continue
            names = module_names(other, root)
            if not names:
                continue
            spans, onward = spans_in(text, names[0], is_package(other), fresh, names,
                                     indexes)
            found.setdefault(other, []).extend(spans)
            exports += onward
    return {p: [replace(x, model=False) if x.kind == "rename" and x.mechanical else x
                for x in merge_and_cap(_distinct(s), cap, 0)] for p, s in found.items() if s}

"""A changed signature: which def's parameters differ between two texts, and how.

The other half, the call sites that follow it, is :mod:`.callsite`. Model-free: plain ``ast``.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from .edits import ast_offset as _offset
from .edits import line_starts, parse_python

POSITIONAL = ("posonly", "pos")


@dataclass(frozen=True)
class Param:
    name: str
    kind: str  # posonly | pos | vararg | kwonly | kwarg
    default: bool
    value: str | None = None  # the default as written
    at_call: str | None = None  # what a call site passes for the default, where it can
    reads: str | None = None  # the name ``at_call`` reads (None: a literal), a call's to hide


@dataclass(frozen=True)
class SignatureChange:
    """One def whose parameters differ between two texts."""

    name: str
    qualname: str
    method: bool  # defined in a class with a self/cls first parameter
    old: tuple[Param, ...]
    new: tuple[Param, ...]
    line: int = 0  # the def's line in the text after the edit
    classmethod: bool = False  # its first parameter is bound through the class too
    callers: tuple[str, ...] = ()  # more names calls reach it by: another module's aliases,
    # subclasses that inherit a changed ``__init__``

    def def_in(self, tree: ast.Module) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        """The changed def in ``tree``, the text after the edit (found by its line and name)."""
        return next((n for n in ast.walk(tree)
                     if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
                     and n.lineno == self.line and n.name == self.name), None)

    @property
    def in_class(self) -> bool:
        """Defined in a class body (a staticmethod too): called through the class or an object."""
        head = self.qualname.rpartition(".")[0]
        return bool(head) and not head.endswith("<locals>")

    @property
    def subkind(self) -> str:
        """The real-edits labels: add-param, remove-param, rename-param or other."""
        o, n = [p.name for p in self.old], [p.name for p in self.new]
        if len(o) < len(n) and _subsequence(o, n):
            return "add-param"
        if len(n) < len(o) and _subsequence(n, o):
            return "remove-param"
        same = [(a.kind, a.default) == (b.kind, b.default) for a, b in zip(self.old, self.new,
                                                                          strict=False)]
        if len(o) == len(n) and all(same) and o != n and sorted(o) != sorted(n):
            return "rename-param"  # (the same names in another order are no rename)
        return "other"

    @property
    def summary(self) -> str:
        """What changed, in words, for the reason a call site is shown with."""
        old = {p.name: p for p in self.old}
        new = {p.name: p for p in self.new}
        gone, added = [n for n in old if n not in new], [n for n in new if n not in old]
        if self.subkind == "rename-param":
            return ", ".join(f"{a.name} renamed to {b.name}"
                             for a, b in zip(self.old, self.new, strict=True) if a.name != b.name)
        parts = [f"{n} removed" for n in gone] + [f"{n} added" for n in added]
        kept = [n for n in new if n in old]
        if [n for n in old if n in new] != kept:
            parts.append("parameters reordered")
        for n in kept:
            a, b = old[n], new[n]
            if a.kind != b.kind and b.kind in ("kwonly", "posonly"):
                parts.append(f"{n} made {'keyword' if b.kind == 'kwonly' else 'positional'}-only")
            if a.default and not b.default:
                parts.append(f"{n}'s default dropped")
        return "; ".join(parts) or self.subkind

    def called_by(self, call: ast.Call) -> bool:
        """Whether ``call`` calls this function, as far as names tell.

        A changed ``__init__`` is called as its class (``C(...)``, ``C.__init__(self, ...)``)
        and as ``super().__init__(...)`` — from a subclass; the caller's ``elsewhere`` drops the
        one in its own class, which calls a parent's (:meth:`.scopes.ScopeIndex.may_share`).
        """
        parts = self.qualname.split(".")
        if not (self.name == "__init__" and self.method and len(parts) > 1):
            return callee(call) in (self.name, *self.callers)
        f = call.func
        if isinstance(f, ast.Attribute) and f.attr == "__init__":
            return callee_name(f.value) in (parts[-2], *self.callers) or is_super_init(f)
        return callee(call) in (parts[-2], *self.callers)


def signature_change(before: str, after: str) -> SignatureChange | None:
    """Return the first def (in file order) whose parameters changed, or None.

    Defs are paired by qualified name and occurrence, as the real-edits miner pairs them.
    """
    try:
        old, new = _defs(parse_python(before)), _defs(parse_python(after))
    except SyntaxError:
        return None
    for key, (node, method, hidden) in new.items():
        if key in old and ast.dump(old[key][0].args) != ast.dump(node.args):
            return SignatureChange(node.name, key[0], method,
                                   _params(old[key][0].args, before, old[key][2]),
                                   _params(node.args, after, hidden), node.lineno,
                                   method and _decorated(node, "classmethod"))
    return None


def _statements(node: ast.AST) -> Iterator[ast.stmt]:
    """The statements of ``node``'s blocks (body, else, except clauses, cases…), in order.

    A def is a statement, so a walk for defs never reads an expression: most of the nodes.
    """
    for name in node._fields:
        value = getattr(node, name)
        if name in ("handlers", "cases"):  # except clauses, match cases: their bodies
            for clause in value:
                yield from clause.body
        elif isinstance(value, list) and value and isinstance(value[0], ast.stmt):
            yield from value


# the def, whether a method, and its class's names and how they are reached from outside it
_Def = tuple[ast.FunctionDef, bool, tuple[frozenset[str], str | None]]


def _defs(tree: ast.Module) -> dict[tuple[str, int], _Def]:
    out: dict[tuple[str, int], _Def] = {}
    seen: dict[str, int] = {}

    def walk(node: ast.AST, prefix: str, in_class: bool,
             hidden: tuple[frozenset[str], str | None]) -> None:
        for child in _statements(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                q = prefix + child.name
                seen[q] = seen.get(q, -1) + 1
                first = (child.args.posonlyargs + child.args.args)[:1]
                method = in_class and bool(first) and not _decorated(child, "staticmethod") \
                    and (first[0].arg in ("self", "cls") or _decorated(child, "classmethod"))
                out[(q, seen[q])] = (child, method, hidden)
                walk(child, q + ".<locals>.", False, (frozenset(), None))
            elif isinstance(child, ast.ClassDef):
                q = prefix + child.name
                walk(child, q + ".", True, (_class_names(child),
                                            None if "<locals>" in q else q))
            else:
                walk(child, prefix, in_class, hidden)

    walk(tree, "", False, (frozenset(), None))
    return out


def _class_names(node: ast.ClassDef) -> frozenset[str]:
    """The names a class body binds: what its defs' defaults may read and a call site not."""
    names = set()
    for stmt in _statements(node):
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(stmt.name)
        elif isinstance(stmt, ast.Import | ast.ImportFrom):
            names |= {(a.asname or a.name).split(".")[0] for a in stmt.names}
        else:
            names |= {n.id for n in ast.walk(stmt)
                      if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return frozenset(names)


def _decorated(node: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
    """Whether ``node`` carries the built-in decorator ``name`` (``@classmethod``)."""
    return any(isinstance(d, ast.Name) and d.id == name for d in node.decorator_list)


def _params(args: ast.arguments, text: str,
            hidden: tuple[frozenset[str], str | None]) -> tuple[Param, ...]:
    starts = line_starts(text)  # once: ``ast.get_source_segment`` splits the whole text a call

    def param(name: str, kind: str, d: ast.expr | None) -> Param:
        if d is None:
            return Param(name, kind, False)
        value = text[_offset(text, starts, d.lineno, d.col_offset):
                     _offset(text, starts, d.end_lineno, d.end_col_offset)]
        return Param(name, kind, True, value, *_at_call(d, value, *hidden))

    pos = [*args.posonlyargs, *args.args]
    defaults = [None] * (len(pos) - len(args.defaults)) + list(args.defaults)
    out = [param(a.arg, "posonly" if i < len(args.posonlyargs) else "pos", d)
           for i, (a, d) in enumerate(zip(pos, defaults, strict=True))]
    if args.vararg:
        out.append(Param(args.vararg.arg, "vararg", False))
    out += [param(a.arg, "kwonly", d)
            for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)]
    if args.kwarg:
        out.append(Param(args.kwarg.arg, "kwarg", False))
    return tuple(out)


def _at_call(d: ast.expr, value: str, hidden: frozenset[str], owner: str | None
             ) -> tuple[str | None, str | None]:
    """``(Param.at_call, Param.reads)``: what a call site passes to mean the default ``d``.

    A literal (``-1``, ``None``, ``()``) or a name (``_MISSING``, ``os.sep``) as written; a
    name of the def's class body reached through the class (``_write`` → ``Conn._write``).
    A call (``object()``) would be another value at each call site: None.
    """
    try:
        ast.literal_eval(d)
        return value, None
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        pass
    root = d
    while isinstance(root, ast.Attribute):
        root = root.value
    if not isinstance(root, ast.Name) or "\n" in value:
        return None, None
    if root.id not in hidden:
        return value, root.id
    return (f"{owner}.{value}", owner.split(".")[0]) if owner else (None, None)


def _subsequence(short: list[str], long: list[str]) -> bool:
    it = iter(long)
    return all(x in it for x in short)


def callee(call: ast.Call) -> str:
    """The name a call goes by: ``f`` for ``f(...)`` and ``obj.f(...)``, else empty."""
    return callee_name(call.func)


def callee_name(f: ast.expr) -> str:
    """``f`` for ``f`` and ``obj.f`` (a class ``C.__init__`` is reached through), else empty."""
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def heirs(text: str, name: str) -> list[ast.ClassDef]:
    """The module-level classes deriving from class ``name`` that inherit its ``__init__``.

    ``Quiet('c')`` for ``class Quiet(TestCase): pass`` calls ``TestCase.__init__``.
    """
    try:
        tree = parse_python(text)
    except SyntaxError:
        return []
    return [c for c in lineage(module_classes(tree),
                               lambda b: isinstance(b, ast.Name) and b.id == name)
            if not defines(c, "__init__")]


def lineage(classes: list[ast.ClassDef], root: Callable[[ast.expr], bool],
            method: str | None = "__init__") -> list[ast.ClassDef]:
    """The ``classes`` deriving from a base ``root`` accepts, or from an heir of one.

    An heir inherits the root's ``method`` (``Assign(Stmt)`` where ``Stmt(Node)`` defines no
    ``__init__``): all of them call it, the ones with one of their own through ``super()``.
    ``method`` None: every class deriving from the root, through any heir.
    """
    found: list[ast.ClassDef] = []
    names: set[str] = set()  # of the found that inherit the root's ``method``
    while grown := [c for c in classes if c not in found and any(
            root(b) or isinstance(b, ast.Name) and b.id in names for b in c.bases)]:
        found += grown
        names |= {c.name for c in grown if method is None or not defines(c, method)}
    return found


def is_super_init(f: ast.expr) -> bool:
    """Whether ``f`` is ``super().__init__``."""
    return isinstance(f, ast.Attribute) and f.attr == "__init__" and \
        isinstance(f.value, ast.Call) and isinstance(f.value.func, ast.Name) \
        and f.value.func.id == "super"


def module_classes(tree: ast.Module) -> list[ast.ClassDef]:
    """The classes a module defines at its top level, inside ``if``/``try``/``with`` too."""
    out, todo = [], list(tree.body)
    while todo:
        node = todo.pop(0)
        if isinstance(node, ast.ClassDef):
            out.append(node)
        elif not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            todo += [c for c in ast.iter_child_nodes(node)
                     if isinstance(c, ast.stmt | ast.ExceptHandler)]
    return out


def defines(cls: ast.ClassDef, name: str) -> bool:
    """Whether a class body defines (or assigns) its own ``name``."""
    return any(isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == name
               or isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name
                                                    for t in n.targets)
               for n in cls.body)

"""A changed signature: which def's parameters differ between two texts, and how.

The other half, the call sites that follow it, is :mod:`.callsite`. Model-free: plain ``ast``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
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

    def called_by(self, call: ast.Call) -> bool:
        """Whether ``call`` calls this function, as far as names tell.

        A changed ``__init__`` is called as its class (``C(...)``, ``C.__init__(self, ...)``)
        and as ``super().__init__(...)`` — from a subclass; the caller's ``elsewhere`` drops the
        one in its own class, which calls a parent's (:meth:`.scopes.ScopeIndex.may_share`).
        """
        parts = self.qualname.split(".")
        if not (self.name == "__init__" and self.method and len(parts) > 1):
            return callee(call) == self.name
        f = call.func
        if isinstance(f, ast.Attribute) and f.attr == "__init__":
            return isinstance(f.value, ast.Name) and f.value.id == parts[-2] or \
                isinstance(f.value, ast.Call) and isinstance(f.value.func, ast.Name) \
                and f.value.func.id == "super"
        return callee(call) == parts[-2]


def signature_change(before: str, after: str) -> SignatureChange | None:
    """Return the first def (in file order) whose parameters changed, or None.

    Defs are paired by qualified name and occurrence, as the real-edits miner pairs them.
    """
    try:
        old, new = _defs(parse_python(before)), _defs(parse_python(after))
    except SyntaxError:
        return None
    for key, (node, method) in new.items():
        if key in old and ast.dump(old[key][0].args) != ast.dump(node.args):
            return SignatureChange(node.name, key[0], method,
                                   _params(old[key][0].args, before), _params(node.args, after),
                                   node.lineno, method and _decorated(node, "classmethod"))
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


def _defs(tree: ast.Module) -> dict[tuple[str, int], tuple[ast.FunctionDef, bool]]:
    out: dict[tuple[str, int], tuple[ast.FunctionDef, bool]] = {}
    seen: dict[str, int] = {}

    def walk(node: ast.AST, prefix: str, in_class: bool) -> None:
        for child in _statements(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                q = prefix + child.name
                seen[q] = seen.get(q, -1) + 1
                first = (child.args.posonlyargs + child.args.args)[:1]
                method = in_class and bool(first) and not _decorated(child, "staticmethod") \
                    and (first[0].arg in ("self", "cls") or _decorated(child, "classmethod"))
                out[(q, seen[q])] = (child, method)
                walk(child, q + ".<locals>.", False)
            elif isinstance(child, ast.ClassDef):
                walk(child, prefix + child.name + ".", True)
            else:
                walk(child, prefix, in_class)

    walk(tree, "", False)
    return out


def _decorated(node: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
    """Whether ``node`` carries the built-in decorator ``name`` (``@classmethod``)."""
    return any(isinstance(d, ast.Name) and d.id == name for d in node.decorator_list)


def _params(args: ast.arguments, text: str) -> tuple[Param, ...]:
    starts = line_starts(text)  # once: ``ast.get_source_segment`` splits the whole text a call

    def value(d: ast.expr | None) -> str | None:
        if d is None:
            return None
        return text[_offset(text, starts, d.lineno, d.col_offset):
                    _offset(text, starts, d.end_lineno, d.end_col_offset)]

    pos = [*args.posonlyargs, *args.args]
    defaults = [None] * (len(pos) - len(args.defaults)) + list(args.defaults)
    out = [Param(a.arg, "posonly" if i < len(args.posonlyargs) else "pos", d is not None,
                 value(d)) for i, (a, d) in enumerate(zip(pos, defaults, strict=True))]
    if args.vararg:
        out.append(Param(args.vararg.arg, "vararg", False))
    out += [Param(a.arg, "kwonly", d is not None, value(d))
            for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)]
    if args.kwarg:
        out.append(Param(args.kwarg.arg, "kwarg", False))
    return tuple(out)


def _subsequence(short: list[str], long: list[str]) -> bool:
    it = iter(long)
    return all(x in it for x in short)


def callee(call: ast.Call) -> str:
    """The name a call goes by: ``f`` for ``f(...)`` and ``obj.f(...)``, else empty."""
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""

"""Calls of a method on objects a module can tell are of a class another module defines.

An instance method's callers hold objects, and which class an object has is not written at
the call. It is where the module says so: a parameter or variable annotated with the class
(``c: Client``, ``Client | None``, ``Optional[Client]``, ``"Client"``), a name bound to a
new instance (``c = Client(…)``, ``with Client(…) as c``), the instance itself
(``Client(…).send(…)``), or an attribute of ``self`` the class says holds one (``client:
Client`` in its body, ``self.client = Client(…)`` or a parameter so annotated, in a method).
Those calls of ``send`` are the changed method's; any other ``.send`` may be another class's
and is left. A name rebound to something else in the same scope still counts (names are
followed by scope, not by flow).
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from .modules import Denotations
from .signature import callee_name


def instance_calls(den: Denotations, classes: set[str], method: str,
                   local: frozenset[str] = frozenset()) -> set[int]:
    """Where ``obj.method(…)`` names the method, for each ``obj`` of one of ``classes``.

    ``classes`` are dotted names (``pkg.net.Client``), as :meth:`Denotations.of` gives them;
    ``local``: the names of this module's own classes that count too (its subclasses of
    them that inherit the method).
    """
    called = {id(n.func) for n in ast.walk(den.index.tree) if isinstance(n, ast.Call)}
    return instance_uses(den, classes, method, lambda node: id(node) in called, local)


def instance_uses(den: Denotations, classes: set[str], attr: str,
                  keep: Callable[[ast.Attribute], bool] = lambda node: True,
                  local: frozenset[str] = frozenset()) -> set[int]:
    """Where ``obj.attr`` names the attribute, for each ``obj`` of one of ``classes``."""
    wanted = _Classes(den, classes, local)
    typed = _typed_names(den, wanted)
    out = set()
    for node in ast.walk(den.index.tree):
        if not (isinstance(node, ast.Attribute) and node.attr == attr and keep(node)):
            continue
        obj = node.value
        if isinstance(obj, ast.Name) and _key(den, obj) in typed or \
                isinstance(obj, ast.Call) and wanted.named(obj.func):
            out.add(den.attr_start(node))
    for method, fields in _typed_fields(den, wanted):  # ``self.client.send``
        this = _self_name(method)
        for node in ast.walk(method):
            if isinstance(node, ast.Attribute) and node.attr == attr and keep(node) and \
                    _is_field(node.value, this, fields):
                out.add(den.attr_start(node))
    return out


def _typed_names(den: Denotations, classes: _Classes) -> set[tuple]:
    """The scope keys of the names the module says hold instances of ``classes``."""
    keys: set[tuple] = set()
    for node in ast.walk(den.index.tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            a = node.args
            for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs]:
                if classes.annotated(arg.annotation):
                    keys.add(_key(den, arg))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            if classes.annotated(node.annotation):
                keys.add(_key(den, node.target))
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and \
                isinstance(node.targets[0], ast.Name) and isinstance(node.value, ast.Call):
            if classes.named(node.value.func):
                keys.add(_key(den, node.targets[0]))
        elif isinstance(node, ast.withitem) and isinstance(node.optional_vars, ast.Name) and \
                isinstance(node.context_expr, ast.Call):
            if classes.named(node.context_expr.func):
                keys.add(_key(den, node.optional_vars))
    keys.discard(None)
    return keys


def _typed_fields(den: Denotations, classes: _Classes
                  ) -> list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, set[str]]]:
    """Each method of a class whose attributes hold instances of ``classes``, with those.

    An attribute holds one where the class annotates it (``client: Client``, a dataclass's
    field) or a method sets it to a new instance (``self.client = Client(…)``), to a
    parameter annotated with the class, or with an annotation (``self.client: Client = …``).
    """
    out = []
    for cls in ast.walk(den.index.tree):
        if not isinstance(cls, ast.ClassDef):
            continue
        methods = [f for f in cls.body if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)
                   and _self_name(f)]
        fields = {s.target.id for s in cls.body if isinstance(s, ast.AnnAssign) and
                  isinstance(s.target, ast.Name) and classes.annotated(s.annotation)}
        for f in methods:
            this, a = _self_name(f), f.args
            params = {p.arg for p in [*a.posonlyargs, *a.args, *a.kwonlyargs]
                      if classes.annotated(p.annotation)}
            for node in ast.walk(f):
                if isinstance(node, ast.Assign) and len(node.targets) == 1:
                    target, value = node.targets[0], node.value
                    if _is_field(target, this) and (
                            isinstance(value, ast.Call) and classes.named(value.func)
                            or isinstance(value, ast.Name) and value.id in params):
                        fields.add(target.attr)
                elif isinstance(node, ast.AnnAssign) and _is_field(node.target, this) and \
                        classes.annotated(node.annotation):
                    fields.add(node.target.attr)
        if fields:
            out += [(f, fields) for f in methods]
    return out


def _self_name(method: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    """The name a method calls its instance by; None for a static or class method."""
    a = method.args
    first = [*a.posonlyargs, *a.args][:1]
    if not first or any(callee_name(d) in ("staticmethod", "classmethod")
                        for d in method.decorator_list):
        return None
    return first[0].arg


def _is_field(expr: ast.expr, this: str | None, fields: set[str] | None = None) -> bool:
    """Whether ``expr`` is ``self.name`` (``this`` is ``self``), of ``fields`` if given."""
    return isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and \
        expr.value.id == this and (fields is None or expr.attr in fields)


class _Classes:
    """The classes whose objects count, and how a module may name one."""

    def __init__(self, den: Denotations, dotted: set[str], local: frozenset[str]) -> None:
        self.den, self.dotted, self.local = den, dotted, local

    def named(self, expr: ast.expr) -> bool:
        """Whether ``expr`` names one of the classes (an import of it, or a local class)."""
        return bool(self.dotted & set(self.den.of(expr))) or \
            isinstance(expr, ast.Name) and expr.id in self.local and not self.den.of(expr)

    def annotated(self, ann: ast.expr | None) -> bool:
        """Whether an annotation says "one of the classes", or that or None."""
        if ann is None:
            return False
        if isinstance(ann, ast.Constant) and isinstance(ann.value, str):  # ``"Client"``
            return ann.value in self.local or \
                any(c.rpartition(".")[2] == ann.value for c in self.dotted) and \
                any(b.local == ann.value for b in self.den.bound if b.dotted in self.dotted)
        if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):  # ``Client | None``
            sides = (ann.left, ann.right)
            return any(_is_none(s) for s in sides) and \
                any(self.annotated(s) for s in sides if not _is_none(s))
        if isinstance(ann, ast.Subscript) and callee_name(ann.value) == "Optional":
            return self.annotated(ann.slice)
        return self.named(ann)


def _is_none(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Constant) and expr.value is None


def _key(den: Denotations, node: ast.Name | ast.arg) -> tuple | None:
    """The scope key of the name written at ``node``."""
    at = den.offset(node.lineno, node.col_offset)
    occ = den.index.at(at)
    return occ.key if occ is not None and occ.start == at else None

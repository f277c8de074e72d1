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


def instance_calls(den: Denotations, classes: set[str], method: str) -> set[int]:
    """Where ``obj.method(…)`` names the method, for each ``obj`` of one of ``classes``.

    ``classes`` are dotted names (``pkg.net.Client``), as :meth:`Denotations.of` gives them.
    """
    called = {id(n.func) for n in ast.walk(den.index.tree) if isinstance(n, ast.Call)}
    return instance_uses(den, classes, method, lambda node: id(node) in called)


def instance_uses(den: Denotations, classes: set[str], attr: str,
                  keep: Callable[[ast.Attribute], bool] = lambda node: True) -> set[int]:
    """Where ``obj.attr`` names the attribute, for each ``obj`` of one of ``classes``."""
    typed = _typed_names(den, classes)
    out = set()
    for node in ast.walk(den.index.tree):
        if not (isinstance(node, ast.Attribute) and node.attr == attr and keep(node)):
            continue
        obj = node.value
        if isinstance(obj, ast.Name) and _key(den, obj) in typed or \
                isinstance(obj, ast.Call) and _is_class(den, obj.func, classes):
            out.add(den.attr_start(node))
    for method, fields in _typed_fields(den, classes):  # ``self.client.send``
        this = _self_name(method)
        for node in ast.walk(method):
            if isinstance(node, ast.Attribute) and node.attr == attr and keep(node) and \
                    _is_field(node.value, this, fields):
                out.add(den.attr_start(node))
    return out


def _typed_names(den: Denotations, classes: set[str]) -> set[tuple]:
    """The scope keys of the names the module says hold instances of ``classes``."""
    keys: set[tuple] = set()
    for node in ast.walk(den.index.tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            a = node.args
            for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs]:
                if _annotated(den, arg.annotation, classes):
                    keys.add(_key(den, arg))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            if _annotated(den, node.annotation, classes):
                keys.add(_key(den, node.target))
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and \
                isinstance(node.targets[0], ast.Name) and isinstance(node.value, ast.Call):
            if _is_class(den, node.value.func, classes):
                keys.add(_key(den, node.targets[0]))
        elif isinstance(node, ast.withitem) and isinstance(node.optional_vars, ast.Name) and \
                isinstance(node.context_expr, ast.Call):
            if _is_class(den, node.context_expr.func, classes):
                keys.add(_key(den, node.optional_vars))
    keys.discard(None)
    return keys


def _typed_fields(den: Denotations, classes: set[str]
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
                  isinstance(s.target, ast.Name) and _annotated(den, s.annotation, classes)}
        for f in methods:
            this, a = _self_name(f), f.args
            params = {p.arg for p in [*a.posonlyargs, *a.args, *a.kwonlyargs]
                      if _annotated(den, p.annotation, classes)}
            for node in ast.walk(f):
                if isinstance(node, ast.Assign) and len(node.targets) == 1:
                    target, value = node.targets[0], node.value
                    if _is_field(target, this) and (
                            isinstance(value, ast.Call) and _is_class(den, value.func, classes)
                            or isinstance(value, ast.Name) and value.id in params):
                        fields.add(target.attr)
                elif isinstance(node, ast.AnnAssign) and _is_field(node.target, this) and \
                        _annotated(den, node.annotation, classes):
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


def _annotated(den: Denotations, ann: ast.expr | None, classes: set[str]) -> bool:
    """Whether an annotation says "one of ``classes``", or that or None."""
    if ann is None:
        return False
    if isinstance(ann, ast.Constant) and isinstance(ann.value, str):  # ``"Client"``
        return any(c.rpartition(".")[2] == ann.value for c in classes) and \
            any(b.local == ann.value for b in den.bound if b.dotted in classes)
    if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):  # ``Client | None``
        sides = (ann.left, ann.right)
        return any(_is_none(s) for s in sides) and \
            any(_annotated(den, s, classes) for s in sides if not _is_none(s))
    if isinstance(ann, ast.Subscript) and callee_name(ann.value) == "Optional":
        return _annotated(den, ann.slice, classes)
    return _is_class(den, ann, classes)


def _is_class(den: Denotations, expr: ast.expr, classes: set[str]) -> bool:
    return bool(classes & set(den.of(expr)))


def _is_none(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Constant) and expr.value is None


def _key(den: Denotations, node: ast.Name | ast.arg) -> tuple | None:
    """The scope key of the name written at ``node``."""
    at = den.offset(node.lineno, node.col_offset)
    occ = den.index.at(at)
    return occ.key if occ is not None and occ.start == at else None

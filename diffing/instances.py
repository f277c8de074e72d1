"""Calls of a method on objects a module can tell are of a class another module defines.

An instance method's callers hold objects, and which class an object has is not written at
the call. It is where the module says so: a parameter or variable annotated with the class
(``c: Client``, ``Client | None``, ``Optional[Client]``, ``"Client"``), a name bound to a
new instance (``c = Client(…)``, ``with Client(…) as c``), the instance itself
(``Client(…).send(…)``), or an attribute of ``self`` the class says holds one (``client:
Client`` in its body, ``self.client = Client(…)`` or a parameter so annotated, in a method),
or a name bound to what a factory of the class returns (``Client.connect(…)``,
``await open_client(…)``: :func:`factories`). Those calls of ``send`` are the changed
method's; any other ``.send`` may be another class's and is left. A name rebound to
something else in the same scope still counts (names are followed by scope, not by flow).
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from .modules import Denotations
from .signature import callee_name


def instance_calls(den: Denotations, classes: set[str], method: str,
                   local: frozenset[str] = frozenset(),
                   made_by: frozenset[str] = frozenset()) -> set[int]:
    """Where ``obj.method(…)`` names the method, for each ``obj`` of one of ``classes``.

    ``classes`` are dotted names (``pkg.net.Client``), as :meth:`Denotations.of` gives them;
    ``local``: the names of this module's own classes that count too (its subclasses of
    them that inherit the method); ``made_by``: the dotted names of the callables that
    return one (``pkg.net.Client.connect``, ``pkg.net.open_client``).
    """
    called = {id(n.func) for n in ast.walk(den.index.tree) if isinstance(n, ast.Call)}
    return instance_uses(den, classes, method, lambda node: id(node) in called, local, made_by)


def instance_uses(den: Denotations, classes: set[str], attr: str,
                  keep: Callable[[ast.Attribute], bool] = lambda node: True,
                  local: frozenset[str] = frozenset(),
                  made_by: frozenset[str] = frozenset()) -> set[int]:
    """Where ``obj.attr`` names the attribute, for each ``obj`` of one of ``classes``."""
    wanted = _Classes(den, classes, local, made_by)
    typed = _typed_names(den, wanted)
    out = set()
    for node in ast.walk(den.index.tree):
        if not (isinstance(node, ast.Attribute) and node.attr == attr and keep(node)):
            continue
        obj = node.value
        if isinstance(obj, ast.Name) and _key(den, obj) in typed or wanted.makes(obj):
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
                isinstance(node.targets[0], ast.Name):
            if classes.makes(node.value):
                keys.add(_key(den, node.targets[0]))
        elif isinstance(node, ast.withitem) and isinstance(node.optional_vars, ast.Name):
            if classes.makes(node.context_expr):
                keys.add(_key(den, node.optional_vars))
    keys.discard(None)
    return keys


def _typed_fields(den: Denotations, classes: _Classes
                  ) -> list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, set[str]]]:
    """Each method of a class whose attributes hold instances of ``classes``, with those.

    An attribute holds one where the class annotates it (``client: Client``, a dataclass's
    field) or a method sets it to a new instance (``self.client = Client(…)``, a factory's),
    to a parameter annotated with the class, or with an annotation (``self.client: Client =
    …``).
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
                            classes.makes(value)
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

    def __init__(self, den: Denotations, dotted: set[str], local: frozenset[str],
                 made_by: frozenset[str]) -> None:
        self.den, self.dotted, self.local, self.made_by = den, dotted, local, made_by

    def named(self, expr: ast.expr) -> bool:
        """Whether ``expr`` names one of the classes (an import of it, or a local class)."""
        return bool(self.dotted & set(self.den.of(expr))) or \
            isinstance(expr, ast.Name) and expr.id in self.local and not self.den.of(expr)

    def makes(self, expr: ast.expr) -> bool:
        """Whether ``expr`` is a new instance: ``Client(…)``, a factory's call, either awaited."""
        if isinstance(expr, ast.Await):
            expr = expr.value
        return isinstance(expr, ast.Call) and (
            self.named(expr.func) or bool(self.made_by & set(self.den.of(expr.func))))

    def annotated(self, ann: ast.expr | None) -> bool:
        """Whether an annotation says "one of the classes", or that or None."""
        if ann is None:
            return False
        if isinstance(ann, ast.Constant) and isinstance(ann.value, str):  # ``"Client"``
            return ann.value in self.local or \
                any(c.rpartition(".")[2] == ann.value for c in self.dotted) and \
                any(b.local == ann.value for b in self.den.bound if b.dotted in self.dotted)
        inner = _optional(ann)  # ``Client | None``, ``Optional[Client]``
        if inner is not None:
            return any(self.annotated(s) for s in inner)
        return self.named(ann)


def _optional(ann: ast.expr) -> list[ast.expr] | None:
    """What ``X | None`` or ``Optional[X]`` allows besides None; None for other annotations.

    ``A | B`` allows nothing: neither side says "one of the classes" alone.
    """
    if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):
        sides = [ann.left, ann.right]
        return [s for s in sides if not _is_none(s)] if any(map(_is_none, sides)) else []
    if isinstance(ann, ast.Subscript) and callee_name(ann.value) == "Optional":
        return [ann.slice]
    return None


def _is_none(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Constant) and expr.value is None


def _key(den: Denotations, node: ast.Name | ast.arg) -> tuple | None:
    """The scope key of the name written at ``node``."""
    at = den.offset(node.lineno, node.col_offset)
    occ = den.index.at(at)
    return occ.key if occ is not None and occ.start == at else None


def factories(tree: ast.Module, cls: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """What the module ``tree`` makes objects of its class ``cls`` with, besides the class.

    (the class's methods, the module's functions): a class or static method that says it
    returns the class (``-> "Client"``, ``-> Self``, ``-> Client | None``) or whose every
    ``return`` is ``cls(…)``; a module-level function that says it returns the class or
    whose every ``return`` is ``Client(…)``. Another module's ``Client.connect(…)`` and
    ``open_client(…)`` then hold objects of the class.
    """
    makers, functions = [], []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and \
                _returns_new(node, {cls}, {cls}):
            functions.append(node.name)
        elif isinstance(node, ast.ClassDef) and node.name == cls:
            for f in node.body:
                if not isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef) or _self_name(f):
                    continue
                a = f.args
                first = [p.arg for p in [*a.posonlyargs, *a.args][:1]]
                classmethod_ = any(callee_name(d) == "classmethod" for d in f.decorator_list)
                if _returns_new(f, {cls, "Self"}, {cls, *first} if classmethod_ else {cls}):
                    makers.append(f.name)
    return tuple(makers), tuple(functions)


def _returns_new(fn: ast.FunctionDef | ast.AsyncFunctionDef, annotated: set[str],
                 called: set[str]) -> bool:
    """Whether ``fn`` says it returns one of ``annotated``, or returns only ``called(…)``."""
    if fn.returns is not None:
        return _names_one(fn.returns, annotated)
    returns = []
    todo: list[ast.AST] = list(fn.body)
    while todo:  # the function's own returns, not those of the defs nested in it
        node = todo.pop()
        if isinstance(node, ast.Return):
            returns.append(node.value)
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda |
                          ast.ClassDef):
            todo += ast.iter_child_nodes(node)
    return bool(returns) and all(
        isinstance(r, ast.Call) and isinstance(r.func, ast.Name) and r.func.id in called
        for r in returns)


def _names_one(ann: ast.expr, names: set[str]) -> bool:
    """Whether a return annotation names one of ``names`` (``X``, ``"X"``, ``t.X``), or None."""
    if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
        return ann.value in names
    inner = _optional(ann)
    if inner is not None:
        return any(_names_one(s, names) for s in inner)
    return isinstance(ann, ast.Name | ast.Attribute) and callee_name(ann) in names

"""One pass over a file's ``ast``: every name occurrence, the scope it is in, what it binds.

The raw material :mod:`.scopes` resolves into bindings once the whole file is read (a name
used before the line that binds it, annotations and classes defined further down): scopes
with the names each binds, and each occurrence with its kind and, for an attribute or a
call's keyword, what its object may be.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from .edits import ast_offset, line_starts
from .signature import callee

# The class of an object none of the file's classes made: what an import binds, a literal.
# (The file's classes are scope ids, never negative.)
NOT_OURS = -1
# Expressions whose value is a built-in type's: their methods are no file's methods.
_BUILT_IN = (ast.Constant, ast.JoinedStr, ast.List, ast.Tuple, ast.Set, ast.Dict,
             ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


@dataclass
class Scope:
    """A module, function, class or comprehension body, and the names it binds as it is read."""

    id: int
    kind: str  # module | function | class | comprehension
    parent: Scope | None
    name: str = ""
    bound: set[str] = field(default_factory=set)
    globals: set[str] = field(default_factory=set)
    nonlocals: set[str] = field(default_factory=set)
    receiver: str = ""  # a method's first parameter: ``self``, ``cls``
    typed: dict[str, str] = field(default_factory=dict)  # parameter: the class it is annotated
    made: dict[str, set[str]] = field(default_factory=dict)  # name: C of each = C(…), or ""
    imported: set[str] = field(default_factory=set)  # names an import binds here


@dataclass(frozen=True)
class Super:
    """What ``super()`` is in a method of class ``cls`` (a scope id): an object of a class above."""

    cls: int


@dataclass
class Raw:
    """One occurrence as the walk meets it; :mod:`.scopes` resolves it once the file is read."""

    start: int
    end: int
    name: str
    binding: bool
    kind: str
    scope: Scope
    function: str = ""
    owner: int | tuple[str, bool] | Super | None = None  # a class's id, or (name, called)


class Collector(ast.NodeVisitor):
    """Walks the tree once, recording raw occurrences in the scope where each appears."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = line_starts(text)
        self.scope = Scope(0, "module", None)
        self.raw: list[Raw] = []
        self.target_kind = "assignment"
        self.made_by = ""  # while an ``x = C(…)``'s targets are visited: ``C``
        self.classes: dict[int, tuple[str, list[str]]] = {}  # scope id: name, base names
        self.methods: set[int] = set()  # where undecorated methods' names are
        self._ids = 0

    # positions -----------------------------------------------------------------------------
    def offset(self, lineno: int, col: int) -> int:
        return ast_offset(self.text, self.starts, lineno, col)

    def add(self, name: str, start: int, binding: bool, kind: str, scope: Scope | None = None,
            function: str = "", owner: int | tuple[str, bool] | None = None) -> None:
        if self.text[start:start + len(name)] != name:
            return  # a position ast reports inexactly (old f-string quirks): skip, never guess
        scope = scope or self.scope
        if kind == "import":
            scope.imported.add(name)
        if binding and kind not in ("attribute", "keyword"):
            scope.bound.add(name)
            scope.made.setdefault(name, set()).add(self.made_by if kind == "assignment" else "")
        self.raw.append(Raw(start, start + len(name), name, binding, kind, scope, function,
                             owner))

    def add_after(self, pattern: str, name: str, node: ast.AST, binding: bool, kind: str) -> None:
        """Record ``name`` found by ``pattern`` (a regex with one group) inside ``node``."""
        a = self.offset(node.lineno, node.col_offset)
        b = self.offset(node.end_lineno, node.end_col_offset)
        m = re.compile(pattern.format(re.escape(name))).search(self.text, a, b)
        if m:
            self.add(name, m.start(1), binding, kind)

    def push(self, kind: str, name: str = "") -> Scope:
        self._ids += 1
        outer, self.scope = self.scope, Scope(self._ids, kind, self.scope, name)
        return outer

    # scopes --------------------------------------------------------------------------------
    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for d in node.decorator_list:
            self.visit(d)
        in_class, known = self.scope.kind == "class", len(self.raw)
        self.add_after(r"def\s+({})\b", node.name, node, True, "def")
        if in_class and not node.decorator_list and len(self.raw) > known:
            self.methods.add(self.raw[-1].start)  # not a property, whose setter ``self.x =`` calls
        self._outer_parts(node.args)
        if node.returns:
            self.visit(node.returns)
        outer = self.push("function", node.name)
        positional = [*node.args.posonlyargs, *node.args.args]
        if in_class and positional and not any(
                isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list):
            self.scope.receiver = positional[0].arg
        self._params(node.args, node.name)
        for stmt in node.body:
            self.visit(stmt)
        self.scope = outer

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self._outer_parts(node.args)
        outer = self.push("function", "<lambda>")
        self._params(node.args, "<lambda>")
        self.visit(node.body)
        self.scope = outer

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for d in [*node.decorator_list, *node.bases, *node.keywords]:
            self.visit(d)
        self.add_after(r"class\s+({})\b", node.name, node, True, "class")
        outer = self.push("class", node.name)
        self.classes[self.scope.id] = (node.name, [
            b.id if isinstance(b, ast.Name) else b.attr for b in node.bases
            if isinstance(b, ast.Name | ast.Attribute)])
        for stmt in node.body:
            self.visit(stmt)
        self.scope = outer

    def _comprehension(self, node: ast.AST, parts: list[ast.AST]) -> None:
        gens = node.generators
        self.visit(gens[0].iter)
        outer = self.push("comprehension")
        for i, g in enumerate(gens):
            self._target(g.target, "for-target")
            if i:
                self.visit(g.iter)
            for cond in g.ifs:
                self.visit(cond)
        for p in parts:
            self.visit(p)
        self.scope = outer

    def visit_ListComp(self, node: ast.ListComp) -> None:
        self._comprehension(node, [node.elt])

    visit_SetComp = visit_GeneratorExp = visit_ListComp

    def visit_DictComp(self, node: ast.DictComp) -> None:
        self._comprehension(node, [node.key, node.value])

    def _outer_parts(self, args: ast.arguments) -> None:
        """Defaults and annotations are evaluated where the def stands, not inside it."""
        for d in [*args.defaults, *(d for d in args.kw_defaults if d is not None)]:
            self.visit(d)
        for a in _all_args(args):
            if a.annotation:
                self.visit(a.annotation)

    def _params(self, args: ast.arguments, function: str) -> None:
        """Each parameter, with its function's name where a call may pass it by keyword."""
        by_keyword = {id(a) for a in [*args.args, *args.kwonlyargs]}
        method = self.scope.parent.id if self.scope.parent is not None and \
            self.scope.parent.kind == "class" else None
        for a in _all_args(args):
            hint = a.annotation
            if isinstance(hint, ast.Constant) and isinstance(hint.value, str):
                hint = ast.Name(hint.value)  # a forward reference: "Node"
            if isinstance(hint, ast.Name):
                self.scope.typed[a.arg] = hint.id
            self.add(a.arg, self.offset(a.lineno, a.col_offset), True, "parameter",
                     function=function if id(a) in by_keyword else "", owner=method)

    # bindings ------------------------------------------------------------------------------
    def _target(self, target: ast.AST, kind: str) -> None:
        outer, self.target_kind = self.target_kind, kind
        self.visit(target)
        self.target_kind = outer

    def visit_Name(self, node: ast.Name) -> None:
        binding = not isinstance(node.ctx, ast.Load)
        self.add(node.id, self.offset(node.lineno, node.col_offset), binding,
                 self.target_kind if binding else "use")

    def visit_For(self, node: ast.For | ast.AsyncFor) -> None:
        self._target(node.target, "for-target")
        for part in [node.iter, *node.body, *node.orelse]:
            self.visit(part)

    visit_AsyncFor = visit_For

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        self.visit(node.value)
        scope = self.scope
        while scope.kind == "comprehension" and scope.parent is not None:
            scope = scope.parent
        t = node.target
        self.add(t.id, self.offset(t.lineno, t.col_offset), True, "assignment", scope)

    def visit_MatchAs(self, node: ast.MatchAs) -> None:
        """``case [x]``, ``case str() as s``: a capture binds its name where the match is."""
        if node.pattern is not None:
            self.visit(node.pattern)
            if node.name:
                self.add_after(r"\bas\s+({})\b", node.name, node, True, "capture")
        elif node.name:
            self.add(node.name, self.offset(node.lineno, node.col_offset), True, "capture")

    def visit_MatchStar(self, node: ast.MatchStar) -> None:
        if node.name:
            self.add_after(r"\*\s*({})\b", node.name, node, True, "capture")

    def visit_MatchMapping(self, node: ast.MatchMapping) -> None:
        self.generic_visit(node)
        if node.rest:
            self.add_after(r"\*\*\s*({})\b", node.rest, node, True, "capture")

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self.visit(node.value)
        binding = isinstance(node.ctx, ast.Store)
        start = self.offset(node.end_lineno, node.end_col_offset) - len(node.attr)
        self.add(node.attr, start, binding, "attribute" if binding else "attribute-use",
                 owner=self._receiver_class(node.value))

    def _receiver_class(self, value: ast.expr) -> int | tuple | Super | None:
        """The class of ``value``: the class's id for a method's ``self`` / ``cls``.

        For another name, or a call of one (``A()``), the name and whether it is called,
        which :func:`scopes._class_of_name` resolves once the whole file is read
        (annotations, classes and ``= C(…)`` bindings may come later); for an attribute
        chain, its root name, not called, and True (``NOT_OURS`` where an import binds it);
        NOT_OURS for a literal; None for any other expression.
        """
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
            if value.func.id == "super" and self.scope.parent is not None \
                    and self.scope.parent.kind == "class":
                return Super(self.scope.parent.id)  # ``super().m``: a class above this one's
            return value.func.id, True  # ``A().show``: an A, where A is one of the file's classes
        if isinstance(value, _BUILT_IN):
            return NOT_OURS  # ``"a b".split(…)``, ``{}.items()``: no class of this file's
        if isinstance(value, ast.Attribute):  # ``sys.stdout.write``: what an import holds
            root = value
            while isinstance(root, ast.Attribute):
                root = root.value
            return (root.id, False, True) if isinstance(root, ast.Name) else None
        if not isinstance(value, ast.Name):
            return None
        s: Scope | None = self.scope
        while s is not None and value.id not in s.bound:
            s = s.parent
        if s is not None and s.kind == "function" and s.receiver == value.id \
                and s.parent is not None:
            return s.parent.id
        return value.id, False

    def visit_Assign(self, node: ast.Assign | ast.AnnAssign) -> None:
        if node.value is not None:
            self.visit(node.value)
        call = node.value.func if isinstance(node.value, ast.Call) else None
        hint = getattr(node, "annotation", None) or call
        if isinstance(node, ast.AnnAssign):
            self.visit(node.annotation)
        for t in node.targets if isinstance(node, ast.Assign) else [node.target]:
            outer = self.made_by  # a name bound to ``C(…)`` (or annotated ``C``) holds a C
            self.made_by = hint.id if isinstance(t, ast.Name) and isinstance(hint, ast.Name) \
                else ""
            self.visit(t)
            self.made_by = outer

    visit_AnnAssign = visit_Assign

    def visit_Call(self, node: ast.Call) -> None:
        self.generic_visit(node)
        f = node.func
        if not isinstance(f, ast.Name | ast.Attribute):
            return  # f()(x=1), fs[0](x=1): what is called is not known by name
        kind = "keyword" if isinstance(f, ast.Name) else "method-keyword"
        owner = self._receiver_class(f.value) if isinstance(f, ast.Attribute) else None
        for kw in node.keywords:
            if kw.arg is not None:
                self.add(kw.arg, self.offset(kw.lineno, kw.col_offset), False, kind,
                         function=callee(node), owner=owner)

    def visit_alias(self, node: ast.alias) -> None:
        if node.name == "*":
            return
        if node.asname:
            self.add_after(r"\bas\s+({})\b", node.asname, node, True, "import")
        else:
            self.add(node.name.split(".")[0], self.offset(node.lineno, node.col_offset), True,
                     "import")

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.type:
            self.visit(node.type)
        if node.name:
            self.add_after(r"\bas\s+({})\b", node.name, node, True, "as-target")
        for stmt in node.body:
            self.visit(stmt)

    def visit_Global(self, node: ast.Global | ast.Nonlocal) -> None:
        names = self.scope.globals if isinstance(node, ast.Global) else self.scope.nonlocals
        for name in node.names:
            names.add(name)
            self.add_after(r"\b({})\b", name, node, False, "global")

    visit_Nonlocal = visit_Global


def _all_args(args: ast.arguments) -> list[ast.arg]:
    extra = [a for a in (args.vararg, args.kwarg) if a is not None]
    return [*args.posonlyargs, *args.args, *args.kwonlyargs, *extra]

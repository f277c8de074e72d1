"""Which occurrences of a name refer to the same binding: Python scopes from ``ast``.

Rename propagation must touch the other references of *this* binding, not every token spelled
the same: the ``x`` of one function is unrelated to the ``x`` of another, a class-body name is
invisible inside its methods, a method is reached through attributes, and a parameter is also
named by keyword arguments at its call sites. Model-free: this is plain static analysis.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache

from .edits import ast_offset, line_starts, parse_python
from .flow import webs
from .signature import callee

_COMPS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)
NOT_OURS = -1  # the class of what an import binds: none of the file's own (their ids are scope ids)


@dataclass(frozen=True)
class Occurrence:
    """One spelling of a name, by character offsets, and what it refers to.

    ``key`` identifies the binding: ``("name", scope_id, name)`` for variables, ``("attr",
    name)`` for attributes, ``("kw", callee, name)`` for keyword arguments of calls, where
    ``callee`` is the key of the name called (``f(x=1)``: the ``f`` that call sees) or
    ``("attr", m)`` for a method (``obj.m(x=1)``, ``owner`` the class of ``obj`` where known).
    """

    start: int
    end: int
    name: str
    binding: bool
    kind: str  # def, class, parameter, assignment, for-target, attribute, import, capture, ...
    key: tuple
    owner: int | None = None  # an attribute's or a method parameter's class (scope id), or
    # NOT_OURS for an attribute of what an import binds; None where unknown
    calls: tuple = ()  # a parameter's: the callee keys of calls that may name it by keyword


@dataclass
class _Scope:
    id: int
    kind: str  # module | function | class | comprehension
    parent: _Scope | None
    name: str = ""
    bound: set[str] = field(default_factory=set)
    globals: set[str] = field(default_factory=set)
    nonlocals: set[str] = field(default_factory=set)
    receiver: str = ""  # a method's first parameter: ``self``, ``cls``
    typed: dict[str, str] = field(default_factory=dict)  # parameter: the class it is annotated
    made: dict[str, set[str]] = field(default_factory=dict)  # name: C of each = C(…), or ""
    imported: set[str] = field(default_factory=set)  # names an import binds here


@dataclass
class _Raw:
    start: int
    end: int
    name: str
    binding: bool
    kind: str
    scope: _Scope
    function: str = ""
    owner: int | tuple[str, bool] | None = None  # a class's scope id, or (name, called)


class ScopeIndex:
    """Every name occurrence of a parsed file with its resolved binding key.

    Raises SyntaxError (from ``ast.parse``) when the text is not Python.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.tree = parse_python(text)  # read-only: shared with whoever asks for the index
        collector = _Collector(text)
        collector.visit(self.tree)
        named: dict[str, list[int]] = {}
        for cid, (name, _) in collector.classes.items():
            named.setdefault(name, []).append(cid)
        self.occurrences = sorted((_resolve(r, named) for r in collector.raw),
                                  key=lambda o: o.start)
        self._class_ids = set(collector.classes)
        self._methods = collector.methods
        self._families = _families(collector.classes)

    def at(self, offset: int) -> Occurrence | None:
        """Return the occurrence whose name covers (or starts at) ``offset``."""
        for o in self.occurrences:
            if o.start <= offset < o.end or o.start == offset:
                return o
        return None

    def references(self, occ: Occurrence) -> list[Occurrence]:
        """Every occurrence of the same binding, ``occ`` included, in file order.

        Within one body, a rebinding of the name that reaches none of the same uses is
        another variable (:mod:`.flow`): ``for cls in cls`` renames only the second ``cls``
        with the parameter. Class members and attributes are linked both ways (``self.x``
        and a class-level ``x``), because attribute access can't be resolved statically;
        parameters take in the keyword arguments of calls to their function.
        """
        refs = self._scope_references(occ)
        web = self._webs.get(occ.start) if occ.key[0] == "name" else None
        same = [r for r in refs if r.key == occ.key]
        if web is None or any(r.start not in self._webs for r in same):
            return refs  # used from a nested scope, or not analyzable: the scope decides
        return [r for r in refs if r.key != occ.key or self._webs[r.start] == web]

    @cached_property
    def _webs(self) -> dict[int, tuple[int, int]]:
        return webs(self.text)

    def _scope_references(self, occ: Occurrence) -> list[Occurrence]:
        keys = {occ.key}
        if occ.key[0] == "attr" or self._is_member(occ):
            keys.add(("attr", occ.name))
            keys |= {o.key for o in self.occurrences
                     if o.name == occ.name and self._is_member(o)}
        keys |= {("kw", callee, occ.name) for callee in occ.calls}
        refs = [o for o in self.occurrences if o.key in keys]
        if occ.kind == "attribute":  # ``self.x = …`` shadows a method ``x``: renaming it
            refs = [o for o in refs if o.start not in self._methods]  # un-shadows the method
        # ``self.name`` in another class is another attribute, unless inheritance in this
        # file joins the two classes; an attribute of an object of unknown type stays
        return [o for o in refs if self.may_share(occ, o)]

    def may_share(self, a: Occurrence, b: Occurrence) -> bool:
        """Whether ``a`` and ``b`` may name one attribute, as far as their classes tell.

        They may unless both classes are known and no inheritance in the file joins them:
        ``b.show()`` with ``b: B`` does not call ``A.show``.
        """
        ca, cb = self._class_of(a), self._class_of(b)
        if NOT_OURS in (ca, cb):  # ``os.path`` is no ``self.path``
            return ca == cb
        return ca is None or cb is None or bool(self._families[ca] & self._families[cb])

    def _is_member(self, occ: Occurrence) -> bool:
        return occ.key[0] == "name" and occ.key[1] in self._class_ids

    def _class_of(self, occ: Occurrence) -> int | None:
        """The class a member or a ``self.`` attribute belongs to; None where unknown."""
        return occ.key[1] if self._is_member(occ) else occ.owner

    def bindings(self) -> list[Occurrence]:
        return [o for o in self.occurrences if o.binding]


@lru_cache(maxsize=8)
def scope_index(text: str) -> ScopeIndex | None:
    """``ScopeIndex(text)``, or None where Python cannot parse it.

    Cached: one edit asks about the same text for renames, call sites and dangling reads,
    and the next keystroke's text before the edit is this one's after.
    """
    try:
        return ScopeIndex(text)
    except (SyntaxError, ValueError):
        return None


def _resolve(r: _Raw, classes: dict[str, list[int]]) -> Occurrence:
    calls: tuple = ()
    if r.kind in ("attribute", "attribute-use"):
        key: tuple = ("attr", r.name)
    elif r.kind == "keyword":  # f(x=1): the f this call sees
        key = ("kw", ("name", _owner(r.scope, r.function).id, r.function), r.name)
    elif r.kind == "method-keyword":  # obj.m(x=1): an m of obj's class, where that is known
        key = ("kw", ("attr", r.function), r.name)
    else:
        key = ("name", _owner(r.scope, r.name).id, r.name)
        calls = _callees(r.scope) if r.kind == "parameter" and r.function else ()
    owner = r.owner
    if isinstance(owner, tuple):  # the object is a name (or its call): its class, if known
        owner = _class_of_name(r.scope, *owner, classes)
    return Occurrence(r.start, r.end, r.name, r.binding, r.kind, key, owner, calls)


def _callees(fn: _Scope) -> tuple:
    """How calls name the function ``fn``, so keyword arguments find its parameters.

    Its own binding (a call that sees another ``f`` passes another ``f`` its arguments); a
    method by name on an object of its class (the parameter's ``owner``); for ``__init__``,
    the class by its name too.
    """
    home = fn.parent
    if home is None or fn.name == "<lambda>":
        return ()
    if home.kind != "class":
        return (("name", _owner(home, fn.name).id, fn.name),)
    out: tuple = (("attr", fn.name),)
    if fn.name == "__init__" and home.parent is not None:
        out += (("name", _owner(home.parent, home.name).id, home.name),)
    return out


def _class_of_name(scope: _Scope, name: str, called: bool, classes: dict[str, list[int]]
                   ) -> int | None:
    """The file's class whose instance ``name`` (or, ``called``, ``name(…)``) is, or is.

    A module-level class itself (``Config.size``, and ``A()`` an instance of it); else, not
    called, a parameter or name annotated with a class or a name bound only ever to ``C(…)``
    of one class; else None.
    """
    scope = _owner(scope, name)
    if name in scope.imported:  # a module, or what another file defines
        return NOT_OURS
    hint = name if scope.kind == "module" and name in classes else None
    if hint is None and not called:
        made = scope.made.get(name, set())
        hint = scope.typed.get(name) or (next(iter(made)) if len(made) == 1 else None)
    found = classes.get(hint or "", [])
    return found[0] if len(found) == 1 else None


def _families(classes: dict[int, tuple[str, list[str]]]) -> dict[int, set[int]]:
    """For each class, itself and the classes that inherit from it here: its family.

    Two classes' instances share attributes where one inherits from the other or a third
    inherits from both (a mixin): exactly where their families meet. Two classes with a
    common base only do not. Bases are matched by name among the file's classes.
    """
    ids: dict[str, set[int]] = {}
    for cid, (name, _) in classes.items():
        ids.setdefault(name, set()).add(cid)
    family = {cid: {cid} for cid in classes}
    for cid in classes:  # each class joins the family of every ancestor it has here
        todo, seen = list(classes[cid][1]), set()
        while todo:
            for a in ids.get(todo.pop(), set()) - seen:
                seen.add(a)
                family[a].add(cid)
                todo += classes[a][1]
    return family


def _owner(scope: _Scope, name: str) -> _Scope:
    """Return the scope whose binding of ``name`` a reference from ``scope`` sees (LEGB)."""
    module = scope
    while module.parent is not None:
        module = module.parent
    if name in scope.globals:
        return module
    s: _Scope | None = scope if name not in scope.nonlocals else scope.parent
    first = True
    while s is not None:
        if s.kind != "class" or first:
            if name in s.globals:
                return module
            if name in s.bound and name not in s.nonlocals:
                return s
        first = False
        s = s.parent
    return module


class _Collector(ast.NodeVisitor):
    """Walks the tree once, recording raw occurrences in the scope where each appears."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = line_starts(text)
        self.scope = _Scope(0, "module", None)
        self.raw: list[_Raw] = []
        self.target_kind = "assignment"
        self.made_by = ""  # while an ``x = C(…)``'s targets are visited: ``C``
        self.classes: dict[int, tuple[str, list[str]]] = {}  # scope id: name, base names
        self.methods: set[int] = set()  # where undecorated methods' names are
        self._ids = 0

    # positions -----------------------------------------------------------------------------
    def offset(self, lineno: int, col: int) -> int:
        return ast_offset(self.text, self.starts, lineno, col)

    def add(self, name: str, start: int, binding: bool, kind: str, scope: _Scope | None = None,
            function: str = "", owner: int | tuple[str, bool] | None = None) -> None:
        if self.text[start:start + len(name)] != name:
            return  # a position ast reports inexactly (old f-string quirks): skip, never guess
        scope = scope or self.scope
        if kind == "import":
            scope.imported.add(name)
        if binding and kind not in ("attribute", "keyword"):
            scope.bound.add(name)
            scope.made.setdefault(name, set()).add(self.made_by if kind == "assignment" else "")
        self.raw.append(_Raw(start, start + len(name), name, binding, kind, scope, function,
                             owner))

    def add_after(self, pattern: str, name: str, node: ast.AST, binding: bool, kind: str) -> None:
        """Record ``name`` found by ``pattern`` (a regex with one group) inside ``node``."""
        a = self.offset(node.lineno, node.col_offset)
        b = self.offset(node.end_lineno, node.end_col_offset)
        m = re.compile(pattern.format(re.escape(name))).search(self.text, a, b)
        if m:
            self.add(name, m.start(1), binding, kind)

    def push(self, kind: str, name: str = "") -> _Scope:
        self._ids += 1
        outer, self.scope = self.scope, _Scope(self._ids, kind, self.scope, name)
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

    def _receiver_class(self, value: ast.expr) -> int | tuple[str, bool] | None:
        """The class of ``value``: the class's id for a method's ``self`` / ``cls``.

        For another name, or a call of one (``A()``), the name and whether it is called,
        which :func:`_class_of_name` resolves once the whole file is read (annotations,
        classes and ``= C(…)`` bindings may come later); None for any other expression.
        """
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
            return value.func.id, True  # ``A().show``: an A, where A is one of the file's classes
        if not isinstance(value, ast.Name):
            return None
        s: _Scope | None = self.scope
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

"""Which occurrences of a name refer to the same binding: Python scopes from ``ast``.

Rename propagation must touch the other references of *this* binding, not every token spelled
the same: the ``x`` of one function is unrelated to the ``x`` of another, a class-body name is
invisible inside its methods, a method is reached through attributes, and a parameter is also
named by keyword arguments at its call sites. Model-free: this is plain static analysis.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache

from .collect import NOT_OURS, Collector, Raw, Scope, Super
from .edits import parse_python
from .flow import webs


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
    owner: int | Super | None = None  # an attribute's or a method parameter's class (scope
    # id), NOT_OURS for an attribute of what an import binds, a class above one for
    # ``super().x``; None where unknown
    calls: tuple = ()  # a parameter's: the callee keys of calls that may name it by keyword


class ScopeIndex:
    """Every name occurrence of a parsed file with its resolved binding key.

    Raises SyntaxError (from ``ast.parse``) when the text is not Python.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.tree = parse_python(text)  # read-only: shared with whoever asks for the index
        collector = Collector(text)
        collector.visit(self.tree)
        named: dict[str, list[int]] = {}
        for cid, (name, _) in collector.classes.items():
            named.setdefault(name, []).append(cid)
        self.occurrences = sorted((_resolve(r, named) for r in collector.raw),
                                  key=lambda o: o.start)
        self._class_ids = set(collector.classes)
        self._methods = collector.methods
        self._families = _families(collector.classes)
        self._defs = {(o.key[1], o.name) for o in self.occurrences
                      if o.kind == "def" and self.is_member(o)}  # (class, method) defined

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
        if occ.key[0] == "attr" or self.is_member(occ):
            keys.add(("attr", occ.name))
            keys |= {o.key for o in self.occurrences
                     if o.name == occ.name and self.is_member(o)}
        keys |= {("kw", callee, occ.name) for callee in occ.calls}
        refs = [o for o in self.occurrences if o.key in keys]
        if occ.kind == "attribute":  # ``self.x = …`` shadows a method ``x``: renaming it
            refs = [o for o in refs if o.start not in self._methods]  # un-shadows the method
        # ``self.name`` in another class is another attribute, unless inheritance in this
        # file joins the two classes; an attribute of an object of unknown type stays
        return [o for o in refs if self.may_share(occ, o) and not (
            o.kind == "method-keyword" and self.overridden(occ.owner, o, o.key[1][1]))]

    def overridden(self, cls: int | Super | None, call: Occurrence, name: str) -> bool:
        """Whether method ``name``, called on ``call``'s object, is that class's own, not ``cls``'s.

        ``B().m(v=1)`` where ``B`` overrides ``A.m`` calls ``B.m``: a change to ``A.m``'s
        parameters does not reach it.
        """
        own = call.owner
        return isinstance(own, int) and isinstance(cls, int) and own != cls \
            and (own, name) in self._defs

    def may_share(self, a: Occurrence, b: Occurrence) -> bool:
        """Whether ``a`` and ``b`` may name one attribute, as far as their classes tell.

        They may unless both classes are known and no inheritance in the file joins them:
        ``b.show()`` with ``b: B`` does not call ``A.show``.
        """
        ca, cb = self._class_of(a), self._class_of(b)
        if isinstance(ca, Super) or isinstance(cb, Super):  # ``super().x``: only from above
            up, other = (ca, cb) if isinstance(ca, Super) else (cb, ca)
            return other is None or other != up.cls and other != NOT_OURS and \
                not isinstance(other, Super) and up.cls in self._families.get(other, set())
        if NOT_OURS in (ca, cb):  # ``os.path`` is no ``self.path``
            return ca == cb
        return ca is None or cb is None or bool(self._families[ca] & self._families[cb])

    def is_member(self, occ: Occurrence) -> bool:
        """Whether ``occ`` binds or reads a name of a class body (a class attribute)."""
        return occ.key[0] == "name" and occ.key[1] in self._class_ids

    def _class_of(self, occ: Occurrence) -> int | Super | None:
        """The class a member or a ``self.`` attribute belongs to; None where unknown."""
        return occ.key[1] if self.is_member(occ) else occ.owner

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


def _resolve(r: Raw, classes: dict[str, list[int]]) -> Occurrence:
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
        name, called, *through = owner
        owner = _class_of_name(r.scope, name, called, classes, bool(through))
    return Occurrence(r.start, r.end, r.name, r.binding, r.kind, key, owner, calls)


def _callees(fn: Scope) -> tuple:
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


def _class_of_name(scope: Scope, name: str, called: bool, classes: dict[str, list[int]],
                   through: bool = False) -> int | None:
    """The file's class whose instance ``name`` (or, ``called``, ``name(…)``) is, or is.

    A module-level class itself (``Config.size``, and ``A()`` an instance of it); else, not
    called, a parameter or name annotated with a class or a name bound only ever to ``C(…)``
    of one class; else None.
    """
    scope = _owner(scope, name)
    if name in scope.imported:  # a module, or what another file defines
        return NOT_OURS
    if through:  # an attribute of the name's object (``self.x.m``): of a class unknown
        return None
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


def _owner(scope: Scope, name: str) -> Scope:
    """Return the scope whose binding of ``name`` a reference from ``scope`` sees (LEGB)."""
    module = scope
    while module.parent is not None:
        module = module.parent
    if name in scope.globals:
        return module
    s: Scope | None = scope if name not in scope.nonlocals else scope.parent
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

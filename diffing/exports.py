"""What an edit changed that other modules import: names renamed, signatures changed.

Renaming a module-level def, class or assigned name, renaming a top-level class's method,
or changing the parameters of a module-level function or of a top-level class's methods
reaches every module that imports it. :func:`exported` reads those changes off one file's
edit, each with the dotted names of the modules that bind it; :mod:`.elsewhere` finds what
each other module needs for them.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, replace

from .change import find_change, separate_edits
from .edits import ast_offset, line_starts, parse_python
from .instances import factories
from .scopes import scope_index
from .signature import SignatureChange, heirs, signature_change
from .spans import renamed_word

__all__ = ["Exported", "exported"]

_EXPORTED_KINDS = ("def", "class", "assignment")


@dataclass(frozen=True)
class Exported:
    """A module-level name one edit changed, as other modules import it."""

    modules: tuple[str, ...]  # the dotted names of the module that binds it
    name: str  # its name there before the edit
    new: str | None = None  # its name after a rename
    change: SignatureChange | None = None  # its (or its class's methods') parameters changed
    origin: str = ""  # the module that defines it (``modules`` may re-export it)
    member: tuple[str, str] | None = None  # a method of the class renamed: (old, new)
    starred: bool = True  # ``from <module> import *`` brings it (:func:`star_exported`)
    # what makes objects of the class (:func:`.instances.factories`): its methods' names,
    # and the dotted names of functions, as the modules that bind them name them
    makers: tuple[str, ...] = ()
    factories: frozenset[str] = frozenset()

    @property
    def targets(self) -> set[str]:
        return {f"{m}.{self.name}" for m in self.modules}

    @property
    def callee(self) -> set[str]:
        """What a call's function denotes when it calls the changed def."""
        if self.change is None:
            return set()
        parts = self.change.qualname.split(".")
        if len(parts) == 1 or parts[1] == "__init__":
            return self.targets  # ``f(…)``, or the class ``C(…)``
        if self.instance_method:
            return set()  # through objects of the class (:mod:`.instances`), not ``C.send``
        return {f"{t}.{parts[1]}" for t in self.targets}  # ``C.make(…)``

    @property
    def made_by(self) -> frozenset[str]:
        """The dotted names of what returns an object of the class (``…Client.connect``)."""
        return self.factories | {f"{t}.{m}" for t in self.targets for m in self.makers}

    @property
    def instance_method(self) -> bool:
        c = self.change
        return c is not None and c.method and not c.classmethod and c.name != "__init__"


def star_exported(tree: ast.Module, name: str) -> bool:
    """Whether ``from m import *`` brings module-level ``name`` of the module ``tree`` is.

    A literal ``__all__`` (assigned, ``+=``, ``.append``/``.extend``) lists what it brings;
    without one, every name not starting with ``_``. An ``__all__`` built otherwise may
    bring anything.
    """
    listed: set[str] = set()
    found = False
    for stmt in tree.body:
        value: ast.expr | None = None
        if isinstance(stmt, ast.Assign) and any(_is_all(t) for t in stmt.targets) or \
                isinstance(stmt, ast.AugAssign | ast.AnnAssign) and _is_all(stmt.target):
            value = stmt.value
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and \
                isinstance(stmt.value.func, ast.Attribute) and _is_all(stmt.value.func.value):
            call = stmt.value
            value = ast.List(elts=call.args) if call.func.attr == "append" else \
                call.args[0] if call.func.attr == "extend" and call.args else None
        else:
            continue
        if not (isinstance(value, ast.List | ast.Tuple) and all(
                isinstance(e, ast.Constant) and isinstance(e.value, str) for e in value.elts)):
            return True
        found = True
        listed |= {e.value for e in value.elts}
    return name in listed if found else not name.startswith("_")


def _is_all(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id == "__all__"


def exported(before: str, after: str, modules: tuple[str, ...]) -> list[Exported]:
    """The changes of module-level names that the edits from ``before`` to ``after`` made.

    A rename of a def, class or assigned name at the module's top level, and a changed
    signature of a top-level function or of a top-level class's methods: ``__init__`` is
    called as the class, class and static methods through it, instance methods through the
    objects another module can tell are the class's (:mod:`.instances`).
    """
    out: list[Exported] = []
    if not modules:  # a file no import can name (``my-script.py``)
        return out
    for alone in separate_edits(before, after):
        ch = find_change(alone, after)
        if ch is None:
            continue
        word = renamed_word(alone, after, ch)
        index = scope_index(alone) if word is not None else None
        occ = index.at(word[0]) if index is not None and word is not None else None
        if occ is not None and word is not None and occ.binding and occ.start == word[0] \
                and occ.key == ("name", 0, word[1]) and occ.kind in _EXPORTED_KINDS:
            out.append(Exported(modules, word[1], word[2], origin=modules[0]))
            continue
        owner = _method_owner(index.tree, alone, word[0], word[1]) \
            if occ is not None and word is not None and occ.binding and occ.kind == "def" else None
        if owner is not None and word is not None:
            out.append(_with_factories(Exported(modules, owner, origin=modules[0],
                                                member=(word[1], word[2])), after))
            continue
        change = signature_change(alone, after)
        if change is None:
            continue
        parts = change.qualname.split(".")
        if len(parts) <= 2:  # a function, or a method of a top-level class
            out.append(_with_factories(Exported(modules, parts[0], None, change, modules[0]),
                                       after))
        if parts[1:] == ["__init__"]:  # the module's subclasses that inherit it, as theirs
            out += [Exported(modules, c.name, None, replace(change, qualname=f"{c.name}.__init__"),
                             modules[0]) for c in heirs(after, parts[0])]
    try:  # what a star import of the module brought, before the edit
        tree = parse_python(before)
    except SyntaxError:
        return out
    return [replace(e, starred=star_exported(tree, e.name)) for e in out]


def _with_factories(ex: Exported, after: str) -> Exported:
    """``ex`` with what makes objects of its class, where its objects are followed."""
    if ex.member is None and not ex.instance_method:
        return ex
    try:
        makers, functions = factories(parse_python(after), ex.name)
    except SyntaxError:
        return ex
    return replace(ex, makers=makers,
                   factories=frozenset(f"{m}.{f}" for m in ex.modules for f in functions))


def _method_owner(tree: ast.Module, text: str, at: int, name: str) -> str | None:
    """The top-level class whose method ``name`` is defined at ``at`` (not a dunder)."""
    if name.startswith("__") and name.endswith("__"):
        return None
    starts = line_starts(text)
    for cls in tree.body:
        for fn in cls.body if isinstance(cls, ast.ClassDef) else []:
            if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef) and fn.name == name and \
                    text.find(name, ast_offset(text, starts, fn.lineno, fn.col_offset)) == at:
                return cls.name
    return None

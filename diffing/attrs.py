"""Attributes a method reads off ``self`` that its class never gets: the model's made-up ones.

Asked to fill ``return ???`` in a method of ``textwrap.TextWrapper`` the model wrote
``self._.__sesentence_endingsns(…)``: a read no assignment, method or class attribute
answers. Where a class is known whole — no base but ``object`` and classes of the same file,
no metaclass, no ``__getattr__``, no ``setattr``, ``vars`` or ``__dict__`` — every attribute
an instance can have is written in the file: a name its body (or an in-file base's) binds, or
one some method assigns off its receiver. Found by indentation and parsed alone: the method
holding the hole, and its class without that method, the same text for every candidate and
so parsed once. A fault of the user's own code is the same for every candidate and ranks none.
"""

from __future__ import annotations

import ast
import re
from functools import lru_cache

from .edits import parse_python
from .indent import indentation

_HEADER = re.compile(r"\s*(?:async\s+)?(def|class)\s")
_DECORATOR = re.compile(r"\s*@")
_OBJECT = frozenset(dir(object)) | {"__dict__", "__weakref__", "__module__", "__qualname__"}
_DEPTH = 8  # in-file bases and subclasses followed at most this deep

Function = ast.FunctionDef | ast.AsyncFunctionDef


def unknown_attributes(text: str, at: int) -> int:
    """How many names the method holding ``at`` reads off its receiver that nothing gives it.

    0 where its class cannot be known whole, at module level or in a plain function, and
    where the method or its class does not parse alone.
    """
    found = _method_lines(text, at)
    if found is None:
        return 0
    c, a, b = found
    method = _alone(text[a:b])
    if not isinstance(method, Function):
        return 0
    receiver = _receiver(method)
    # the class with a ``pass`` where the method was: the same for every candidate
    rest = text[c:a] + indentation(text[a:]) + "pass\n" + text[b:_block_end(text, c)]
    known = _members(rest, text)
    if receiver is None or known is None or _dynamic(method):
        return 0
    reads = {n.attr for n in ast.walk(method) if isinstance(n, ast.Attribute)
             and isinstance(n.ctx, ast.Load) and isinstance(n.value, ast.Name)
             and n.value.id == receiver}
    return len(reads - known - _stores(method) - {method.name} - _OBJECT)


def _method_lines(text: str, at: int) -> tuple[int, int, int] | None:
    """Where the class and its method holding ``at`` are, by their lines' starts.

    The class's first line, the method's (its decorators' first), and the line after the
    method; None where ``at`` is in no method.
    """
    first = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    line = text[first:] if end < 0 else text[first:end]
    level = len(indentation(line)) if line.strip() else len(line)
    headers, k = [], first
    while level > 0 and k > 0:  # up through the headers above, each less indented than the last
        s = text.rfind("\n", 0, k - 1) + 1
        line, k = text[s:k], s
        if not line.strip() or line.lstrip().startswith("#") or len(indentation(line)) >= level:
            continue
        level = len(indentation(line))
        if m := _HEADER.match(line):
            headers.append((m.group(1), s))
    for (kind, a), (outer, c) in zip(headers, headers[1:], strict=False):
        if kind == "def" and outer == "class":
            while a > c:  # the decorators above the def belong to it
                s = text.rfind("\n", 0, a - 1) + 1
                if not _DECORATOR.match(text[s:a]):
                    break
                a = s
            return c, a, _block_end(text, a)
    return None


def _block_end(text: str, start: int) -> int:
    """Where the block whose header (or first decorator) starts at ``start`` ends."""
    own = len(indentation(text[start:]))
    pos = text.find("\n", start)
    while pos != -1 and _DECORATOR.match(text[start:pos]):  # down to the header itself
        start, pos = pos + 1, text.find("\n", pos + 1)
    while pos != -1:
        s = pos + 1
        pos = text.find("\n", s)
        line = text[s:] if pos == -1 else text[s:pos]
        if line.strip() and not line.lstrip().startswith("#") and len(indentation(line)) <= own:
            return s
    return len(text)


@lru_cache(maxsize=64)
def _alone(block: str) -> ast.stmt | None:
    """The one statement of ``block`` (a class or a def), parsed where it stands."""
    indented = block[:1] in (" ", "\t")
    try:
        tree = parse_python("if 1:\n" + block if indented else block)
    except (SyntaxError, ValueError):
        return None
    body = tree.body[0].body if indented else tree.body
    return body[0] if len(body) == 1 else None


@lru_cache(maxsize=64)
def _own(block: str) -> tuple[str, frozenset[str], tuple[str, ...]] | None:
    """The class ``block``'s name, what it gives its instances itself, and its bases' names.

    None where that is not all it gives them: a metaclass, ``__getattr__``, attributes set
    by name, a mixin (what it reads, the classes it is mixed into give).
    """
    cls = _alone(block)
    if not isinstance(cls, ast.ClassDef) or cls.keywords or "Mixin" in cls.name:
        return None
    names: set[str] = set()
    for stmt in cls.body:
        names |= _bound(stmt)
        if isinstance(stmt, Function):
            if _dynamic(stmt):
                return None
            names |= _stores(stmt)
    if names & {"__getattr__", "__getattribute__"}:
        return None
    bases = [b.id if isinstance(b, ast.Name) else None for b in cls.bases]
    if None in bases:
        return None
    return cls.name, frozenset(names), tuple(b for b in bases if b != "object")


def _members(block: str, text: str, seen: frozenset[str] = frozenset()) -> set[str] | None:
    """Every attribute an instance of the class ``block`` can have; None: not knowable.

    Its own, its bases', and its subclasses' in the file: a base class often reads what
    each subclass sets (``self._base_type`` in ``unittest``'s context managers).
    """
    own = _own(block) if len(seen) < _DEPTH else None
    if own is None:
        return None
    name, names, bases = own
    out, classes = set(names), _module_classes(text)
    related = [*bases, *(sub for sub, its in classes.items() if name in its[1])]
    for other in related:
        if other in seen or other == name:
            continue
        found = classes.get(other)
        more = None if found is None else \
            _members(text[found[0]:_block_end(text, found[0])], text, seen | {name})
        if more is None:
            return None
        out |= more
    return out


_CLASS_LINE = re.compile(r"^class\s+(\w+)\s*(?:\(([^)]*)\))?", re.M)


def _module_classes(text: str) -> dict[str, tuple[int, tuple[str, ...]]]:
    """Module-level classes defined once: where each starts, and its bases as written."""
    seen: dict[str, list[tuple[int, tuple[str, ...]]]] = {}
    for m in _CLASS_LINE.finditer(text):
        bases = tuple(b.strip() for b in (m.group(2) or "").split(",") if b.strip())
        seen.setdefault(m.group(1), []).append((m.start(), bases))
    return {k: v[0] for k, v in seen.items() if len(v) == 1}


def _bound(stmt: ast.stmt) -> set[str]:
    """Names a class-body statement binds (a def, an assignment, ``__slots__``'s strings)."""
    if isinstance(stmt, Function | ast.ClassDef):
        return {stmt.name}
    if isinstance(stmt, ast.Import | ast.ImportFrom):
        return {(a.asname or a.name).split(".")[0] for a in stmt.names}
    targets = stmt.targets if isinstance(stmt, ast.Assign) else \
        [stmt.target] if isinstance(stmt, ast.AnnAssign | ast.AugAssign) else []
    out = {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    if "__slots__" in out and isinstance(stmt, ast.Assign):
        out |= {c.value for c in ast.walk(stmt.value)
                if isinstance(c, ast.Constant) and isinstance(c.value, str)}
    if isinstance(stmt, ast.If | ast.Try):  # ``if TYPE_CHECKING:``, a try around imports
        for child in ast.iter_child_nodes(stmt):
            if isinstance(child, ast.stmt):
                out |= _bound(child)
    return out


def _stores(method: Function) -> set[str]:
    """Attributes ``method`` assigns (or deletes) off its receiver."""
    receiver = _receiver(method)
    return {n.attr for n in ast.walk(method) if isinstance(n, ast.Attribute)
            and isinstance(n.ctx, ast.Store | ast.Del) and isinstance(n.value, ast.Name)
            and n.value.id == receiver}


def _dynamic(method: Function) -> bool:
    """Whether ``method`` gives attributes by name at run time (``setattr``, ``__dict__``)."""
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
               and n.func.id in ("setattr", "vars")
               or isinstance(n, ast.Attribute) and n.attr == "__dict__"
               for n in ast.walk(method))


def _receiver(method: Function) -> str | None:
    """A method's first parameter where it is named ``self`` or ``cls``, else None.

    A function in a class body taking something else first is a static method or a
    decorator used there (``unittest.TestCase._deprecate(original_func)``).
    """
    if any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in method.decorator_list):
        return None
    params = [*method.args.posonlyargs, *method.args.args]
    return params[0].arg if params and params[0].arg in ("self", "cls") else None

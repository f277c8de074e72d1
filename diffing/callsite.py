"""A changed signature → the argument lists of its call sites, and their mechanical update.

When the user adds, removes, renames or reorders parameters, moves a ``*`` or ``/`` or drops
a default, every call of that function in the file may need a matching change. The spans are
the call sites' argument lists (between the parentheses, parentheses kept). The *mechanical*
update is what the signature alone decides, each argument kept bound to the parameter it
was: drop the argument bound to a removed parameter, rename a keyword, name an argument
whose parameter became keyword-only, pass a left-out default as it was, pass a new required
parameter by its own name (the most common real fix, and a guess the model can overrule),
on a line of its own in a call laid out one argument a line.
A call that passes ``*args`` or ``**kw`` binds its positions unknowably: only its explicit
keywords are updated, and a call with nothing to update gets no span — asked to rewrite such
calls, the model wrote junk (``super().main(*args, **kwargs)`` → ``super().main("auto",
obj)``). A changed ``__init__`` is called as its class. Model-free: plain ``ast``.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Sequence
from functools import partial

from .arglist import insert_arguments, line_limit
from .edits import ast_offset as _offset
from .edits import bound_within, line_starts, parse_python
from .proposal import Span
from .signature import POSITIONAL, Param, SignatureChange

_NAMED = re.compile(r"\w+\s*=\s*")  # a keyword argument's name, up to its value


def call_site_spans(text: str, change: SignatureChange,
                    elsewhere: Callable[[int], bool] | None = None) -> list[Span]:
    """One span per call of the changed function whose argument list should change.

    ``elsewhere(at)`` says whether the function named at ``at`` (``name`` in ``name(...)``
    or ``obj.name(...)``) is another one, as far as the caller can tell (another binding of
    the name, another class's method: :meth:`.scopes.ScopeIndex.may_share`): those calls are
    left as they are.
    """
    try:
        tree = parse_python(text)
    except SyntaxError:
        return []
    starts, limit = line_starts(text), line_limit(text)
    calls = []
    for call in ast.walk(tree):
        if not isinstance(call, ast.Call) or not change.called_by(call):
            continue
        f = call.func
        at = _offset(text, starts, f.end_lineno, f.end_col_offset) - len(f.attr) \
            if isinstance(f, ast.Attribute) else _offset(text, starts, f.lineno, f.col_offset)
        if elsewhere is not None and elsewhere(at):
            continue
        open_ = text.find("(", _offset(text, starts, call.func.end_lineno,
                                       call.func.end_col_offset))
        close = _offset(text, starts, call.end_lineno, call.end_col_offset) - 1
        if open_ >= 0 and text[close] == ")":
            calls.append((open_ + 1, close, call))
    # a call in another's arguments (``f(f(1, 2), 3)``): the inner ones first, and an outer
    # one that changes itself takes their updates into its own (one span, both calls right)
    spans: list[Span] = []
    around = _Around(tree)
    for start, end, call in sorted(calls, key=lambda c: c[1] - c[0]):
        inner = text[start:end]
        hides = partial(around.hides, call)
        updated = update_arguments(text, starts, call, start, change, limit, (), hides)
        if updated is None or updated == inner:
            continue  # the new signature accepts this call as it is, or nothing is knowable
        within = [s for s in spans if start <= s.start and s.end <= end]
        if within:
            updated = update_arguments(text, starts, call, start, change, limit,
                                       [(s.start, s.end, s.mechanical[0]) for s in within],
                                       hides)
            if updated is None:
                continue
            spans = [s for s in spans if s not in within]
        called = ast.unparse(call.func)  # ``Thing`` for ``__init__``, ``core.parse``
        called = called if len(called) <= 40 else change.name
        reason = f"call to {called}() on line {call.lineno}: {change.summary}"
        spans.append(Span(start, end, "signature", reason, (updated,)))
    return sorted(spans, key=lambda s: s.start)


class _Around:
    """The names the functions around a node bind (its parameters, its assignments…)."""

    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        self._parents: dict[ast.AST, ast.AST] | None = None

    def hides(self, node: ast.AST, name: str) -> bool:
        """Whether a function around ``node`` binds ``name`` (anywhere in it: errs to hide)."""
        if self._parents is None:  # only for a default to pass: seldom
            self._parents = {c: p for p in ast.walk(self.tree) for c in ast.iter_child_nodes(p)}
        while node in self._parents:
            node = self._parents[node]
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) and \
                    name in bound_within(node):
                return True
        return False



def update_arguments(text: str, starts: list[int], call: ast.Call, base: int,
                     change: SignatureChange, limit: int,
                     nested: Sequence[tuple[int, int, str]] = (),
                     hides: Callable[[str], bool] = lambda name: False) -> str | None:
    """Return the argument list updated for the new signature, or None when it can't be.

    An inserted argument that would take its line past ``limit`` wraps (:mod:`.arglist`).
    ``nested`` are replacements (offsets in ``text``) inside the arguments, the updates of
    calls among them: they are made too, and go with an argument that is dropped.
    ``hides(name)``: whether a binding around the call hides the module's ``name``.

    ``*args``/``**kw`` at the call make the binding of positions unknown: only keywords the
    call names are renamed or dropped.
    """
    starred = any(isinstance(a, ast.Starred) for a in call.args) or \
        any(k.arg is None for k in call.keywords)
    inner = text[base:_offset(text, starts, call.end_lineno, call.end_col_offset) - 1]
    # a lone generator argument's range takes in the call's own parentheses: ``f(x for x in y)``
    items = [(max(_offset(text, starts, n.lineno, n.col_offset) - base, 0),
              min(_offset(text, starts, n.end_lineno, n.end_col_offset) - base, len(inner)))
             for n in [*call.args, *call.keywords]]
    bare = len(call.args) == 1 and isinstance(call.args[0], ast.GeneratorExp) and \
        _offset(text, starts, call.args[0].lineno, call.args[0].col_offset) < base
    nested = [(a - base, b - base, t) for a, b, t in nested]
    bound = _binds_first(call, change)
    old_pos = [p.name for p in change.old if p.kind in POSITIONAL][int(bound):]
    new_pos = [p.name for p in change.new if p.kind in POSITIONAL][int(bound):]
    kw_index = {k.arg: len(call.args) + i for i, k in enumerate(call.keywords)}
    edits: list[tuple[int, int, str]] = []
    old_names, new_names = [p.name for p in change.old], [p.name for p in change.new]
    if not _could_bind(call, change, old_pos):
        return None  # another function of that name (``data.decode("utf-8", "replace")``)
    if not starred and old_pos != new_pos and sorted(old_pos) == sorted(new_pos):
        return _named_from_first_move(inner, items, call.args, old_pos, new_pos, change, nested)
    if change.subkind == "rename-param":
        for p, b in zip(change.old, new_names, strict=True):
            a = p.name  # only these are passed by keyword: ``f(kw=1)`` puts kw in a **kw
            if a != b and a in kw_index and p.kind in ("pos", "kwonly"):
                s, _ = items[kw_index[a]]
                edits.append((s, s + len(a), b))
    else:
        for name in old_names:
            if name in new_names:
                continue
            i = kw_index.get(name) if starred or name not in old_pos[:len(call.args)] \
                else old_pos.index(name)
            if i is not None:
                edits.append(_delete_item(items, i))
        kinds = {p.name: p.kind for p in change.new}
        named = False  # a lone generator named: ``f(data=x for x in y)`` would not parse
        if not starred:
            moved = _keyword_kinds(inner, call, items, old_pos, new_pos, kinds, nested)
            if moved is None:
                return None  # an argument to be passed positionally now is not next in line
            edits += moved
            named = any(e[:2] == (0, 0) for e in moved)
        omitted = {p.name for p in change.old if p.default} - set(kw_index) \
            - set(old_pos[:len(call.args)])
        groups: dict[int | None, list[str]] = {}  # arguments going in after items[k]
        for p in change.new:
            if starred or p.default or p.kind in ("vararg", "kwarg") or p.name in kw_index \
                    or p.name in old_names and p.name not in omitted:
                continue  # (a call that names it already passes it)
            k, new = _place(len(items), len(call.args), old_pos, new_pos, p,
                            _default(change, p.name, hides) if p.name in old_names
                            else p.name)
            groups.setdefault(k, []).append(new)
        absolute = [(a + base, b + base) for a, b in items]
        if bare and (groups or named):  # another argument beside it, or a name: parentheses
            edits += [(0, 0, "("), (items[0][1], items[0][1], ")")]
        for k, news in groups.items():
            at, insert = insert_arguments(text, absolute, k, news, base - 1,
                                          base + len(inner), limit)
            edits.append((at - base, at - base, insert))
    return _apply(inner, edits, nested)


def _could_bind(call: ast.Call, change: SignatureChange, old_pos: list[str]) -> bool:
    """Whether the call fits the old signature: its places, the keywords it took."""
    kinds = {p.kind for p in change.old}
    named = {p.name for p in change.old if p.kind != "posonly"}
    n_call = sum(not isinstance(a, ast.Starred) for a in call.args)
    return ("vararg" in kinds or n_call <= len(old_pos)) and \
        ("kwarg" in kinds or all(k.arg is None or k.arg in named for k in call.keywords))


def _named_from_first_move(inner: str, items: list[tuple[int, int]], args: list[ast.expr],
                           old_pos: list[str], new_pos: list[str], change: SignatureChange,
                           nested: list[tuple[int, int, str]]) -> str | None:
    """The argument list for parameters put in another order: each argument keeps its value.

    Positional arguments from the first whose parameter moved on are passed by name, in the
    order they are written, so they are evaluated as before (``diff(5, 3)`` after ``def
    diff(b, a)``: ``diff(a=5, b=3)``). Before more positional arguments (a ``*args``) no
    name may go: there they trade places, where all but one are names, constants or
    attributes (no evaluation order to keep). None where neither can be said (a
    positional-only parameter among them, two calls among those arguments).
    """
    n_call, n_pos = len(args), len(old_pos)
    first = next((i for i in range(min(n_call, n_pos)) if old_pos[i] != new_pos[i]), None)
    if first is None:
        return inner  # the parameters that moved are not passed positionally here
    if n_call > n_pos:
        if sum(not isinstance(a, ast.Name | ast.Constant | ast.Attribute)
               for a in args[first:n_pos]) > 1:
            return None
        return _apply(inner, [(*items[j], _piece(inner, *items[old_pos.index(new_pos[j])], nested))
                              for j in range(first, n_pos)], nested)
    kinds = {p.name: p.kind for p in change.new}
    if any(kinds[n] != "pos" for n in old_pos[first:n_call]):
        return None
    return _apply(inner, [(items[i][0], items[i][0], f"{old_pos[i]}=")
                          for i in range(first, n_call)], nested)


def _keyword_kinds(inner: str, call: ast.Call, items: list[tuple[int, int]],
                   old_pos: list[str], new_pos: list[str], kinds: dict[str, str],
                   nested: list[tuple[int, int, str]]) -> list[tuple[int, int, str]] | None:
    """The edits for parameters that became keyword-only or positional-only (``*``, ``/``).

    A positional argument whose parameter is keyword-only now is passed by name (they are
    the last positional ones: the order of evaluation stays). Keyword arguments whose
    parameters are positional-only now lose their names and go first among the keywords in
    the parameters' order; where that moves them, the arguments from the first moved on may
    hold at most one that is not a name, a constant or an attribute (as for reorders). None
    where it cannot be said: a positional-only parameter before them that no one passes.
    """
    n_call = len(call.args)
    edits = [(items[i][0], items[i][0], f"{name}=") for i, name in enumerate(old_pos[:n_call])
             if kinds.get(name) == "kwonly"]
    named = {k.arg for k in call.keywords if kinds.get(k.arg or "") == "posonly"}
    if not named:
        return edits
    kept = sum(kinds.get(n) in POSITIONAL for n in old_pos[:n_call])
    want = new_pos[kept:kept + len(named)]
    if set(want) != named:
        return None
    written = [k.arg for k in call.keywords]
    order = want + [a for a in written if a not in named]
    first = next((j for j, (a, b) in enumerate(zip(written, order, strict=True)) if a != b),
                 len(written))
    if sum(not isinstance(k.value, ast.Name | ast.Constant | ast.Attribute)
           for k in call.keywords[first:]) > 1:
        return None

    def text(name: str) -> str:  # the argument as it is written now, unnamed if positional
        a, b = items[n_call + written.index(name)]
        if name in named:
            a = _NAMED.match(inner, a).end()
        return _piece(inner, a, b, nested)

    for j, name in enumerate(order):
        if j >= first:
            edits.append((*items[n_call + j], text(name)))
        elif name in named:
            s = items[n_call + j][0]
            edits.append((s, _NAMED.match(inner, s).end(), ""))
    return edits


def _default(change: SignatureChange, name: str, hides: Callable[[str], bool]) -> str:
    """What a call that left out ``name`` passed, now that it has no default: its old default.

    Where the call site reads it as the def did (:attr:`Param.at_call`) and no binding
    around the call ``hides`` the name it reads; else the name, a guess to overrule.
    """
    old = next((p for p in change.old if p.name == name), None)
    if old is None or old.at_call is None or old.reads is not None and hides(old.reads):
        return name
    return old.at_call


def _place(n_items: int, n_call: int, old_pos: list[str], new_pos: list[str],
           p: Param, value: str) -> tuple[int | None, str]:
    """After which argument ``p`` goes (None: first), and as what (``value``, or by name).

    Positionally when every kept parameter before it is passed positionally
    at this call (after the argument of the kept one before it), else as ``p=value`` at the
    end.
    Several going in at one point keep their order and are laid out together (:mod:`.arglist`).
    """
    if p.name in new_pos:
        kept = [q for q in new_pos[:new_pos.index(p.name)] if q in old_pos]
        if all(old_pos.index(q) < n_call for q in kept):
            need = min(len(kept), n_call)
            return (need - 1 if need else None), value
    return (n_items - 1 if n_items else None), f"{p.name}={value}"


def _delete_item(items: list[tuple[int, int]], i: int) -> tuple[int, int, str]:
    if i + 1 < len(items):
        return items[i][0], items[i + 1][0], ""
    if i > 0:
        return items[i - 1][1], items[i][1], ""
    return items[i][0], items[i][1], ""


def _apply(inner: str, edits: list[tuple[int, int, str]],
           nested: Sequence[tuple[int, int, str]] = ()) -> str | None:
    """``inner`` with ``edits`` made, and the ``nested`` ones outside the ranges they replace."""
    edits = edits + [n for n in nested
                     if not any(s < e and s <= n[0] and n[1] <= e for s, e, _ in edits)]
    out, pos = [], 0
    for s, e, t in sorted(edits, key=lambda ed: (ed[0], ed[1])):  # stable: insertion order
        if s < pos:
            return None
        out += [inner[pos:s], t]
        pos = e
    return "".join(out) + inner[pos:]


def _piece(inner: str, a: int, b: int, nested: Sequence[tuple[int, int, str]]) -> str:
    """``inner[a:b]`` with the nested replacements inside it made."""
    return _apply(inner[a:b], [(s - a, e - a, t) for s, e, t in nested if a <= s and e <= b]) \
        or inner[a:b]


def _binds_first(call: ast.Call, change: SignatureChange) -> bool:
    """Whether the call supplies a method's ``self``/``cls`` itself, not as an argument.

    ``obj.m(...)``, ``self.m(...)`` and ``super().m(...)`` do, and so does ``C(...)`` for
    ``__init__``; ``C.m(obj, ...)`` on the method's own class, or any ``Base.m(self, ...)``,
    passes it explicitly — but a classmethod's ``cls`` is bound through the class as well.
    """
    if not change.method:
        return False
    f = call.func
    if not isinstance(f, ast.Attribute):
        return change.name == "__init__"
    if change.classmethod:
        return True
    owner = change.qualname.split(".")[-2] if "." in change.qualname else None
    if isinstance(f.value, ast.Name):
        if f.value.id == owner:
            return False
        if f.value.id in ("self", "cls"):
            return True
    first = call.args[0] if call.args else None
    return not (isinstance(first, ast.Name) and first.id in ("self", "cls"))

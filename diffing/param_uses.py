"""What a def's body should do about its changed parameters: the follow-ups inside it.

A signature change reaches past the call sites (:mod:`.signature`): the body itself often
has to follow. Read from real commits, two cases are mostly mechanical.

*A parameter the edit added that the body does not read yet.* Until the body reads it, the
new argument goes nowhere (of the real-edits set's 28 add-param cases, 14 follow one of
these), and the first rule that applies answers it:

1. a call in the body already passes a keyword of that name (``cap_at_buffer=True``): it
   passes the parameter instead (``cap_at_buffer=cap_at_buffer``);
2. the body reads an attribute of that name off another parameter (``args.output_options``,
   ``self.request.allow_redirects``; not ``self.p`` itself): it reads the parameter;
3. the body spells the parameter's default (``'Usage: '``, a tuple of strings): the
   parameter replaces it (a common default — ``None``, ``True``, ``0``, ``''`` — says
   nothing, so this rule skips it);
4. a call forwards the function's other parameters (one of the same name, as
   ``super().__init__`` or ``self._stream.readline``, or one passing two or more of them by
   their own names, the one call that forwards the most): it passes this one too, in the
   call's own style (``p`` after the positional ones, ``p=p`` in the def's order among the
   keywords, ``*p``, ``**p``; on a line of its own where the arguments are one a line,
   wrapped where the line would grow past the file's longest);
5. an ``__init__`` stores it (``self.p = p``) beside the parameters it stores already, else
   first.

*A default that became None* (``metadata={}`` → ``metadata=None``, the mutable-default fix):
before the first statement that reads it, ``if metadata is None: metadata = {}`` — the old
default, as written — unless the body tests it against ``None`` already.

Each place is a ``signature`` span whose mechanical candidate is that text; the model
denoises it too, and the ``Rewriter`` ranks a valid mechanical candidate first. Model-free:
plain ``ast``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from .arglist import insert_arguments, line_limit
from .edits import ast_offset, line_starts, parse_python
from .proposal import Span
from .signature import Param, SignatureChange, callee

_SELF = ("self", "cls")


def param_use_spans(text: str, change: SignatureChange) -> list[Span]:
    """Return the spans where the body should follow ``change``.

    New parameters only where every parameter the def had is kept: a name that replaced
    another is a rename with extras, and its old name's uses are the edit's follow-ups.
    """
    try:
        tree = parse_python(text)
    except SyntaxError:
        return []
    fn = change.def_in(tree)
    if fn is None or fn.body[0].lineno == fn.lineno:
        return []  # a body on the def's own line: nowhere to put anything
    site = _Site(text, line_starts(text), fn, change, tree)
    old = {p.name: p for p in change.old}
    keeps_all = old.keys() <= {p.name for p in change.new}
    spans: list[Span] = []
    for p in change.new:
        if p.name in _SELF:
            continue
        if p.name in old:
            spans += site.none_guard(old[p.name], p)
        elif keeps_all and not _reads_parameter(fn, p.name):
            for rule in (site.keywords, site.attributes, site.defaults, site.forwards,
                         site.stores):
                found = rule(p)
                if found:
                    spans += found
                    break
    return sorted(spans, key=lambda s: (s.start, s.end))


def _reads_parameter(fn: ast.FunctionDef, name: str) -> bool:
    """Whether the body reads the parameter's own value: a read before it is first rebound.

    ``prefix = '%s' % ...`` before any read of ``prefix`` leaves the parameter unread. A
    rebinding counts from the end of its statement (``x = f(x)`` reads ``x`` first).
    """
    stores = [st for st in fn.body for n in ast.walk(st)
              if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)]
    until = min(((st.end_lineno, st.end_col_offset) for st in stores), default=None)
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load) and
               (until is None or (n.lineno, n.col_offset) < until) for n in _walk(fn))


class _Site:
    """The function whose parameters changed, with the text around it; one method a rule."""

    def __init__(self, text: str, starts: list[int], fn: ast.FunctionDef, change: SignatureChange,
                 tree: ast.Module) -> None:
        self.text, self.starts, self.fn, self.change = text, starts, fn, change
        self.params = [p.name for p in change.new]
        self.limit = line_limit(text)
        defs = [n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
        names = [d.name for d in defs]
        self.module_defs = {d.name: d for d in defs if names.count(d.name) == 1}

    def span(self, node: ast.AST) -> tuple[int, int]:
        return (ast_offset(self.text, self.starts, node.lineno, node.col_offset),
                ast_offset(self.text, self.starts, node.end_lineno, node.end_col_offset))

    def _why(self, p: Param, node: ast.AST, what: str) -> str:
        return f"'{p.name}' added to {self.change.name}(): {what} on line {node.lineno}"

    # 1. a keyword of that name ----------------------------------------------------------
    def keywords(self, p: Param) -> list[Span]:
        out = []
        for call in _calls(self.fn):
            for k in call.keywords:
                if k.arg == p.name:
                    a, b = self.span(k.value)
                    out.append(Span(a, b, "signature", self._why(p, k, "pass it on"),
                                    (p.name,)))
        return out

    # 2. an attribute of that name -------------------------------------------------------
    def attributes(self, p: Param) -> list[Span]:
        called = {id(c.func) for c in _calls(self.fn)}
        out = []
        for n in _walk(self.fn):
            if isinstance(n, ast.Attribute) and n.attr == p.name and \
                    isinstance(n.ctx, ast.Load) and id(n) not in called and \
                    not (isinstance(n.value, ast.Name) and n.value.id in _SELF) and \
                    _root(n) in self.params:
                a, b = self.span(n)
                out.append(Span(a, b, "signature", self._why(p, n, "read it"), (p.name,)))
        return out

    # 3. its default, spelled out --------------------------------------------------------
    def defaults(self, p: Param) -> list[Span]:
        default = _default(self.fn.args, p.name)
        if default is None or not _distinctive(default):
            return []
        want = ast.dump(default)
        out: list[Span] = []
        for n in _walk(self.fn):
            if isinstance(n, ast.expr) and ast.dump(n) == want and not _is_docstring(self.fn, n):
                a, b = self.span(n)
                if not any(s.start <= a and b <= s.end for s in out):  # outermost only
                    out.append(Span(a, b, "signature", self._why(p, n, "use it for its default"),
                                    (p.name,)))
        return out

    # 4. a call forwarding the other parameters ------------------------------------------
    def forwards(self, p: Param) -> list[Span]:
        scored = [(self._forwarding(c, p), c) for c in _calls(self.fn)]
        best = max((s for s, _ in scored), default=0)
        top = [call for s, call in scored if s and s == best]
        if len(top) != 1:
            return []  # two calls forward as much: which one wants it is a guess
        span = self._pass_on(top[0], p)
        return [span] if span is not None else []

    def _forwarding(self, call: ast.Call, p: Param) -> float:
        """How surely ``call`` forwards the function's parameters, ``p`` among them (0: no).

        A call of the function's own name that forwards nothing takes only ``*args`` or
        ``**kwargs``: ``super().__init__()`` is no sign a new ``crawler`` belongs there.
        """
        passed = [a.value.id if isinstance(a, ast.Starred) and isinstance(a.value, ast.Name)
                  else a.id if isinstance(a, ast.Name) else None for a in call.args]
        passed += [k.value.id for k in call.keywords if isinstance(k.value, ast.Name) and
                   k.arg in (k.value.id, None)]
        n = len({x for x in passed if x in self.params and x not in _SELF})
        target = self.module_defs.get(call.func.id) if isinstance(call.func, ast.Name) else None
        if target is not None and not _takes(target, p.name):
            return 0  # the file's own def of that name: passing it one would be a TypeError
        if callee(call) == self.fn.name and (n or p.kind in ("vararg", "kwarg")):
            return n + 1.5  # a delegating call (super().__init__, self._inner.read) is worth
            # one and a half forwarded parameters: a call forwarding two more still wins
        return n if n >= 2 else 0

    def _pass_on(self, call: ast.Call, p: Param) -> Span | None:
        """An empty span where ``p`` joins the call's arguments (None: it can't).

        Empty, not the whole argument list as a call site's span is: one insertion says it
        all, and a long forwarding call (twenty keywords) would not fit an edit's cap.
        """
        text = self.text
        items = sorted([*call.args, *call.keywords], key=lambda n: (n.lineno, n.col_offset))
        double = [k for k in call.keywords if k.arg is None]
        last = call.args[-1] if call.args and not isinstance(call.args[-1], ast.Starred) \
            else None
        if p.kind == "vararg":
            if any(isinstance(a, ast.Starred) for a in call.args):
                return None
            new, after = f"*{p.name}", call.args[-1] if call.args else None
        elif p.kind == "kwarg":
            if double:
                return None
            new, after = f"**{p.name}", items[-1] if items else None
        elif last is not None and p.kind != "kwonly" and self._positionally(call, p):
            new, after = p.name, last
        else:
            new, after = f"{p.name}={p.name}", self._keyword_after(call, p)
        open_ = text.find("(", self.span(call.func)[1])
        close = self.span(call)[1] - 1
        if open_ < 0 or text[close] != ")":
            return None
        at, insert = insert_arguments(text, [self.span(n) for n in items],
                                      None if after is None else items.index(after), [new],
                                      open_, close, self.limit)
        reason = self._why(p, call, f"pass it to {callee(call) or 'the call'}()")
        return Span(at, at, "signature", reason, (insert,))

    def _keyword_after(self, call: ast.Call, p: Param) -> ast.AST | None:
        """The argument ``p=p`` follows: in the def's order among the ``q=q`` it forwards.

        After the nearest of those the def lists before ``p``; else before the first it lists
        after (so after that one's predecessor); with none, after the last keyword, or
        positional.
        """
        named = [k for k in call.keywords if k.arg is not None]
        forwarded = [k for k in named if isinstance(k.value, ast.Name) and
                     k.arg == k.value.id and k.arg in self.params]
        here = self.params.index(p.name)
        earlier = [k for k in forwarded if self.params.index(k.arg) < here]
        if earlier:
            return max(earlier, key=lambda k: self.params.index(k.arg))
        if forwarded:
            items = sorted([*call.args, *call.keywords], key=lambda n: (n.lineno, n.col_offset))
            i = items.index(forwarded[0])
            return items[i - 1] if i else None
        return named[-1] if named else call.args[-1] if call.args else None

    def _positionally(self, call: ast.Call, p: Param) -> bool:
        """Whether the call forwards parameters positionally, so ``p`` goes last of them.

        Where it forwards some by position and some as ``q=q``, positionally only when its
        last positional argument is the parameter ``p`` follows in the def; where it forwards
        by position and passes other keywords, an optional ``p`` goes with the keywords.
        """
        by_position = [a for a in call.args if isinstance(a, ast.Name) and a.id in self.params]
        by_name = [k for k in call.keywords if isinstance(k.value, ast.Name) and
                   k.arg == k.value.id]
        if not by_name:
            return bool(by_position) and not (p.default and any(k.arg for k in call.keywords))
        i = self.params.index(p.name)
        return bool(by_position) and i > 0 and by_position[-1] is call.args[-1] and \
            call.args[-1].id == self.params[i - 1]

    # 5. an __init__ stores it -----------------------------------------------------------
    def stores(self, p: Param) -> list[Span]:
        if self.fn.name != "__init__" or not self.change.method or \
                p.kind in ("vararg", "kwarg") or any(
                    isinstance(n, ast.Attribute) and n.attr == p.name and
                    isinstance(n.ctx, ast.Store) and isinstance(n.value, ast.Name) and
                    n.value.id == "self" for n in _walk(self.fn)):
            return []  # (an attribute it sets already: how it should use the value is unknown)
        body = self.fn.body[1:] if _is_docstring(self.fn, getattr(self.fn.body[0], "value", None)) \
            else self.fn.body
        stored = [(self.params.index(q), st) for st in body if (q := _stored(st)) in self.params]
        here = self.params.index(p.name)
        before = [st for i, st in stored if i < here]
        if before:
            line = before[-1].end_lineno + 1
        elif stored:
            line = stored[0][1].lineno
        elif body:
            line = body[0].end_lineno + 1 if _is_init_call(body[0]) else body[0].lineno
        else:
            line = self.fn.body[0].end_lineno + 1  # after the docstring
        ref = (before[-1] if before else stored[0][1] if stored else body[0] if body
               else self.fn.body[0])
        at = self.starts[line - 1] if line - 1 < len(self.starts) else len(self.text)
        stmt = f"{' ' * ref.col_offset}self.{p.name} = {p.name}\n"
        if at == len(self.text) and not self.text.endswith("\n"):
            stmt = "\n" + stmt.rstrip("\n")
        return [Span(at, at, "signature", self._why(p, ref, "store it"), (stmt,))]

    # a default that became None -------------------------------------------------------
    def none_guard(self, was: Param, p: Param) -> list[Span]:
        old = was.value
        if p.value != "None" or old in (None, "None") or "\n" in old or \
                _tests_none(self.fn, p.name):
            return []
        first = next((st for st in self.fn.body
                      if any(isinstance(n, ast.Name) and n.id == p.name and
                             isinstance(n.ctx, ast.Load) for n in ast.walk(st))), None)
        if first is None:
            return []
        indent = " " * first.col_offset
        unit = " " * max(self.fn.body[0].col_offset - self.fn.col_offset, 1)
        guard = f"{indent}if {p.name} is None:\n{indent}{unit}{p.name} = {old}\n"
        at = self.starts[first.lineno - 1]
        why = f"'{p.name}' now defaults to None in {self.change.name}(): restore {old}"
        return [Span(at, at, "signature", f"{why} before line {first.lineno}", (guard,))]

def _tests_none(fn: ast.FunctionDef, name: str) -> bool:
    """Whether the body compares ``name`` with ``None`` or falls back from it (``name or``)."""
    for n in _walk(fn):
        if isinstance(n, ast.Compare) and any(isinstance(op, ast.Is | ast.IsNot)
                                              for op in n.ops):
            sides = [n.left, *n.comparators]
            if any(isinstance(x, ast.Name) and x.id == name for x in sides) and \
                    any(isinstance(x, ast.Constant) and x.value is None for x in sides):
                return True
        if isinstance(n, ast.BoolOp) and isinstance(n.op, ast.Or) and \
                isinstance(n.values[0], ast.Name) and n.values[0].id == name:
            return True
    return False


def _takes(fn: ast.FunctionDef, name: str) -> bool:
    """Whether a call may pass ``fn`` an argument ``name`` (by name, or into ``*``/``**``)."""
    a = fn.args
    return a.vararg is not None or a.kwarg is not None or \
        name in {x.arg for x in [*a.posonlyargs, *a.args, *a.kwonlyargs]}


def _walk(fn: ast.FunctionDef) -> Iterator[ast.AST]:
    """Every node of the function's body (not its decorators, defaults or annotations)."""
    for st in fn.body:
        yield from ast.walk(st)


def _calls(fn: ast.FunctionDef) -> list[ast.Call]:
    return [n for n in _walk(fn) if isinstance(n, ast.Call)]


def _root(node: ast.expr) -> str | None:
    """The name an attribute chain starts from: ``self.request.x`` → ``self``."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _default(args: ast.arguments, name: str) -> ast.expr | None:
    pos = [*args.posonlyargs, *args.args]
    defaults = dict(zip([a.arg for a in pos[len(pos) - len(args.defaults):]], args.defaults,
                        strict=True))
    defaults |= {a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d}
    return defaults.get(name)


def _distinctive(node: ast.expr) -> bool:
    """A default specific enough that spelling it in the body means this parameter."""
    if isinstance(node, ast.Constant):
        v = node.value
        if isinstance(v, str):
            return len(v) > 1
        return isinstance(v, int | float) and not isinstance(v, bool) and v not in (0, 1, -1)
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return bool(node.elts) and all(isinstance(e, ast.Constant) for e in node.elts)
    return False


def _is_docstring(fn: ast.FunctionDef, node: ast.AST | None) -> bool:
    first = fn.body[0]
    return isinstance(first, ast.Expr) and first.value is node and \
        isinstance(node, ast.Constant) and isinstance(node.value, str)


def _stored(st: ast.stmt) -> str | None:
    """``q`` for a statement ``self.q = q``."""
    if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.value, ast.Name):
        t = st.targets[0]
        if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and \
                t.value.id == "self" and t.attr == st.value.id:
            return t.attr
    return None


def _is_init_call(st: ast.stmt) -> bool:
    """``super().__init__(...)`` or ``Base.__init__(self, ...)``: the parent first."""
    return isinstance(st, ast.Expr) and isinstance(st.value, ast.Call) and \
        callee(st.value) == "__init__"


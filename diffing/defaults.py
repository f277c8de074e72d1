"""A parameter the user removed: its default stands in where the body still reads it.

Removing ``referer=None`` from a signature leaves ``if referer is not None:`` reading a name
nothing binds (or, for a name like ``format``, the builtin). The calls that passed it have
lost the argument (the call-site spans); the ones that did not always got the default, so
the default written where the name was read keeps what the function did for them. Where
that makes a condition constant, the branch it takes stays and the other goes:
``if None is not None:`` goes whole, with the comment lines just above it, and
``"python -m flask" if False else None`` becomes ``None``.

Left to the model: a parameter without a default (nothing stands in); a default that would
not be the same value read again (``acc=[]``: each read a new list) or would read another
binding where the body is (a name the body or its class binds); an edit that added a
parameter as well, which may be what replaces it (requests' ``prefetch=True`` became
``stream=False``, read as ``if not stream:``); and any removal from a def that takes
``**kwargs``, where the name may now arrive through it (flask's ``json``, read as
``kwargs['json']`` in the commit that removed it). Model-free: plain ``ast``.
"""

from __future__ import annotations

import ast
import re

from .edits import ast_offset, statement_range
from .proposal import Span
from .signature import SignatureChange

_UNKNOWN = object()
# a default of these kinds needs no parentheses wherever an expression can stand
_ATOMS = (ast.Constant, ast.Name, ast.Attribute, ast.Subscript, ast.Call, ast.List, ast.Tuple,
          ast.Dict, ast.Set, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp,
          ast.JoinedStr)
_BLOCKS = ("body", "orelse", "finalbody", "handlers")
_JOINER, _COMMENT = re.compile(r"\b(?:and|or)\b"), re.compile(r"#[^\n]*")


def default_spans(text: str, tree: ast.Module, starts: list[int], change: SignatureChange,
                  reads: set[int], bindings: list[tuple[int, str]], cap: int) -> list[Span]:
    """Return one span for each statement of the changed def reading a removed parameter.

    ``reads`` are the offsets of the reads of lost names that no binding in the file's
    functions reaches any more (a builtin or a module-level name may answer them now); only
    reads of parameters the def dropped that had a default are answered. ``bindings`` are
    where the text binds which names (:class:`.scopes.ScopeIndex`). A span is the statement
    (a compound one's header), or the whole ``if`` whose test the default makes constant
    when it is at most ``cap`` characters (the spans' budget); its mechanical candidate is
    that text with the default in place.
    """
    kept = {p.name for p in change.new}
    values = {p.name: p.value for p in change.old
              if p.default and p.value is not None and p.name not in kept}
    if not values or change.subkind != "remove-param" or any(p.kind == "kwarg"
                                                             for p in change.new):
        return []
    try:
        parsed = {k: ast.parse(v.strip(), mode="eval").body for k, v in values.items()}
    except SyntaxError:
        return []
    owner, fn = next(((o, n) for o in ast.walk(tree) for n in ast.iter_child_nodes(o)
                      if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
                      and n.lineno == change.line and n.name == change.name), (None, None))
    if fn is None:
        return []
    # names the def or its class binds would read something else in the body
    scope = owner if isinstance(owner, ast.ClassDef) else fn
    a = ast_offset(text, starts, scope.lineno, scope.col_offset)
    b = ast_offset(text, starts, scope.end_lineno, scope.end_col_offset)
    taken = {name for at, name in bindings if a <= at < b}
    values = {k: v for k, v in values.items() if _value_like(parsed[k]) and not any(
        isinstance(n, ast.Name) and n.id in taken for n in ast.walk(parsed[k]))}
    inliner = _Inliner(text, starts, fn, values, parsed, reads, cap)
    spans: list[Span] = []
    for name in inliner.names:
        span = inliner.span(name)
        if span is not None and not any(s.start <= span.start and span.end <= s.end
                                        for s in spans):
            spans = [s for s in spans if not (span.start <= s.start and s.end <= span.end)]
            spans.append(span)
    return sorted(spans, key=lambda s: s.start)


class _Inliner:
    """The removed parameters' reads in one def, and the texts with their defaults in place."""

    def __init__(self, text: str, starts: list[int], fn: ast.AST, values: dict[str, str],
                 parsed: dict[str, ast.expr], reads: set[int], cap: int) -> None:
        self.text, self.starts, self.values, self.parsed = text, starts, values, parsed
        self.cap = cap
        self.parents = {c: p for p in ast.walk(fn) for c in ast.iter_child_nodes(p)}
        # a read in an f-string is the model's: a default with the f-string's quotes in it
        # would end the string before 3.12
        quoted = {n for f in ast.walk(fn) if isinstance(f, ast.JoinedStr) for n in ast.walk(f)}
        self.names = [n for n in ast.walk(fn) if isinstance(n, ast.Name)
                      and isinstance(n.ctx, ast.Load) and n.id in values and n not in quoted
                      and self.at(n)[0] in reads and text[slice(*self.at(n))] == n.id]
        self.names.sort(key=lambda n: self.at(n))
        self.read = set(self.names)

    def at(self, node: ast.AST) -> tuple[int, int]:
        return (ast_offset(self.text, self.starts, node.lineno, node.col_offset),
                ast_offset(self.text, self.starts, node.end_lineno, node.end_col_offset))

    def span(self, name: ast.Name) -> Span | None:
        """The span answering ``name``: its ``if`` folded where that works, else its statement."""
        stmt = self.parents[name]
        while not isinstance(stmt, ast.stmt):
            stmt = self.parents[stmt]
        if isinstance(stmt, ast.If) and _inside(name, stmt.test):
            folded = self._fold(stmt)
            if folded is not None:
                return folded
        s, e = statement_range(self.text, self.starts, stmt)
        nodes = [c for f, v in ast.iter_fields(stmt) if f not in _BLOCKS
                 for c in (v if isinstance(v, list) else [v]) if isinstance(c, ast.AST)]
        return Span(s, e, "dangling", f"line {stmt.lineno} reads '{name.id}', a parameter the edit "
                    f"removed: its default {self.values[name.id]} stands in",
                    (self.render(nodes, s, e),))

    def _fold(self, stmt: ast.If) -> Span | None:
        """The whole ``if`` replaced by the branch its now-constant test takes, or None."""
        taken = self.const(stmt.test)
        s, e = self.at(stmt)
        a = self.text.rfind("\n", 0, s) + 1
        indent = self.text[a:s]
        if taken is _UNKNOWN or indent.strip() or self.text.startswith("elif", s) \
                or stmt.body[0].lineno == stmt.lineno or _is_elif(self.text, self.starts,
                                                                 stmt.orelse):
            return None
        b = self._line_end(stmt.end_lineno)
        if b - a > self.cap:
            return None
        block = stmt.body if taken else stmt.orelse
        name = self._tested(stmt.test)
        why = (f"line {stmt.lineno} tests '{name}', a parameter the edit removed: with its "
               f"default {self.values[name]} the test is always {bool(taken)}")
        if not block:
            parent = self.parents[stmt]
            siblings = next(getattr(parent, f) for f in _BLOCKS if stmt in getattr(parent, f, ()))
            if len(siblings) == 1:
                eol = "\r\n" if self.text.endswith("\r\n", a, b) else "\n"
                return Span(a, b, "dangling", why, (indent + "pass" + eol,))
            while a > 0 and self._comment_line_above(a, indent):
                a = self.text.rfind("\n", 0, a - 1) + 1
            return Span(a, b, "dangling", why, ("",))
        first = self.at(block[0])[0]
        ba = self.text.find("\n", self.text.rfind(":", 0, first)) + 1  # comments above it too
        lines = self.render(block, ba, self._line_end(block[-1].end_lineno)) \
            .splitlines(keepends=True)
        inner = self.text[self.starts[block[0].lineno - 1]:first]
        if not inner.startswith(indent) or any(
                line.strip() and not line.startswith(inner) for line in lines) or any(
                isinstance(n, ast.Constant | ast.JoinedStr) and n.lineno != n.end_lineno
                for st in block for n in ast.walk(st)):
            return None  # a line less indented than its block: a string's or a bracket's
        cut = len(inner) - len(indent)
        return Span(a, b, "dangling", why, ("".join(line[cut:] if line.strip() else line
                                                    for line in lines),))

    def render(self, nodes: list[ast.AST], a: int, b: int) -> str:
        """``text[a:b]`` with the defaults read where ``nodes`` read the removed parameters.

        A conditional expression whose test they make constant becomes the branch it takes,
        and ``and``/``or`` loses the operands they decide (``0 and X or Y`` → ``Y``).
        """
        edits, stack = [], list(nodes)
        while stack:
            node = stack.pop()
            if (short := self._shortened(node)) is not None:
                edits.append((*self.at(node), short))
            elif node in self.read:
                value = self.values[node.id].strip()
                parent = self.parents[node]
                bare = isinstance(self.parsed[node.id], _ATOMS) or not isinstance(
                    parent, ast.expr) or isinstance(parent, ast.List | ast.Tuple | ast.Set) or (
                    isinstance(parent, ast.Call) and node is not parent.func)
                edits.append((*self.at(node), value if bare else f"({value})"))
            else:
                stack.extend(ast.iter_child_nodes(node))
        out = self.text[a:b]
        for s, e, new in sorted(edits, reverse=True):
            if a <= s and e <= b:
                out = out[:s - a] + new + out[e - a:]
        return out

    def _shortened(self, node: ast.AST) -> str | None:
        """What a conditional or ``and``/``or`` reading the defaults comes to, or None.

        Only the operands the defaults decide, from the left, go: where those after them
        stay, so do the ``and``/``or`` between them, as written.
        """
        if not isinstance(node, ast.IfExp | ast.BoolOp) or not any(
                n in self.read for n in ast.walk(node)):
            return None
        if isinstance(node, ast.IfExp):
            if (taken := self.const(node.test)) is _UNKNOWN:
                return None
            left = [node.body if taken else node.orelse]
        else:
            left = list(node.values)
            while len(left) > 1 and (v := self.const(left[0])) is not _UNKNOWN:
                if bool(v) != isinstance(node.op, ast.And):
                    left = left[:1]  # it decides: the value is this operand's
                else:
                    left.pop(0)
            if len(left) == len(node.values):
                return None
            if len(left) > 1:  # the rest as written, from after the last dropped and/or
                gap = self.at(node.values[-len(left) - 1])[1]
                joiners = _JOINER.finditer(_COMMENT.sub(lambda m: " " * len(m[0]),
                                                        self.text[gap:self.at(left[0])[0]]))
                return self.render(left, gap + list(joiners)[-1].end(), self.at(node)[1]).lstrip()
        text = self.render(left, *self.at(left[0]))
        return f"({text})" if isinstance(left[0], ast.BoolOp | ast.IfExp | ast.Lambda
                                         | ast.NamedExpr) else text

    def const(self, node: ast.expr, reading: bool = True) -> object:
        """The value of a test with the defaults read, or ``_UNKNOWN``.

        Constants, ``not``, ``and``/``or``, and ``==``/``!=`` between them; ``is`` and
        ``is not`` only beside ``None``, ``True`` or ``False``, whose identity is certain.
        """
        if isinstance(node, ast.Constant):
            return node.value
        if reading and node in self.read:
            return self.const(self.parsed[node.id], reading=False)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            v = self.const(node.operand, reading)
            return _UNKNOWN if v is _UNKNOWN else not v
        if isinstance(node, ast.BoolOp):  # left to right, as Python evaluates it
            for operand in node.values:
                v = self.const(operand, reading)
                if v is _UNKNOWN or bool(v) != isinstance(node.op, ast.And):
                    return v  # unknown, or where it stops: the operands after it never ran
            return v
        if isinstance(node, ast.Compare):
            left = self.const(node.left, reading)
            for op, right in zip(node.ops, node.comparators, strict=True):
                r = self.const(right, reading)
                if left is _UNKNOWN or r is _UNKNOWN or not _certain(op, left, r):
                    return _UNKNOWN
                if not _compare(op, left, r):
                    return False
                left = r
            return True
        return _UNKNOWN

    def _tested(self, test: ast.expr) -> str:
        return next(n.id for n in ast.walk(test) if n in self.read)

    def _line_end(self, lineno: int) -> int:
        return self.starts[lineno] if lineno < len(self.starts) else len(self.text)

    def _comment_line_above(self, a: int, indent: str) -> bool:
        """Whether the line before offset ``a`` (a line start) is a comment at ``indent``."""
        above = self.text[self.text.rfind("\n", 0, a - 1) + 1:a].rstrip("\r\n")
        return above.startswith(indent + "#")


def _value_like(node: ast.expr) -> bool:
    """Whether ``node`` gives an equal value wherever and however often it is evaluated.

    A default is evaluated once, at the def; written where the reads were, it is evaluated at
    each. Constants, names, attributes and arithmetic on them come out the same; a ``[]`` or
    a call would make a new object each time (``acc=[]`` appended to, then returned).
    """
    if isinstance(node, ast.Constant | ast.Name | ast.Lambda):
        return True
    if isinstance(node, ast.Attribute | ast.UnaryOp):
        return _value_like(node.value if isinstance(node, ast.Attribute) else node.operand)
    if isinstance(node, ast.BinOp):
        return _value_like(node.left) and _value_like(node.right)
    return isinstance(node, ast.Tuple) and all(map(_value_like, node.elts))


def _inside(node: ast.AST, outer: ast.AST) -> bool:
    return any(n is node for n in ast.walk(outer))


def _is_elif(text: str, starts: list[int], orelse: list[ast.stmt]) -> bool:
    if len(orelse) != 1 or not isinstance(orelse[0], ast.If):
        return False
    return text.startswith("elif", ast_offset(text, starts, orelse[0].lineno,
                                              orelse[0].col_offset))


def _certain(op: ast.cmpop, left: object, right: object) -> bool:
    if isinstance(op, ast.Eq | ast.NotEq):
        return True
    singletons = (None, True, False)
    return isinstance(op, ast.Is | ast.IsNot) and (
        any(left is x for x in singletons) or any(right is x for x in singletons))


def _compare(op: ast.cmpop, left: object, right: object) -> bool:
    if isinstance(op, ast.Eq):
        return left == right
    if isinstance(op, ast.NotEq):
        return left != right
    return (left is right) == isinstance(op, ast.Is)


__all__ = ["default_spans"]

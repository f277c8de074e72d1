"""Def-use webs: which bindings and uses of one name in one body belong together.

Python scopes are too coarse for renaming: in ``def f(cls): ... for cls in cls:`` the loop
rebinds the parameter, and renaming the parameter must rename the ``cls`` after ``in`` but not
the loop variable; an ``except E as e`` in a function with a parameter ``e`` is another
variable in all but scope. Reaching definitions answer it: a use belongs to every binding that
may reach it, and bindings that reach a common use form one *web*. This is a small
flow-sensitive pass over statements (branches joined, loops iterated to a fixed point, a
``break`` also joined past its loop's ``else``, a ``finally`` entered from anywhere in its
``try``, ``return`` and the rest approximated by fall-through, which only merges webs).
Model-free; the positions match :mod:`.scopes`. The same pass says which reads no binding
reaches at all (:func:`reads_before_binding`), which is how a candidate fill that reads a local
before the code binds it gets ranked behind one that does not (:mod:`.deadcode` reads the same
parse for code that is never run or does nothing).
"""

from __future__ import annotations

import ast
import builtins
import re
from collections.abc import Iterator
from functools import lru_cache

from .edits import ast_offset, line_starts, parse_python
from .indent import indentation

State = dict[str, frozenset[int]]
ENTRY = -1  # the binding from outside the body (a global, a builtin, or none)
BUILTINS = frozenset(dir(builtins))
_DEF = re.compile(r"[ \t]*(?:async[ \t]+)?def[ \t]")


class _Unanalyzable(Exception):
    """A construct this pass does not model; the caller falls back to scopes alone."""


def webs(text: str) -> dict[int, tuple[int, int]]:
    """Map the offset of each occurrence of a name bound in a body to its web's id.

    Bodies are the module and each function (class bodies are reached through attributes,
    so they are never split). Occurrences inside nested scopes are absent: the caller treats
    a binding with such uses as one web. A body with a construct the pass does not model
    (``match``, ``global``, a walrus in a comprehension) is left out entirely.
    """
    tree = parse_python(text)
    out: dict[int, tuple[int, int]] = {}
    bodies: list[tuple[ast.AST, list[ast.stmt]]] = [(tree, tree.body)]
    bodies += [(n, n.body) for n in ast.walk(tree)
               if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    starts = line_starts(text)
    for i, (owner, body) in enumerate(bodies):
        try:
            out.update({off: (i, web) for off, web in
                        _Body(text, starts).run_owner(owner, body).items()})
        except _Unanalyzable:
            continue
    return out


def reads_before_binding(text: str, at: int) -> int:
    """How many reads of the body holding offset ``at`` no binding of theirs reaches.

    ``x = x`` at module level, or ``total += n`` in a function before any ``total = 0``: a
    name the body binds (so Python will not look for it outside: ``UnboundLocalError``, or a
    ``NameError`` at module level unless a builtin is meant), read where no path from the
    body's entry has bound it yet. A read that *some* path reaches does not count (a name
    bound in one branch and read after both is ordinary code). Scope-based checks
    (``symtable``) see such names as bound. Only the innermost function holding ``at`` (or
    the module's own statements) is walked, and only that function is parsed where its
    lines parse alone: a ranking checks every candidate, and parsing a 6,000-line file
    costs ~30 ms. Text that does not parse and bodies the pass does not model count 0.
    """
    return len(unbound_reads(text, at))


def unbound_reads(text: str, at: int) -> dict[int, str]:
    """Where :func:`reads_before_binding`'s reads are: offset in ``text`` → name.

    A parameter removed from a def whose body also binds it (``if memo is None: memo = {}``)
    leaves such reads: the name stays the function's, so no module-level name answers them.
    """
    found = innermost_def(text, at)
    if found is None:
        return {}
    alone, alone_at, tree, owner = found
    walker = _Body(alone, line_starts(alone))
    try:
        walker.run_owner(owner, owner.body)
    except _Unanalyzable:
        return {}
    outside = BUILTINS if owner is tree else frozenset()
    shift = at - alone_at  # the function was parsed alone: its offsets from its own start
    return {off + shift: walker.names[off] for off in walker.unreached
            if walker.names[off] in walker.bound - outside}


@lru_cache(maxsize=16)
def innermost_def(text: str, at: int
                   ) -> tuple[str, int, ast.Module, ast.Module | ast.FunctionDef
                              | ast.AsyncFunctionDef] | None:
    """``(text, at, tree, owner)``: the function holding ``at``, parsed alone where it can be.

    Else the whole text is parsed (``owner`` its module at module level); None where Python
    cannot parse it.
    """
    lines = _def_lines(text, at)
    if lines is not None:
        a, b, indented = lines
        head = "if 1:\n" if indented else ""  # an indented def parses inside a block
        alone, alone_at = head + text[a:b], at - a + len(head)
        tree = _parse(alone)
        if tree is not None and (owner := _owner(alone, alone_at, tree)) is not tree:
            return alone, alone_at, tree, owner
    tree = _parse(text)
    return None if tree is None else (text, at, tree, _owner(text, at, tree))


def _parse(text: str) -> ast.Module | None:
    try:
        return parse_python(text)
    except (SyntaxError, ValueError):
        return None


def _owner(text: str, at: int, tree: ast.Module
           ) -> ast.Module | ast.FunctionDef | ast.AsyncFunctionDef:
    """The innermost function whose statements hold ``at``, else the module."""
    starts = line_starts(text)
    owner: ast.Module | ast.FunctionDef | ast.AsyncFunctionDef = tree
    node: ast.AST | None = tree
    while node is not None:  # down the statements holding ``at``
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            owner = node
        node = next((c for c in ast.iter_child_nodes(node)
                     if isinstance(c, ast.stmt | ast.excepthandler)
                     and ast_offset(text, starts, c.lineno, c.col_offset) < at
                     <= ast_offset(text, starts, c.end_lineno, c.end_col_offset)), None)
    return owner


def _def_lines(text: str, at: int) -> tuple[int, int, bool] | None:
    """The lines of the innermost ``def`` around ``at``, found by indentation alone.

    The offsets of its first line and of the line after its last, and whether it is
    indented; None at module level. A string or bracket running over lines can fool it:
    then its lines do not parse alone, and the caller parses the whole text.
    """
    first = text.rfind("\n", 0, at) + 1
    level = next((d for _, _, d in _code_lines(text, first) if d is not None), None)
    k = first
    while level and k > 0:  # up through the headers above, each less indented than the last
        s = text.rfind("\n", 0, k - 1) + 1
        line, k = text[s:k], s
        d = _code_indent(line)
        if d is None or d >= level:
            continue
        if _DEF.match(line):
            end = next((a for a, _, e in _code_lines(text, first) if e is not None and e <= d),
                       len(text))
            return (s, end, d > 0) if end > at else None
        level = d
    return None


def _code_lines(text: str, start: int) -> Iterator[tuple[int, int, int | None]]:
    """``(start, end, indentation)`` of each line from ``start`` on (None: blank or comment)."""
    while start < len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end + 1
        yield start, end, _code_indent(text[start:end])
        start = end


def _code_indent(line: str) -> int | None:
    code = line.strip()
    return None if not code or code.startswith("#") else len(indentation(line))


class _Body:
    """Reaching definitions for the names bound directly in one body."""

    def __init__(self, text: str, starts: list[int]) -> None:
        self.text, self.starts = text, starts
        self.parent: dict[int, int] = {}
        self.seen: dict[int, int] = {}  # occurrence offset -> a def id it belongs with
        self.names: dict[int, str] = {}  # occurrence offset -> its name
        self.bound: set[str] = set()  # names this body binds
        self.unreached: set[int] = set()  # reads no binding reached (at their last visit)
        self.breaks: list[list[State]] = []  # per loop being walked: the states at its breaks

    # union-find over def ids -----------------------------------------------------------------
    def find(self, d: int) -> int:
        while self.parent.setdefault(d, d) != d:
            self.parent[d] = self.parent[self.parent[d]]
            d = self.parent[d]
        return d

    def run_owner(self, owner: ast.AST, body: list[ast.stmt]) -> dict[int, int]:
        state: State = {}
        if isinstance(owner, ast.FunctionDef | ast.AsyncFunctionDef):
            a = owner.args
            for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs, *(x for x in (a.vararg, a.kwarg)
                                                                  if x is not None)]:
                self.define(state, arg.arg, self.pos(arg.lineno, arg.col_offset))
        self.block(body, state)
        return {off: self.find(d) for off, d in self.seen.items()
                if self.names[off] in self.bound}

    # occurrences -----------------------------------------------------------------------------
    def pos(self, lineno: int, col: int) -> int:
        return ast_offset(self.text, self.starts, lineno, col)

    def find_in(self, node: ast.AST, pattern: str, name: str) -> int | None:
        a = self.pos(node.lineno, node.col_offset)
        b = self.pos(node.end_lineno, node.end_col_offset)
        m = re.compile(pattern.format(re.escape(name))).search(self.text, a, b)
        return m.start(1) if m else None

    def define(self, state: State, name: str, off: int | None) -> None:
        if off is None:
            return
        self.find(off)
        self.seen[off], self.names[off] = off, name
        self.bound.add(name)
        state[name] = frozenset({off})

    def use(self, state: State, name: str, off: int) -> None:
        reaching = state.get(name) or frozenset()
        # loops are walked twice: the last visit sees what every pass through them binds
        (self.unreached.discard if reaching - {ENTRY} else self.unreached.add)(off)
        defs = sorted(reaching or {ENTRY})
        for d in defs[1:]:
            self.parent[self.find(d)] = self.find(defs[0])
        if off in self.seen:  # read again (a loop's test on its second pass): one web still
            self.parent[self.find(self.seen[off])] = self.find(defs[0])
        self.seen[off], self.names[off] = defs[0], name

    # statements ------------------------------------------------------------------------------
    def block(self, stmts: list[ast.stmt], state: State) -> State:
        for s in stmts:
            state = self.stmt(s, state)
        return state

    def stmt(self, s: ast.stmt, state: State) -> State:
        if isinstance(s, ast.If | ast.While):
            return self.branch(s, state)
        if isinstance(s, ast.For | ast.AsyncFor):
            self.expr(s.iter, state)
            return self.loop(s, state)
        if isinstance(s, ast.Try | getattr(ast, "TryStar", ast.Try)):
            return self.try_(s, state)
        if isinstance(s, ast.With | ast.AsyncWith):
            for item in s.items:
                self.expr(item.context_expr, state)
                if item.optional_vars is not None:
                    self.target(item.optional_vars, state)
            return self.block(s.body, state)
        if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            return self.definition(s, state)
        if isinstance(s, ast.Match | ast.Global | ast.Nonlocal):
            raise _Unanalyzable
        if isinstance(s, ast.Break) and self.breaks:  # it leaves the loop past its else
            self.breaks[-1].append(dict(state))
        return self.simple(s, state)

    def simple(self, s: ast.stmt, state: State) -> State:
        if isinstance(s, ast.Assign):
            self.expr(s.value, state)
            for t in s.targets:
                self.target(t, state)
        elif isinstance(s, ast.AugAssign | ast.AnnAssign):
            if s.value is not None:
                self.expr(s.value, state)
            if isinstance(s, ast.AugAssign):
                self.expr(s.target, state, load_targets=True)
            read = self.seen.get(self.pos(s.target.lineno, s.target.col_offset))
            if s.value is not None or isinstance(s, ast.AugAssign):
                self.target(s.target, state)
            if isinstance(s, ast.AugAssign) and isinstance(s.target, ast.Name):
                # ``x += 1`` rebinds the x it reads: one variable, whatever reached the read
                self.parent[self.find(self.pos(s.target.lineno, s.target.col_offset))] = \
                    self.find(read)
        elif isinstance(s, ast.Import | ast.ImportFrom):
            for al in s.names:
                if al.name == "*":
                    continue
                if al.asname:
                    self.define(state, al.asname, self.find_in(al, r"\bas\s+({})\b", al.asname))
                else:
                    name = al.name.split(".")[0]
                    self.define(state, name, self.pos(al.lineno, al.col_offset))
        elif isinstance(s, ast.Delete):
            for t in s.targets:
                if isinstance(t, ast.Name):
                    self.use(state, t.id, self.pos(t.lineno, t.col_offset))
                    state[t.id] = frozenset()
                else:
                    self.expr(t, state)
        else:
            for child in ast.iter_child_nodes(s):
                if isinstance(child, ast.expr):
                    self.expr(child, state)
        return state

    def definition(self, s: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef,
                   state: State) -> State:
        for d in s.decorator_list:
            self.expr(d, state)
        if isinstance(s, ast.ClassDef):
            for b in [*s.bases, *(k.value for k in s.keywords)]:
                self.expr(b, state)
            self.define(state, s.name, self.find_in(s, r"class\s+({})\b", s.name))
        else:
            for d in [*s.args.defaults, *(d for d in s.args.kw_defaults if d is not None)]:
                self.expr(d, state)
            self.define(state, s.name, self.find_in(s, r"def\s+({})\b", s.name))
        return state

    def branch(self, s: ast.If | ast.While, state: State) -> State:
        if isinstance(s, ast.If):
            self.expr(s.test, state)
            return _join(self.block(s.body, dict(state)), self.block(s.orelse, dict(state)))
        entry = dict(state)
        self.breaks.append([])
        for _ in range(2):  # the test sees the state after a pass through the body
            self.expr(s.test, entry)
            entry = _join(entry, self.block(s.body, dict(entry)))
        return self._exit(self.block(s.orelse, entry))

    def loop(self, s: ast.For | ast.AsyncFor, state: State) -> State:
        entry = dict(state)
        self.breaks.append([])
        for _ in range(2):
            inner = dict(entry)
            self.target(s.target, inner)
            entry = _join(entry, self.block(s.body, inner))
        return self._exit(self.block(s.orelse, entry))

    def _exit(self, after_else: State) -> State:
        """What follows a loop: its ``else`` run to the end, or any of its ``break`` s."""
        for state in self.breaks.pop():
            after_else = _join(after_else, state)
        return after_else

    def try_(self, s: ast.Try, state: State) -> State:
        after_body = self.block(s.body, dict(state))
        anywhere = _join(state, after_body)
        results = [self.block(s.orelse, after_body)]
        for h in s.handlers:
            inner = dict(anywhere)
            if h.type is not None:
                self.expr(h.type, inner)
            if h.name:
                self.define(inner, h.name, self.find_in(h, r"\bas\s+({})\b", h.name))
            inner = self.block(h.body, inner)
            if h.name:
                inner[h.name] = frozenset()  # Python deletes the name after the handler
            results.append(inner)
        out = results[0]
        for r in results[1:]:
            out = _join(out, r)
        # ``finally`` also runs when the body raises part way: what it held before, too
        return self.block(s.finalbody, _join(out, anywhere) if s.finalbody else out)

    # expressions -----------------------------------------------------------------------------
    def target(self, t: ast.expr, state: State) -> None:
        if isinstance(t, ast.Name):
            self.define(state, t.id, self.pos(t.lineno, t.col_offset))
        elif isinstance(t, ast.Tuple | ast.List):
            for e in t.elts:
                self.target(e, state)
        elif isinstance(t, ast.Starred):
            self.target(t.value, state)
        else:
            self.expr(t, state)  # obj.attr / obj[i] targets use obj and i

    def expr(self, e: ast.expr, state: State, load_targets: bool = False) -> None:
        if isinstance(e, ast.Name):
            if isinstance(e.ctx, ast.Load) or load_targets:
                self.use(state, e.id, self.pos(e.lineno, e.col_offset))
            return
        if isinstance(e, ast.Lambda):
            for d in [*e.args.defaults, *(d for d in e.args.kw_defaults if d is not None)]:
                self.expr(d, state)
            return
        if isinstance(e, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
            if any(isinstance(n, ast.NamedExpr) for n in ast.walk(e)):
                raise _Unanalyzable
            self.expr(e.generators[0].iter, state)
            return
        if isinstance(e, ast.NamedExpr):
            self.expr(e.value, state)
            self.target(e.target, state)
            return
        for child in ast.iter_child_nodes(e):
            if isinstance(child, ast.expr):
                self.expr(child, state)
            elif isinstance(child, ast.keyword | ast.comprehension | ast.arguments):
                for sub in ast.iter_child_nodes(child):
                    if isinstance(sub, ast.expr):
                        self.expr(sub, state)


def _join(a: State, b: State) -> State:
    return {k: a.get(k, frozenset({ENTRY})) | b.get(k, frozenset({ENTRY}))
            for k in a.keys() | b.keys()}

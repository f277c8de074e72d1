"""Import cycles a move makes: imports that now find a module half-run.

Importing ``pkg.preconf.fns`` runs ``pkg/preconf/__init__.py`` first. Where that ``__init__``
has ``from ..converters import Converter`` and ``converters`` imports ``fns``, importing
``converters`` now goes ``converters`` → ``preconf.fns`` → ``preconf`` → ``converters``
while ``converters`` is half-run, before it defines ``Converter``: an ImportError. The other
way round, a module moved out of a package whose ``__init__`` imports it is no longer
preceded by that ``__init__``. The move's edits are the ones a developer would write; this
says where importing may now fail, so the user can look before running it.

Python's import is simulated over the project's modules: each module's load-time statements
in order (those at module level, in its ``if``/``try``/``with`` blocks and class bodies; not
in functions, nor under ``if TYPE_CHECKING:`` or ``if __name__ == "__main__":``), a
module's packages first, and a ``from X import name`` failing where ``X`` is half-run and
has not bound ``name`` yet. Only failures the moved module takes part in count, each import
that starts one tried: the packages it is in, the module, the modules that import it, and
the packages it left.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from .edits import parse_python
from .modules import is_package, module_names, resolve, type_checking
from .respell import Move, moved

__all__ = ["Cycle", "move_cycles"]


@dataclass(frozen=True)
class Cycle:
    """An import that fails half-way once the module has moved, and the chain that does it."""

    first: str  # the module whose import fails
    chain: tuple[str, ...]  # the imports under way, outermost first
    half_run: str  # the module found half-run
    name: str  # the name it has not bound yet

    def said(self) -> str:
        """One line for the user."""
        return (f"importing {self.first} first may now fail: {' -> '.join(self.chain)} "
                f"imports {self.name} from {self.half_run} before that module defines it "
                "(an import cycle the move makes)")


def move_cycles(moves: list[Move], files: Mapping[str, str], root: str | Path,
                done: bool = True) -> list[Cycle]:
    """The imports that fail half-way through a moved module, at most one a move.

    ``files`` maps each of the project's Python files to its text once the follow-ups are
    in; ``done``: the files sit where the move put them (else where they were, and their
    names are mapped through the move).
    """
    modules: dict[str, tuple[str, bool]] = {}
    for path, text in files.items():
        names = () if path.endswith(".pyi") else module_names(path, root)  # stubs never run
        if names:
            after = names[0] if done else moved(moves, names[0]) or names[0]
            modules[after] = (text, is_package(path))
    program = _Program(modules)
    out = []
    for m in moves:
        old, new = _parents(m.old), _parents(m.new)
        last = m.new.rpartition(".")[2]  # an importer spells it (a quick look first)
        # a moved def's cycles run through the module it went to
        home = new[-1] if m.symbol else m.new
        starts = [*new, m.new, *(n for n, (text, _) in modules.items()
                                 if last in text and home in program.imports(n)), *old]
        for start in dict.fromkeys(s for s in starts if s in modules):
            try:
                failed = _Run(program).load(start)
            except RecursionError:  # a chain of imports deeper than Python's stack
                continue
            if failed is not None and any(_inside(c, home) for c in failed[0]):
                chain, half_run, name = failed
                out.append(Cycle(start, chain, half_run, name))
                break
    return out


def _parents(dotted: str) -> list[str]:
    """The packages importing ``dotted`` runs first, outermost first."""
    parts = dotted.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def _inside(name: str, top: str) -> bool:
    """Whether ``name`` is module ``top`` or under it."""
    return name == top or name.startswith(f"{top}.")


class _Program:
    """The project's modules and their load-time statements (read when first asked)."""

    def __init__(self, modules: Mapping[str, tuple[str, bool]]) -> None:
        self.modules = modules
        self._steps: dict[str, list[tuple]] = {}

    def steps(self, name: str) -> list[tuple]:
        """What importing ``name`` does, in order.

        ``("import", module)`` runs a project module; ``("from", module, what)`` reads
        ``what`` from it; ``("bind", names)`` binds module-level names.
        """
        if name not in self._steps:
            text, package = self.modules[name]
            try:
                body = parse_python(text).body
            except (SyntaxError, ValueError):
                body = []
            self._steps[name] = list(self._read(body, name, package))
        return self._steps[name]

    def imports(self, name: str) -> set[str]:
        return {s[1] for s in self.steps(name) if s[0] in ("import", "from")}

    def _read(self, body: list[ast.stmt], name: str, package: bool) -> Iterator[tuple]:
        aliases: dict[str, str] = {}  # a name bound to one of the project's modules → it
        for stmt in _load_time(body):
            if isinstance(stmt, ast.Import):
                for a in stmt.names:
                    yield from self._import(a.name)
                    local, module = a.asname or a.name.partition(".")[0], \
                        a.name if a.asname else a.name.partition(".")[0]
                    if module in self.modules:
                        aliases[local] = module
                yield ("bind", {a.asname or a.name.partition(".")[0] for a in stmt.names})
            elif isinstance(stmt, ast.ImportFrom):
                base = resolve(stmt, name, package)
                if base is not None:
                    yield from self._import(base)
                    for a in stmt.names:
                        sub = f"{base}.{a.name}"
                        if sub in self.modules:
                            yield ("import", sub)
                            aliases[a.asname or a.name] = sub
                        elif base in self.modules and a.name != "*":
                            yield ("from", base, a.name)
                yield ("bind", {a.asname or a.name for a in stmt.names})
            else:
                # ``class Sub(mod.Base)`` reads ``Base`` off a module as it runs, as a
                # ``from mod import Base`` would
                for module, attr in _attribute_reads(stmt, aliases):
                    if f"{module}.{attr}" not in self.modules:
                        yield ("from", module, attr)
                yield ("bind", _bound(stmt))


    def _import(self, dotted: str) -> Iterator[tuple]:
        """Importing ``dotted``: the deepest of it and its packages the project has."""
        here = [t for t in [*_parents(dotted), dotted] if t in self.modules]
        if here:
            yield ("import", here[-1])


class _Run:
    """One interpreter's imports, from nothing: which modules ran, which are running."""

    def __init__(self, program: _Program) -> None:
        self.program = program
        self.bound: dict[str, set[str]] = {}  # module → names bound so far
        self.running: list[str] = []  # started, not finished
        self.asked: list[str] = []  # the chain of imports, those whose packages run included

    def load(self, name: str) -> tuple[tuple[str, ...], str, str] | None:
        """Import ``name``: ``(running modules, half-run module, name)`` where it fails."""
        if name in self.bound:
            return None
        self.asked.append(name)  # its packages run first, on its behalf
        for p in _parents(name):
            if p in self.program.modules and (failed := self.load(p)):
                return failed
        self.asked.pop()
        if name in self.bound:  # a package's __init__ imported it
            return None
        self.bound[name] = bound = set()
        self.running.append(name)
        self.asked.append(name)
        for step in self.program.steps(name):
            if step[0] == "import":
                if failed := self.load(step[1]):
                    return failed
                if step[1].rpartition(".")[0] in self.bound:  # a submodule binds its name
                    self.bound[step[1].rpartition(".")[0]].add(step[1].rpartition(".")[2])
            elif step[0] == "from":
                if failed := self.load(step[1]):
                    return failed
                half = self.bound[step[1]]
                if step[1] in self.running and step[2] not in half and "__getattr__" not in half:
                    return tuple(self.asked), step[1], step[2]
            else:
                bound |= step[1]
        self.running.pop()
        self.asked.pop()
        return None


def _load_time(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements a module runs when it is imported, in order (blocks flattened)."""
    for stmt in body:
        if isinstance(stmt, ast.If) and _never_on_import(stmt.test):
            yield from _load_time(stmt.orelse)
        elif isinstance(stmt, ast.If | ast.Try | ast.With | ast.For | ast.While):
            for field in ("body", "orelse", "finalbody"):
                yield from _load_time(getattr(stmt, field, []))
            for handler in getattr(stmt, "handlers", []):
                yield from _load_time(handler.body)
            yield stmt
        elif isinstance(stmt, ast.ClassDef):
            yield from (s for s in _load_time(stmt.body)
                        if isinstance(s, ast.Import | ast.ImportFrom))
            yield stmt
        else:
            yield stmt


def _attribute_reads(stmt: ast.stmt, aliases: dict[str, str]) -> Iterator[tuple[str, str]]:
    """``(module, name)`` of each ``alias.name`` that running ``stmt`` at load time reads.

    A def's decorators and defaults, a class's bases, keywords and body, the test of an
    ``if`` (blocks are read statement by statement), a plain statement whole; never what
    runs later (function bodies, lambdas) nor annotations (often left unevaluated).
    """
    if not aliases:
        return
    for expr in eager(stmt):
        stack = [expr]
        while stack:
            node = stack.pop()
            if isinstance(node, ast.Lambda | ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
                    node.value.id in aliases:
                yield aliases[node.value.id], node.attr
            stack.extend(ast.iter_child_nodes(node))


def eager(stmt: ast.stmt) -> Iterator[ast.AST]:
    """The parts of ``stmt`` evaluated when the module runs it (see :func:`_attribute_reads`).

    Annotations are left out: a module may leave them unevaluated.
    """
    if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
        yield from stmt.decorator_list
        yield from stmt.args.defaults
        yield from (d for d in stmt.args.kw_defaults if d is not None)
    elif isinstance(stmt, ast.ClassDef):
        yield from stmt.decorator_list
        yield from stmt.bases
        yield from (k.value for k in stmt.keywords)
        for inner in stmt.body:
            yield from eager(inner)
    elif isinstance(stmt, ast.If | ast.While):
        yield stmt.test
    elif isinstance(stmt, ast.For):
        yield stmt.iter
    elif isinstance(stmt, ast.With):
        yield from (i.context_expr for i in stmt.items)
    elif isinstance(stmt, ast.AnnAssign):
        if stmt.value is not None:
            yield stmt.value
    elif not isinstance(stmt, ast.Try | ast.Import | ast.ImportFrom):
        yield stmt


def _bound(stmt: ast.stmt) -> set[str]:
    """The module-level names a statement other than an import binds."""
    if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return {stmt.name}
    targets: list[ast.expr] = []
    if isinstance(stmt, ast.Assign):
        targets = stmt.targets
    elif isinstance(stmt, ast.AnnAssign | ast.AugAssign | ast.For):
        targets = [stmt.target]
    elif isinstance(stmt, ast.With):
        targets = [i.optional_vars for i in stmt.items if i.optional_vars is not None]
    return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}


def _never_on_import(test: ast.expr) -> bool:
    """``TYPE_CHECKING`` and ``__name__ == "__main__"``: true only for a checker or a script."""
    if isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and \
            test.left.id == "__name__" and isinstance(test.ops[0], ast.Eq):
        return any(isinstance(c, ast.Constant) and c.value == "__main__"
                   for c in test.comparators)
    return type_checking(test)

"""Cases for ``remask bench edits``: reversed edits made from real code, and the real-edits set.

A reversed edit starts from real code R the model did not train on, makes a consistent
*before* state by undoing something in R, then applies the user's edit that starts the
restoration; the proposal is right when it reproduces R exactly:

- rename: every reference of one binding renamed to a fresh name; the user renames the
  binding back. Only names whose every NAME token belongs to that binding are used, so the
  answer does not depend on remask's own scope analysis (``--real`` tests scope cases).
- add-argument: one required parameter removed from a def and from its call sites; the user
  adds it back to the def.
- pass-param: a parameter its function reads once, to pass it on to a call (``p=p``, ``p``
  after the others, ``*p``, ``**p``), removed from the def and from that call; the user adds
  it back to the def. Sub-kind: how the call passed it.
- repair: one closing bracket or colon deleted (the keystroke that broke the statement).
"""

from __future__ import annotations

import ast
import difflib
import gzip
import io
import json
import keyword
import random
import re
import tokenize
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from remask.diffing.edits import ast_offset, line_starts
from remask.diffing.scopes import ScopeIndex

SHARED = Path(__file__).resolve().parents[2] / "shared" / "benchmarks"
HUMANEVAL = SHARED / "humaneval-infilling" / "HumanEval-SingleLineInfilling.jsonl.gz"
REAL = SHARED / "real-edits" / "real-edits.jsonl.gz"
HELDOUT = Path.home() / ".cache" / "remask" / "corpus"
MAX_CHARS = 40_000


@dataclass(frozen=True)
class Case:
    id: str
    kind: str
    subkind: str
    path: str
    before: str
    after: str
    expected: str
    hunks: tuple[tuple[int, int], ...] = ()  # real cases: follow-up line ranges of ``after``
    repo: str = ""  # real cases: the project, "owner/name"


def source_texts(source: Path | None) -> Iterator[tuple[str, str]]:
    """(name, code) of the real code to reverse: DIR's .py files, else HumanEval + held-out."""
    if source is not None:
        for p in sorted(source.rglob("*.py")):
            text = p.read_text(encoding="utf-8", errors="replace")
            if len(text) <= MAX_CHARS:
                yield str(p.relative_to(source)), text
        return
    seen = set()
    with gzip.open(HUMANEVAL, "rt", encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            pid = r["task_id"].split("/")[2]
            if pid not in seen:
                seen.add(pid)
                yield f"HumanEval/{pid}.py", r["prompt"] + r["canonical_solution"] + r["suffix"]
    if (HELDOUT / "heldout.txt").exists():
        from remask.infill.corpus import Corpus

        corpus = Corpus(HELDOUT, "heldout")
        for i in range(len(corpus)):
            text = corpus.doc(i)
            if len(text) <= MAX_CHARS:
                yield f"heldout/{i}.py", text


def synthetic_cases(source: Path | None, limit: int, seed: int = 0) -> list[Case]:
    """Up to ``limit`` cases of each kind, drawn in a fixed order from the source texts."""
    rng = random.Random(seed)
    makers = {"rename": rename_case, "add-argument": add_argument_case,
              "pass-param": pass_param_case, "repair": repair_case}
    out: dict[str, list[Case]] = {kind: [] for kind in makers}
    for name, text in source_texts(source):
        try:
            ast.parse(text)
        except (SyntaxError, ValueError):
            continue
        for kind, make in makers.items():
            if len(out[kind]) < limit:
                case = make(name, text, rng)
                if case is not None:
                    out[kind].append(case)
        if all(len(v) >= limit for v in out.values()):
            break
    return [c for v in out.values() for c in v]


def rename_case(name: str, text: str, rng: random.Random) -> Case | None:
    index = ScopeIndex(text)
    names = Counter(t.string for t in _tokens(text) if t.type == tokenize.NAME)
    options = []
    for occ in index.bindings():
        if occ.kind not in ("def", "class", "parameter", "assignment", "for-target"):
            continue
        refs = index.references(occ)
        if len(refs) >= 2 and names[occ.name] == len(refs) == _words(text, occ.name) \
                and refs[0].start == occ.start:
            options.append((occ, refs))
    if not options:
        return None
    occ, refs = rng.choice(options)
    fake = _fresh_name(occ.name, text)
    before = text
    for r in reversed(refs):
        before = before[:r.start] + fake + before[r.end:]
    after = before[:occ.start] + occ.name + before[occ.start + len(fake):]
    return Case(f"{name}:{occ.name}", "rename", occ.kind, name, before, after, text)


def add_argument_case(name: str, text: str, rng: random.Random) -> Case | None:
    tree = ast.parse(text)
    starts = line_starts(text)
    calls: dict[str, list[ast.Call]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            calls.setdefault(node.func.id, []).append(node)
    options = []
    for d in tree.body:
        if not isinstance(d, ast.FunctionDef) or d.name not in calls or d.args.vararg:
            continue
        params = d.args.args
        required = params[:len(params) - len(d.args.defaults)]
        for i, p in enumerate(required):
            edits = _call_removals(text, starts, calls[d.name], i, p.arg)
            if edits is not None and not _overlap(edits):
                options.append((d, i, edits))
    if not options:
        return None
    d, i, edits = rng.choice(options)
    params = d.args.args
    header = _removal(text, starts, params, i)
    before = _apply(text, [header, *edits])
    # the user's edit: the def header back as it was in the real code
    after = _apply(text, edits)
    return Case(f"{name}:{d.name}.{params[i].arg}", "add-argument", "add-param", name,
                before, after, text)


def pass_param_case(name: str, text: str, rng: random.Random) -> Case | None:
    tree = ast.parse(text)
    starts = line_starts(text)
    options = []
    for d in ast.walk(tree):
        if not isinstance(d, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        params = _param_ranges(text, starts, d.args)
        inside = {id(n) for st in d.body for n in ast.walk(st)}
        if any(isinstance(n, ast.Call) and id(n) not in inside and
               getattr(n.func, "id", getattr(n.func, "attr", None)) == d.name
               for n in ast.walk(tree)):  # its callers pass the argument: no consistent before
            continue
        for i, (pname, _, _) in enumerate(params):
            use = _passed_once(d, pname)
            if use is not None and pname not in ("self", "cls"):
                options.append((d, params, i, use))
    rng.shuffle(options)
    for d, params, i, (call, j, how) in options:
        items = sorted([*call.args, *call.keywords], key=lambda n: (n.lineno, n.col_offset))
        arg = _removal(text, starts, items, j)
        gone = (params[i][1], params[i + 1][1]) if i + 1 < len(params) else \
            (params[i - 1][2], params[i][2]) if i else (params[i][1], params[i][2])
        if _overlap([arg, gone]):
            continue
        before, after = _apply(text, [arg, gone]), _apply(text, [arg])
        try:
            ast.parse(before)
        except SyntaxError:
            continue
        return Case(f"{name}:{d.name}.{params[i][0]}", "pass-param", how, name, before, after,
                    text)
    return None


def repair_case(name: str, text: str, rng: random.Random) -> Case | None:
    spots = [i for i, c in enumerate(text) if c in ")]}:" and not _in_string_or_comment(text, i)]
    rng.shuffle(spots)
    for i in spots[:20]:
        after = text[:i] + text[i + 1:]
        try:
            ast.parse(after)
        except SyntaxError:
            return Case(f"{name}:{i}", "repair", f"delete '{text[i]}'", name, text, after, text)
    return None


def real_cases(path: Path = REAL) -> list[Case]:
    """Load the 192 real-edits cases (README in that folder)."""
    out = []
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            out.append(Case(r["id"], r["kind"], r["subkind"], r["path"], r["before"],
                            r["after"], r["expected"],
                            tuple(tuple(h) for h in r["followup_hunks"]), r["repo"]))
    return out


def clean(case: Case, proposal: str) -> bool:
    """Apply the real-edits rule: every changed line range lies in a follow-up hunk."""
    sm = difflib.SequenceMatcher(None, case.after.splitlines(True), proposal.splitlines(True),
                                 autojunk=False)
    for op, i1, i2, _, _ in sm.get_opcodes():
        if op == "equal":
            continue
        if i1 == i2:
            ok = any(s <= i1 <= e for s, e in case.hunks)
        else:
            ok = any(s <= i1 and i2 <= e for s, e in case.hunks)
        if not ok:
            return False
    return True


def replace_all(case: Case) -> str:
    """Return the scope-blind baseline: every NAME token X in ``after`` replaced by Y."""
    old, new = _edit_words(case)
    if old is None:
        return case.after
    out, starts = case.after, line_starts(case.after)
    toks = [t for t in _tokens(case.after) if t.type == tokenize.NAME and t.string == old]
    for t in reversed(toks):
        a = starts[t.start[0] - 1] + t.start[1]
        out = out[:a] + new + out[a + len(old):]
    return out


def _edit_words(case: Case) -> tuple[str | None, str | None]:
    a = [t.string for t in _tokens(case.before) if t.type == tokenize.NAME]
    b = [t.string for t in _tokens(case.after) if t.type == tokenize.NAME]
    for x, y in zip(a, b, strict=False):
        if x != y:
            return x, y
    return None, None


def _tokens(text: str) -> list[tokenize.TokenInfo]:
    try:
        return list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return []


def _words(text: str, word: str) -> int:
    """Count whole-word spellings of ``word`` anywhere (strings and comments included)."""
    return len(re.findall(rf"(?<![\w.]){re.escape(word)}(?!\w)", text)) + \
        len(re.findall(rf"(?<=\.){re.escape(word)}(?!\w)", text))


def _fresh_name(old: str, text: str) -> str:
    for suffix in ("_old", "_prev", "_tmp", "_x"):
        cand = old + suffix
        if cand not in text and not keyword.iskeyword(cand):
            return cand
    return old + "_" + str(len(text))


def _call_removals(text: str, starts: list[int], calls: list[ast.Call], i: int, name: str
                   ) -> list[tuple[int, int]] | None:
    out = []
    for call in calls:
        if any(isinstance(a, ast.Starred) for a in call.args) or \
                any(k.arg is None for k in call.keywords):
            return None
        if i < len(call.args):
            out.append(_removal(text, starts, [*call.args, *call.keywords], i))
        elif any(k.arg == name for k in call.keywords):
            j = len(call.args) + [k.arg for k in call.keywords].index(name)
            out.append(_removal(text, starts, [*call.args, *call.keywords], j))
        else:
            return None
    return out or None


def _param_ranges(text: str, starts: list[int], args: ast.arguments
                  ) -> list[tuple[str, int, int]]:
    """(name, start, end) of each parameter with its annotation and default, in order."""
    pos = [*args.posonlyargs, *args.args]
    defaults = [None] * (len(pos) - len(args.defaults)) + list(args.defaults)
    pairs = [*zip(pos, defaults, strict=True), *([(args.vararg, None)] if args.vararg else []),
             *zip(args.kwonlyargs, args.kw_defaults, strict=True),
             *([(args.kwarg, None)] if args.kwarg else [])]
    out = []
    for a, default in pairs:
        last = default or a
        s = ast_offset(text, starts, a.lineno, a.col_offset)
        if a is args.vararg or a is args.kwarg:
            s = text.rfind("*", 0, s) - (a is args.kwarg)
        out.append((a.arg, s, ast_offset(text, starts, last.end_lineno, last.end_col_offset)))
    return sorted(out, key=lambda r: r[1])


def _passed_once(d: ast.FunctionDef, name: str) -> tuple[ast.Call, int, str] | None:
    """(call, index among its sorted arguments, how) where ``name``'s one read passes it on.

    Only to a call that passes another of the function's parameters by its own name as well:
    ``len(string)`` is a use, not a parameter passed on.
    """
    reads = [n for st in d.body for n in ast.walk(st)
             if isinstance(n, ast.Name) and n.id == name]
    if len(reads) != 1 or not isinstance(reads[0].ctx, ast.Load):
        return None
    params = {a.arg for a in [*d.args.posonlyargs, *d.args.args, *d.args.kwonlyargs,
                              d.args.vararg, d.args.kwarg] if a is not None} - {name}
    for call in (n for st in d.body for n in ast.walk(st) if isinstance(n, ast.Call)):
        bare = [a.value if isinstance(a, ast.Starred) else a for a in call.args]
        others = {a.id for a in bare if isinstance(a, ast.Name)}
        others |= {k.value.id for k in call.keywords if isinstance(k.value, ast.Name) and
                   k.arg in (None, k.value.id)}
        if not others & params:
            continue
        items = sorted([*call.args, *call.keywords], key=lambda n: (n.lineno, n.col_offset))
        for j, item in enumerate(items):
            value = item.value if isinstance(item, ast.keyword | ast.Starred) else item
            if value is not reads[0]:
                continue
            if isinstance(item, ast.Starred):
                return call, j, "*args"
            if isinstance(item, ast.keyword):
                how = "**kwargs" if item.arg is None else "keyword" if item.arg == name else None
                return (call, j, how) if how else None
            last = max((k for k, a in enumerate(call.args) if not isinstance(a, ast.Starred)),
                       default=-1)
            return (call, j, "positional") if item is call.args[last] else None
    return None


def _removal(text: str, starts: list[int], items: list[ast.AST], i: int) -> tuple[int, int]:
    """Return the range deleting item ``i`` of a comma-separated list with its separator."""
    def span(n: ast.AST) -> tuple[int, int]:
        return (ast_offset(text, starts, n.lineno, n.col_offset),
                ast_offset(text, starts, n.end_lineno, n.end_col_offset))

    if i + 1 < len(items):
        return span(items[i])[0], span(items[i + 1])[0]
    if i > 0:
        return span(items[i - 1])[1], span(items[i])[1]
    return span(items[i])


def _overlap(ranges: list[tuple[int, int]]) -> bool:
    """Whether two removals overlap (nested calls such as ``f(f(s))``)."""
    rs = sorted(ranges)
    return any(b[0] < a[1] for a, b in zip(rs, rs[1:], strict=False))


def _apply(text: str, ranges: list[tuple[int, int]]) -> str:
    for a, b in sorted(ranges, reverse=True):
        text = text[:a] + text[b:]
    return text


def _in_string_or_comment(text: str, i: int) -> bool:
    line_start = text.rfind("\n", 0, i) + 1
    head = text[line_start:i]
    return "#" in head or head.count('"') % 2 == 1 or head.count("'") % 2 == 1

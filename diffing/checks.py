"""Small checks and bookkeeping the Rewriter applies to every candidate and proposal."""

from __future__ import annotations

import ast
from functools import lru_cache

from .edits import line_starts

_TITLES = {"rename": ("Rename {n} reference", "Rename {n} references"),
           "signature": ("Update {n} call site", "Update {n} call sites"),
           "dangling": ("Fix {n} dangling use", "Fix {n} dangling uses"),
           "hole": ("Fill hole", "Fill {n} holes"),
           "repair": ("Repair statement", "Repair {n} statements")}


def fresh(keys: list, pool: list) -> list:
    """Return the error keys not accounted for by ``pool`` (a multiset: each used once)."""
    left, out = list(pool), []
    for k in keys:
        if k in left:
            left.remove(k)
        else:
            out.append(k)
    return out


@lru_cache(maxsize=16)
def python_ok(text: str, path: str | None, after: int | None) -> bool:
    """Whether Python's own parser accepts ``text`` (or first complains past ``after``).

    Tree-sitter is more lenient than CPython in places; a Python proposal must satisfy both.
    Non-Python files pass. Cached: one fill asks about the same whole file more than once.
    """
    if path is not None and not str(path).endswith((".py", ".pyi")):
        return True
    try:
        ast.parse(text)
        return True
    except SyntaxError as e:
        if after is None or not e.lineno:
            return False
        starts = line_starts(text)
        return starts[min(e.lineno, len(starts)) - 1] > after
    except ValueError:
        return False


def title(kind: str, n: int) -> str:
    """Return a proposal's title: "Rename 2 references", "Update 1 call site", ..."""
    one, many = _TITLES[kind]
    return (one if n == 1 else many).format(n=n)


def merge_traces(traces: list[dict]) -> dict:
    """Sum the engine traces of every call behind one proposal."""
    out = {"forward_passes": 0, "tokens_processed": 0, "tokens_committed": 0, "seconds": 0.0,
           "steps": 0}
    for t in traces:
        for k in out:
            out[k] += t.get(k, 0)
    out["seconds"] = round(out["seconds"], 4)
    out["calls"] = len(traces)
    return out

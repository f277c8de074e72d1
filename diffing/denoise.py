"""One span denoised in place: the engine's candidates, checked, re-masked where broken, ranked.

Every model text remask writes into a file passes through here: a hole or a renamed
reference's span through :meth:`SpanDenoiser.denoise`, a broken statement's repair through
:meth:`SpanDenoiser.validate`. The engine's candidates are kept where they add no syntax
error (tree-sitter's, and Python's where the text parsed), the others re-masked inside
their new errors for a few rounds; a whole-line hole's best lines are also offered at the
other indentations its blocks allow; what is left ranks text that parses first, then text
with fewer faults: reads that nothing binds (or nothing has bound yet), statements that no
path reaches (:func:`.checks.faults`). The :class:`Rewriter`
(:mod:`.rewriter`) turns edits into spans and spans' results into proposals.
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from remask.infill.engine import Engine, Fill
from remask.infill.sampler import SamplerConfig, StepTrace, Trace

from .canvas import LINE_ROUND_STEPS
from .checks import failing_imports, faults, merge_traces, python_ok
from .config import RewriterConfig
from .edits import parse_python
from .indent import COPIED, indent_levels, reindented, starts_blank_line
from .repair import balanced, line_ending
from .syntax import PROSE, Document, new_errors, parse, placeholders

Cancel = Callable[[], bool] | None
OnStep = Callable[[int, StepTrace], None] | None


@dataclass
class SpanResult:
    """The accepted text for one span, or None with the reason it was refused."""

    text: str | None
    reason: str
    trace: dict
    candidates: list[str] = field(default_factory=list)  # every validated model candidate
    scores: dict[str, float] = field(default_factory=dict)  # those the fill already ranked


class SpanDenoiser:
    """Denoises spans of a text with one engine and one :class:`RewriterConfig`."""

    def __init__(self, engine: Engine, config: RewriterConfig) -> None:
        self.engine, self.config = engine, config

    def denoise(self, text: str, start: int, end: int, path: str | None = None, *,
                before: Document | None = None, sampler: SamplerConfig | None = None,
                rounds: int | None = None, cancel: Cancel = None,
                on_step: OnStep = None) -> SpanResult:
        """:meth:`_denoise`, its candidates' line breaks written as the text writes its own.

        The model learnt from files with LF line breaks and writes those; a block filled into
        a file with CRLF ones (Windows') would leave its lines mixed.
        """
        res = self._denoise(text, start, end, path, before=before, sampler=sampler,
                            rounds=rounds, cancel=cancel, on_step=on_step)
        newline = newline_at(text, start)
        if newline == "\n":
            return res

        def own(middle: str) -> str:
            return _BARE_NEWLINE.sub(newline, middle)
        return replace(res, text=None if res.text is None else own(res.text),
                       candidates=[own(c) for c in res.candidates],
                       scores={own(c): sc for c, sc in res.scores.items()})

    def _denoise(self, text: str, start: int, end: int, path: str | None = None, *,
                 before: Document | None = None, sampler: SamplerConfig | None = None,
                 rounds: int | None = None, cancel: Cancel = None,
                 on_step: OnStep = None) -> SpanResult:
        """Denoise text[start:end] in place; accept the first candidate with no new error.

        Candidates with new errors get the tokens inside those errors re-masked and denoised
        again, for ``rounds`` (default ``config.rounds``) rounds; a candidate that still breaks
        the file is dropped. Where Python's parser accepts the text (hole markers read as
        names), a candidate must keep it so: tree-sitter shrugs at a wrongly indented line,
        and 60 of 1,033 single-line HumanEval fills that tree-sitter passed made the file
        unparsable after the span. A candidate that imports what its module does not define
        (``from os import os``, :func:`.checks.failing_imports`) fails as the file is
        imported, and is refused as a syntax error is. Where Python does not parse the text,
        candidates that make it parse rank first; then those with fewer faults
        (``checks.faults``). A one-line span (an inline completion) gets
        ``config.line_rounds`` rounds of at most ``LINE_ROUND_STEPS`` steps, and one that ends
        its line may first be closed mechanically.
        """
        prefix, suffix = text[:start], text[end:]
        marker = self.config.marker

        def probe(t: str) -> str:  # every hole marker a name, so the parsers judge the rest
            return placeholders(t, marker)

        probed = probe(text)
        baseline = before if before is not None else parse(probed, path)
        strict = python_ok(probed, path, None)
        code = _in_code(baseline, start, end)
        # a ``???`` in a program Python parses stands for one piece of it: its fill keeps to
        # the brackets around it (in one that does not, a fill may close what is left open)
        atom = strict and code and text[start:end] == marker
        # and a ``???`` within a statement's line is part of that statement: a fill that adds
        # statements (``??? = load()`` → ``data = f(x)\n        config``) is another program
        rest = re.split(r"[\r\n]", suffix, maxsplit=1)[0].strip()  # old Mac OS's CR too
        before = prefix[max(prefix.rfind("\n"), prefix.rfind("\r")) + 1:].strip()
        inline = atom and bool(before or rest and not rest.startswith("#"))
        statements = _statements(probed) if inline else None
        field = code and prefix.endswith("{") and suffix.startswith("}") and \
            baseline.inside(start, end, _FIELD)  # the hole is an f-string's whole {???}
        cfg = sampler or self.config.sampler
        around = probe(prefix), probe(suffix)  # read once: every candidate is judged in them
        importing = _IMPORT_HEAD.match(prefix, prefix.rfind("\n") + 1) is not None or \
            baseline.inside(start, end, _IMPORTS)

        def bad(middle: str) -> list[tuple[int, int]] | None:
            if cfg.min_length and not middle.strip():
                return [(0, len(middle))]  # blanks are no fill of a hole that wants text
            if _REPLACED in middle and _REPLACED not in text:  # tokens that are no UTF-8
                return [(i, i + 1) for i, c in enumerate(middle) if c == _REPLACED]
            if atom and not balanced(middle):  # ``f(???)`` → ``f(a).g(b)``: another call
                return [(0, len(middle))]
            ranges = self._new_error_ranges(baseline, around[0], middle, around[1], path, code,
                                            field)
            program = around[0] + middle + around[1]
            if ranges is None and strict and not python_ok(program, path, None):
                return [(0, len(middle))]
            if ranges is None and inline and _statements(program) != statements:
                return [(0, len(middle))]
            if ranges is None and (importing or "import" in middle) and failing_imports(
                    program, path, len(prefix), len(prefix) + len(middle)):
                return [(0, len(middle))]  # ``from os import os``: ImportError when it runs
            return ranges

        round_cfg = cfg
        if cfg.single_line:  # a one-line re-mask round repairs a few tokens: a smaller budget
            round_cfg = replace(cfg, max_steps=min(cfg.max_steps, LINE_ROUND_STEPS))
            if rounds is None and self.config.line_rounds is not None:
                rounds = self.config.line_rounds
        closes = cfg.single_line and not suffix.split("\n", 1)[0].strip()
        head = prefix[prefix.rfind("\n") + 1:]  # a span that ends its line may close it

        def mend(middle: str) -> str:
            if field and middle.strip().strip("{}").strip():
                return middle.strip().strip("{}")  # the field's braces again: {name}, {{name
            return middle + line_ending(head + middle) if closes else middle
        fill = self.engine.fill(prefix, suffix, candidates=self.config.candidates, sampler=cfg,
                                cancel=cancel, on_step=on_step)
        res = self.validate(prefix, suffix, fill, bad, cancel, on_step, round_cfg,
                            self.config.rounds if rounds is None else rounds, mend)
        if strict and starts_blank_line(prefix, suffix):
            res = self._reindented(prefix, suffix, res, bad, cfg, fill.texts)
        if len(res.candidates) < 2:
            return res

        def rank(middle: str) -> tuple[bool, int]:
            # Where Python could not parse the text as it was (a hole where a block's header
            # belongs), candidates that make it parse go first, the others stay offered
            # behind them; then those with fewer unbound reads and dead statements (``faults``)
            program = probe(prefix + middle + suffix)
            return not strict and not python_ok(program, path, None), \
                faults(program, path, len(prefix))
        ranked = sorted(res.candidates, key=rank)  # stable: the engine's order within a rank
        return replace(res, text=ranked[0], candidates=ranked)

    def validate(self, prefix: str, suffix: str, fill: Fill,
                 bad: Callable[[str], list[tuple[int, int]] | None], cancel: Cancel,
                 on_step: OnStep, sampler: SamplerConfig | None, rounds: int,
                 mend: Callable[[str], str] | None = None) -> SpanResult:
        """Keep the valid candidates; if there are none, re-mask them until one is.

        A fill holds one candidate per starting length. A valid one already answers the span;
        otherwise each round re-masks every broken candidate at its new errors and denoises
        them as one batch (one by one, rounds cost several fills each). With ``mend``, a
        broken candidate is first tried as ``mend`` rewrites it (closed, where the span ends
        a line and it leaves brackets, a quote or a header's colon open): that costs a parse,
        not a model pass. Mended texts carry no score (the fill scored them as written). A
        valid candidate that ends with a line break the suffix already starts with loses it
        (`_without_blank_line`).
        """
        traces = [fill.trace.as_dict()]

        def check(text: str) -> tuple[str, list[tuple[int, int]] | None]:
            ranges = bad(text)
            mended = mend(text) if mend is not None and ranges is not None else text
            return (mended, None) if mended != text and bad(mended) is None else (text, ranges)

        checked = [check(c) for c in fill.texts]
        good = [c for c, r in checked if r is None]
        # every broken candidate, best first, re-masked at its errors; a round is one batch
        work = [(tokens, r) for tokens, (_, r) in zip(fill.tokens, checked, strict=True)]
        for _ in range(rounds if not good else 0):
            refill = self.engine.refill_each(prefix, suffix, work, sampler=sampler,
                                             cancel=cancel, on_step=on_step)
            traces.append(refill.trace.as_dict())
            checked = [check(c) for c in refill.texts]
            good = [c for c, r in checked if r is None]
            if good:
                break
            work = [(tokens, r) for tokens, (_, r) in zip(refill.tokens, checked, strict=True)]
        if not good:
            return SpanResult(None, "every candidate broke the file", merge_traces(traces))
        known = dict(zip(fill.texts, fill.scores, strict=False))  # no scores: unranked
        tidy = {c: _without_blank_line(c, suffix, bad) for c in good}
        good = list(dict.fromkeys(tidy[c] for c in good))
        return SpanResult(good[0], "ok", merge_traces(traces), good,
                          {tidy[c]: known[c] for c in reversed(tidy) if c in known})

    def _reindented(self, prefix: str, suffix: str, res: SpanResult,
                    bad: Callable[[str], list[tuple[int, int]] | None], cfg: SamplerConfig,
                    texts: list[str]) -> SpanResult:
        """``res`` with its best one-line candidates also at the other indentations allowed.

        Only for a hole that is a whole line (:mod:`.indent` says why). The fill's best
        ``texts`` that validation refused are copied too: ``return True`` written at column 0
        below a function parses but does not compile, and belongs one level in. A copy that keeps
        the text parsing is scored as the fill scored its original, agreement bonus and all:
        the original's score plus how much more (or less) the model believes the copy; an
        original the fill did not score (a lone one, a closed one) is scored with it. That
        scoring costs passes over the candidates; the trace counts them.
        """
        levels = indent_levels(prefix, suffix)
        copies: dict[str, str] = {}  # copy -> the candidate it re-indents
        refused = [t for t in dict.fromkeys(texts) if t not in res.candidates]
        for c in [*res.candidates[:COPIED], *refused[:COPIED]]:
            for v in reindented(c, levels):
                if v not in copies and v not in res.candidates and bad(v) is None:
                    copies[v] = c
        if not copies:
            return res
        texts = list(dict.fromkeys([*copies.values(), *copies]))
        trace = Trace()
        raw = dict(zip(texts, self.engine.score(prefix, suffix, texts, cfg, trace), strict=True))
        scores = {c: raw[c] for c in copies.values()} | res.scores
        scores |= {v: scores[c] + raw[v] - raw[c] for v, c in copies.items()}
        keyed, last = [], math.inf  # a candidate still unscored keeps its place
        for c in [*res.candidates, *copies]:
            last = scores.get(c, last)
            keyed.append((cfg.min_length > 0 and not c.strip(), -last, c))
        ranked = [c for *_, c in sorted(keyed, key=lambda k: k[:2])]
        cost = {k: res.trace[k] + v for k, v in trace.as_dict().items()
                if k in ("forward_passes", "tokens_processed")}  # passes, not a sampler call
        return replace(res, text=ranked[0], reason="ok", candidates=ranked, scores=scores,
                       trace=res.trace | cost)

    def _new_error_ranges(self, baseline: Document, prefix: str, middle: str, suffix: str,
                          path: str | None, code: bool, field: bool
                          ) -> list[tuple[int, int]] | None:
        """Ranges of ``middle`` to re-mask, or None when the result adds no syntax error.

        A ``code`` span must stay code, not run into a string's text or a comment beside it
        (``a)  # done`` in ``f(???)`` comments out the call's ``)``), and a
        ``field`` (an f-string's ``{???}``) must stay one field. The model fills the hole in
        ``f"hello {???}"`` with ``{name}``, ``{{name`` or ``a}:{b``, which parse, and make
        the braces text (``{{name}}``), print one (``{{{name}``) or write text of its own.
        """
        doc = parse(prefix + middle + suffix, path)
        fresh = new_errors(baseline, doc)
        a, b = len(prefix), len(prefix) + len(middle)
        if not fresh:
            strays = code and a < b and (doc.straddles(a, b, PROSE)
                                         or field and not doc.inside(a, b, _FIELD))
            return [(0, len(middle))] if strays else None
        ranges = [(max(e.start, a) - a, min(e.end, b) - a) for e in fresh
                  if e.start <= b and e.end >= a]
        return [r for r in ranges if r[0] <= r[1]] or [(0, len(middle))]


_FIELD = frozenset({"interpolation"})
_IMPORTS = frozenset({"import_statement", "import_from_statement", "future_import_statement"})
_IMPORT_HEAD = re.compile(r"[ \t]*(?:from[ \t]+\S+[ \t]+)?import\b")  # typed up to a hole
_BARE_NEWLINE = re.compile(r"(?<!\r)\n")
# What decoding makes of byte tokens that end inside a character (half an emoji): never text
# a user wrote, so a fill holding it is re-masked there, unless the file already holds one.
_REPLACED = "\ufffd"


def _statements(text: str) -> int | None:
    """How many statements Python reads in ``text`` (None where it cannot parse it)."""
    try:
        return sum(isinstance(n, ast.stmt) for n in ast.walk(parse_python(text)))
    except (SyntaxError, ValueError, RecursionError):
        return None


def _in_code(doc: Document, start: int, end: int) -> bool:
    """Whether doc.text[start:end] is code to fill with code.

    Not where it, or the character before it, lies in a comment or a string's text (a line
    being typed there continues it), nor on a line the parse gave up on (``print("hello``
    typed so far: what the fill writes may well close a string).
    """
    if doc.inside(start, end, PROSE) or start and doc.inside(start - 1, start, PROSE):
        return False
    first = doc.text.rfind("\n", 0, start) + 1
    last = doc.text.find("\n", end)
    last = len(doc.text) if last < 0 else last
    return not any(e.start <= last and e.end >= first for e in doc.errors())


def newline_at(text: str, at: int) -> str:
    """The line break ``text`` writes near ``at``: the one before it, else the first after.

    A text with carriage returns and no line feed at all ends its lines as old Mac OS did.
    """
    before = text.rfind("\n", 0, at)
    where = before if before >= 0 else text.find("\n", at)
    if where < 0:
        return "\r" if "\r" in text else "\n"
    return "\r\n" if where > 0 and text[where - 1] == "\r" else "\n"


def _without_blank_line(middle: str, suffix: str,
                        bad: Callable[[str], list[tuple[int, int]] | None]) -> str:
    """``middle`` without the line break it ends with when the suffix starts a line anyway.

    A hole on a line of its own (``    ???``) is followed by the line's own break; a model
    that writes whole lines ends its middle with one more, which would leave a blank line.
    """
    if not suffix.startswith(("\n", "\r\n")):
        return middle
    trimmed = middle.rstrip(" \t\r\n")
    if trimmed == middle or "\n" not in middle[len(trimmed):] or not trimmed.strip():
        return middle
    return trimmed if bad(trimmed) is None else middle

"""Per-document state (versions, settled text, debounce) and the model thread work runs on.

Denoising never runs on the event loop (a burst of ``didChange`` must still be read while the
model works) and never on two threads at once (one model, two cores). Work is cancelled as soon
as it is stale: the sampler's cancel check reads the document's latest version, so a newer
``didChange`` stops older work between two denoising steps, and ``$/cancelRequest`` sets a flag
the same check reads. Results are compared with the latest version once more at the end, so an
answer computed for an older version is dropped, never sent.
"""

from __future__ import annotations

import asyncio
import threading
from collections import Counter, OrderedDict
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from remask.diffing.proposal import Proposal, Span
from remask.infill.sampler import Cancelled

if TYPE_CHECKING:
    from .elsewhere import Other

T = TypeVar("T")
CancelCheck = Callable[[], bool]


@dataclass
class Analysis:
    """What the server worked out for one version: spans it can rewrite, proposals for them."""

    version: int
    text: str
    cursor: int | None  # where the user last typed
    spans: list[Span]
    proposals: list[Proposal]
    elsewhere: list[Other] = field(default_factory=list)  # other modules' follow-ups
    moved: list[Other] = field(default_factory=list)  # those of defs moved here, this one's too

    def at_cursor(self, start: int, end: int) -> bool:
        """Whether the range holds where the user last typed."""
        return self.cursor is not None and start <= self.cursor <= end

    def proposals_for(self, start: int, end: int) -> list[Proposal]:
        """Return the proposals to offer for a range.

        Those whose spans touch it, and every one where the user just typed (renaming a def
        offers "Rename N references" right at the def).
        """
        here = self.at_cursor(start, end)
        return [p for p in self.proposals
                if here or any(s.start <= end and start <= s.end for s in p.spans)]


def is_python(language_id: str, path: str | None) -> bool:
    """Whether remask serves a document: a Python languageId, else a ``.py``/``.pyi`` path.

    Clients name Python their own way (``python``, Eglot's ``python-ts``, ``python3``), so any
    languageId naming it counts. Others (``""``, ``plaintext``, ``py`` from bare clients) say
    too little, and there the path decides: a file on disk ending in ``.py`` is Python. So a
    ``javascript`` document gets no Python hints unless it is a ``.py`` file.
    """
    if "python" in language_id.lower():
        return True
    return path is not None and path.lower().endswith((".py", ".pyi"))


class DocState:
    """One open document: its latest version, the settled text, the latest analysis."""

    def __init__(self, uri: str, path: str | None, text: str, version: int) -> None:
        self.uri, self.path = uri, path
        self.version = version  # latest version received; -1 once closed
        self.text = text  # the latest text, which a whole-document change is compared with
        self.incremental = False  # the client has sent a ranged change: it syncs by ranges
        # "before" for the next edit; None after an unusable buffer (binary, huge)
        self.settled: str | None = text
        self.cursor: int | None = None  # str offset after the latest change
        # versions inline requests arrived at, by request id, oldest first
        self.inline_arrivals: OrderedDict[object, int] = OrderedDict()
        self.analysis: Analysis | None = None
        self.timer: asyncio.TimerHandle | None = None
        self.task: asyncio.Future[None] | None = None
        self.asking = 0  # inline completions waiting for or using the model
        self._quiet = asyncio.Event()  # set while no inline completion is asked
        self._quiet.set()
        self.refused = False  # the buffer is binary, huge or undecodable (the user was told)
        self.incoming: str | None = None  # the text another document's follow-up gives it
        self.gone: dict[str, str] = {}  # module-level defs its edits took out, and their code
        self.said: set[str] = set()  # warnings shown for its edits (a move's import cycles)
        # the other modules' proposals for this document's edit, and what they were made from
        self.followed: tuple[tuple, dict[str, Proposal | None]] | None = None

    def stale(self, version: int) -> CancelCheck:
        """Return a cancel check that turns true once ``version`` is no longer the latest."""
        return lambda: self.version != version

    def background(self, version: int) -> CancelCheck:
        """Return a cancel check for work no request waits on.

        It also turns true while a fill is asked for, so the model serves the user first.
        """
        return lambda: self.version != version or self.asking > 0

    @contextmanager
    def ask(self) -> Iterator[None]:
        """Mark an interactive request (an inline completion) as waiting for the model."""
        self.asking += 1
        self._quiet.clear()
        try:
            yield
        finally:
            self.asking -= 1
            if not self.asking:
                self._quiet.set()

    async def quiet(self) -> None:
        """Wait until no inline completion is asked for: background work goes after them."""
        await self._quiet.wait()

    def settle(self, text: str) -> None:
        """Take ``text`` as the base the next edit is diffed against."""
        self.settled = text


class Stats:
    """Counters the bench and tests read through ``remask/stats`` (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts: Counter[str] = Counter()

    def add(self, key: str, n: int = 1) -> None:
        with self._lock:
            self._counts[key] += n

    def snapshot(self) -> dict[str, int]:
        with self._lock:
            return dict(self._counts)


class Documents:
    """The open documents and the single model thread their work runs on."""

    def __init__(self) -> None:
        self._docs: dict[str, DocState] = {}
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="remask-model")
        self.stats = Stats()

    def get(self, uri: str) -> DocState | None:
        return self._docs.get(uri)

    def all(self) -> list[DocState]:
        return list(self._docs.values())

    def open(self, uri: str, path: str | None, text: str, version: int) -> DocState:
        self.close(uri)
        self._docs[uri] = state = DocState(uri, path, text, version)
        return state

    def close(self, uri: str) -> None:
        state = self._docs.pop(uri, None)
        if state is not None:
            state.version = -1  # stops its work at the next step
            if state.timer is not None:
                state.timer.cancel()

    def debounce(self, state: DocState, delay: float,
                 analyze: Callable[[DocState], Awaitable[None]]) -> None:
        """(Re)start the quiet-time timer; when it fires, analyze the then-latest version."""
        if state.timer is not None:
            state.timer.cancel()
        state.timer = asyncio.get_running_loop().call_later(delay, self._start, state, analyze)

    def _start(self, state: DocState, analyze: Callable[[DocState], Awaitable[None]]) -> None:
        state.timer = None
        state.task = asyncio.ensure_future(analyze(state))

    async def current(self, state: DocState,
                      analyze: Callable[[DocState], Awaitable[None]]) -> Analysis | None:
        """Return the latest version's analysis, starting it now if none is under way.

        A request cancelled while waiting leaves the shared analysis running (diagnostics need
        it too); None when the document moved on meanwhile.
        """
        a = state.analysis
        idle = state.task is None or state.task.done()
        if state.timer is not None or idle and (a is None or a.version != state.version):
            if state.timer is not None:
                state.timer.cancel()
            self._start(state, analyze)  # also redoes one that yielded to a fill
        if state.task is not None and not state.task.done():
            await asyncio.shield(state.task)
        a = state.analysis
        return a if a is not None and a.version == state.version else None

    async def prepare(self, work: Callable[[], object], stale: CancelCheck) -> None:
        """Run short preparatory ``work`` on the model thread unless it is stale by then.

        It only fills caches the next job reads (a context prefill, tens of ms), so it takes
        no cancel check and nobody needs its result.
        """
        def job() -> None:
            if not stale():
                work()

        await asyncio.get_running_loop().run_in_executor(self.executor, job)

    async def run(self, work: Callable[[CancelCheck], T], stale: CancelCheck) -> T | None:
        """Run ``work(cancel)`` on the model thread; None when it was cancelled as stale.

        If the awaiting request is itself cancelled (``$/cancelRequest``), the flag the cancel
        check reads is set so the thread stops at its next step, and CancelledError propagates;
        work still queued behind another job (a context prefill) never starts, and counts as
        cancelled all the same.
        """
        stop = threading.Event()

        def cancel() -> bool:
            return stop.is_set() or stale()

        def job() -> T | None:
            try:
                if cancel():
                    raise Cancelled
                return work(cancel)
            except Cancelled:
                self.stats.add("cancelled")
                return None

        future = self.executor.submit(job)
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            stop.set()
            self.stats.add("requests_cancelled")
            if future.cancelled():  # still queued, so dropped: the thread never sees it
                self.stats.add("cancelled")
            raise

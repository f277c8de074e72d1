"""The language server's single model thread: a cancelled request's work never runs late."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from remask.infill.sampler import Cancelled
from remask.lsp.documents import Documents


def test_work_cancelled_while_queued_never_runs_and_counts_as_cancelled():
    """A fill cancelled while a context prefill still holds the thread: dropped unrun, and
    counted like one the thread stopped (a load-dependent race the cancel test once hit)."""
    docs = Documents()
    busy, release, ran = threading.Event(), threading.Event(), []

    def block() -> None:
        busy.set()
        release.wait(10)

    async def scenario() -> None:
        docs.executor.submit(block)
        assert await asyncio.to_thread(busy.wait, 10)
        task = asyncio.ensure_future(docs.run(lambda cancel: ran.append(1), lambda: False))
        await asyncio.sleep(0.05)  # the work is queued behind the blocker
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        release.set()
        await asyncio.to_thread(docs.executor.submit(lambda: None).result, 10)

    asyncio.run(scenario())
    assert ran == []
    assert docs.stats.snapshot() == {"requests_cancelled": 1, "cancelled": 1}
    docs.executor.shutdown()


def test_work_cancelled_while_running_stops_at_its_next_check():
    docs = Documents()
    started, steps = threading.Event(), []

    def work(cancel) -> None:
        started.set()
        for _ in range(500):
            if cancel():
                raise Cancelled
            steps.append(1)
            time.sleep(0.01)

    async def scenario() -> None:
        task = asyncio.ensure_future(docs.run(work, lambda: False))
        assert await asyncio.to_thread(started.wait, 10)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await asyncio.to_thread(docs.executor.submit(lambda: None).result, 10)

    asyncio.run(scenario())
    assert 0 < len(steps) < 500
    assert docs.stats.snapshot() == {"requests_cancelled": 1, "cancelled": 1}
    docs.executor.shutdown()

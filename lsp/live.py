"""Live feedback while the model works: ``$/progress`` and ``remask/denoiseStep``.

The sampler calls ``on_step`` on the model thread; every message is handed to the event loop
(``call_soon_threadsafe``) because the transport is not thread-safe. Work-done progress starts
only once a job has run longer than ``after`` seconds, so the quick fills that make up most of
typing cost the client nothing; when the client gave no token, one is created first with
``window/workDoneProgress/create`` (and only if the client said it supports that).

``remask/denoiseStep`` params, for clients that show denoising live: ``uri`` and ``version``
(the document version being worked on), ``kind`` (``"fill"`` for inline completion,
``"propose"`` for the proposals behind code actions), ``step`` (1, 2, ...), ``text`` (the span
as it stands: committed tokens, this step's guesses for positions still masked, ``░`` where
there is no guess), ``masked`` (its positions still open), ``rows`` (the candidates denoised
side by side in that step) and ``drawn`` (how many of them are drawn at a temperature rather
than the model's argmax: an inline completion typed, not asked for, draws none).
"""

from __future__ import annotations

import asyncio
import time
import uuid

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from remask.infill.engine import Engine
from remask.infill.sampler import StepTrace

from . import convert

DENOISE_STEP = "remask/denoiseStep"
HIDDEN = "\u2591"  # shown for a position still masked with no provisional token
# Steps sent at most this often (the latest wins, the last always goes): waking the event loop
# at every step made fills ~30% slower on two busy cores, and ~25 updates a second is live.
INTERVAL = 0.04


class Live:
    """Reports one job (one version of one document) to the client."""

    def __init__(self, ls: LanguageServer, engine: Engine | None, uri: str, version: int,
                 kind: str, token: types.ProgressToken | None = None,
                 after: float = 0.2) -> None:
        self.ls, self.engine, self.uri, self.version, self.kind = ls, engine, uri, version, kind
        self.loop = asyncio.get_running_loop()
        self.token, self.after, self.t0 = token, after, time.perf_counter()
        self.state = "idle"  # idle → creating → begun → ended
        self.sent_at, self.held = 0.0, None  # last send; a step held back by the interval

    def on_step(self, n: int, step: StepTrace) -> None:
        """Sampler callback (model thread): send the provisional span, maybe progress."""
        now = time.perf_counter()
        if now - self.sent_at < INTERVAL:
            self.held = (n, step)
            return
        self.sent_at, self.held = now, None
        self._send(n, step, now - self.t0 > self.after)

    def finish(self) -> None:
        """Send the step held back, if any, and end the progress (safe from any thread)."""
        if self.held is not None:
            self._send(*self.held, late=False)
        self.loop.call_soon_threadsafe(self._end)

    def _send(self, n: int, step: StepTrace, late: bool) -> None:
        text, masked = self._provisional(step)
        params = convert.denoise_step(self.uri, self.version, self.kind, n, text, masked,
                                      step.rows, step.drawn)
        self.loop.call_soon_threadsafe(self._emit, params, late)

    def _provisional(self, step: StepTrace) -> tuple[str, int]:
        return ("", 0) if self.engine is None else self.engine.provisional(step, HIDDEN)

    def _emit(self, params: dict, late: bool) -> None:
        self.ls.protocol.notify(DENOISE_STEP, params)
        if late and self.state == "idle":
            self._begin()
        elif self.state == "begun":
            self.ls.work_done_progress.report(self.token, types.WorkDoneProgressReport(
                message=f"step {params['step']}, {params['masked']} masked"))

    def _begin(self) -> None:
        if self.token is not None:
            self._send_begin()
        elif self.ls.client_capabilities.window and self.ls.client_capabilities.window \
                .work_done_progress:
            self.state, self.token = "creating", f"remask-{uuid.uuid4().hex[:12]}"
            asyncio.ensure_future(self._create())

    async def _create(self) -> None:
        try:
            await self.ls.work_done_progress.create_async(self.token)
        except Exception:  # a client that refuses the token just gets no progress
            self.state = "ended"
            return
        ended = self.state == "ended"
        self._send_begin()
        if ended:
            self._end()

    def _send_begin(self) -> None:
        self.state = "begun"
        self.ls.work_done_progress.begin(self.token, types.WorkDoneProgressBegin(
            title=f"remask: denoising ({self.kind})", cancellable=False))

    def _end(self) -> None:
        if self.state == "begun":
            self.ls.work_done_progress.end(self.token, types.WorkDoneProgressEnd())
        self.state = "ended"

"""What the model is doing, on the terminal, while a command waits for it.

A fill takes seconds on a CPU; a silent terminal for that long looks hung. So while ``fill``,
``repair`` and ``propagate`` work, stderr shows a one-line spinner: the model loading, then
each denoising step with the span as it stands (``░`` where nothing is guessed yet). It draws
only on a terminal and leaves nothing behind, so pipes, ``--json`` and the tests see exactly
what they did before.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape

if TYPE_CHECKING:
    from remask.infill.engine import Engine
    from remask.infill.sampler import StepTrace


class ModelStatus:
    """A spinner line with the current phase; a no-op off a terminal."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.engine: Engine | None = None
        self._status = None
        self._calls = 0  # sampler calls seen: each span, and each re-mask round, is one

    def on_step(self, n: int, step: StepTrace) -> None:
        """Sampler callback: show the step and the span as it stands."""
        if self._status is None or self.engine is None:
            return
        self._calls += n == 1
        text, masked = self.engine.provisional(step)
        shown = text.replace("\n", "⏎")[:60]
        self._status.update(f"denoising span {self._calls} · step {n} · {masked} masked · "
                            f"[bold]{escape(shown)}[/]")


@contextmanager
def model_status(console: Console | None = None) -> Iterator[ModelStatus]:
    """Show a :class:`ModelStatus` on stderr for the duration of the block."""
    console = console or Console(stderr=True)
    status = ModelStatus(console)
    if not console.is_terminal:
        yield status
        return
    with console.status("loading the model", spinner="dots") as live:
        status._status = live
        yield status

"""The three things the user can ask for, each one Rewriter call normalised to a list.

Kept apart from the app so the worker stays a thin adapter and every front end's notion of
"fill", "repair" and "propagate" is visibly the same library call.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from remask.diffing.proposal import Proposal
from remask.diffing.rewriter import Rewriter
from remask.infill.sampler import StepTrace

LABELS = {"fill": "Fill at cursor", "repair": "Repair file", "propagate": "Propagate last edit"}


@dataclass(frozen=True)
class Request:
    """What a command needs, captured on the UI thread before the worker starts."""

    command: str  # a key of LABELS
    text: str  # the buffer now
    before: str  # the buffer before the last edit (for propagate)
    cursor: int  # str index of the cursor in ``text``
    path: str
    idle: bool = False  # started by the idle timer rather than by the user


def run_request(rewriter: Rewriter, req: Request, cancel: Callable[[], bool],
                on_step: Callable[[int, StepTrace], None]) -> list[Proposal]:
    """Run one command; Cancelled propagates when ``cancel`` turns true between steps."""
    if req.command == "fill":
        found = rewriter.fill_at(req.text, req.cursor, req.path, cancel=cancel, on_step=on_step)
    elif req.command == "repair":
        found = rewriter.repair(req.text, req.path, cancel=cancel, on_step=on_step)
    elif req.command == "propagate":
        if req.before == req.text:
            return []
        return rewriter.propose(req.before, req.text, req.path, req.cursor, cancel=cancel,
                                on_step=on_step)
    else:
        raise ValueError(f"unknown command {req.command!r}")
    return [found] if found is not None else []

"""``RemaskApp``: the editor, the proposal panel, the live denoising view and the status bar.

Inference runs in one exclusive thread worker: a newer edit or command cancels the older one
(the Rewriter checks ``cancel`` between sampler steps), and a result computed for a buffer that
has changed since is dropped rather than shown.
"""

from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import Footer, TextArea
from textual.widgets.text_area import Document
from textual.worker import get_current_worker

from remask.diffing.files import ChangedOnDisk, atomic_write
from remask.diffing.proposal import Proposal
from remask.diffing.rewriter import Rewriter
from remask.infill.sampler import Cancelled, StepTrace

from .commands import LABELS, Request, run_request
from .confirm import QuitScreen
from .denoise_view import DenoiseView
from .proposal_panel import ProposalPanel
from .status import StatusBar


@dataclass(frozen=True)
class TuiConfig:
    auto_delay: float | None = 1.0  # propagate after this many idle seconds; None: only on demand


def editable(text: str) -> bool:
    """Whether the editor keeps ``text`` byte for byte.

    Textual's document normalises mixed line endings and splits lines on form feeds; opening
    such a file would rewrite it on the first save even if the user changed nothing.
    """
    return Document(text).text == text


OWN_ACTIONS = {"save", "run", "accept", "reject", "next_candidate", "quit"}


def indent_type(text: str) -> Literal["tabs", "spaces"]:
    """How the file indents, read from its first indented line.

    The Tab key writes that: four spaces in a file indented with tabs made it a TabError.
    """
    first = re.search(r"^[ \t]+(?=\S)", text, re.MULTILINE)
    return "tabs" if first is not None and first.group().startswith("\t") else "spaces"


class RemaskApp(App[None]):
    CSS_PATH = "app.tcss"
    TITLE = "remask"
    BINDINGS = [
        Binding("ctrl+s", "save", "Save"),
        Binding("ctrl+f", "run('fill')", "Fill at cursor"),
        Binding("ctrl+r", "run('repair')", "Repair"),
        Binding("ctrl+g", "run('propagate')", "Propagate edit"),
        Binding("ctrl+o", "accept", "Accept"),
        Binding("ctrl+n", "next_candidate", "Next candidate"),
        Binding("escape", "reject", "Reject", priority=True),
        Binding("ctrl+q", "quit", "Quit", priority=True),
    ]

    def __init__(self, path: str | Path, text: str, rewriter: Rewriter,
                 config: TuiConfig | None = None, new: bool = False) -> None:
        """``new``: ``path`` does not exist yet; the first save makes it (``text`` is "")."""
        super().__init__()
        self.path, self.rewriter, self.config = Path(path), rewriter, config or TuiConfig()
        self._saved = self._before = self._initial = text
        self._overwrite = False  # the user saved again after being told the file changed
        self._new = new
        self._lock = threading.Lock()  # one forward pass at a time: the model is shared
        self._idle: Timer | None = None

    def compose(self) -> ComposeResult:
        engine = self.rewriter.engine
        with Horizontal():
            editor = TextArea.code_editor(self._initial, language="python", id="editor")
            editor.indent_type = indent_type(self._initial)
            yield editor
            with Vertical(id="side"):
                yield ProposalPanel(id="proposal")
                yield DenoiseView(engine.decode_tokens, engine.tokenizer.special.mask,
                                  id="denoise")
        kind = "diffusion" if engine.is_diffusion else "AR"
        yield StatusBar(str(self.path) + (" [new]" if self._new else ""),
                        f"{engine.name} ({kind})", id="status")
        yield Footer()

    @property
    def editor(self) -> TextArea:
        return self.query_one("#editor", TextArea)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Priority bindings reach the app even under a dialog; there the dialog's keys win.
        if isinstance(self.screen, ModalScreen) and action in OWN_ACTIONS:
            return False
        if action in ("accept", "reject", "next_candidate"):
            return self.query_one(ProposalPanel).candidate is not None
        return True

    def on_text_area_changed(self) -> None:
        """Cancel the running request and drop the shown proposal: both are for older text."""
        status = self.query_one(StatusBar)
        if any(not w.is_finished for w in self.workers.cancel_group(self, "rewrite")):
            status.activity = "cancelled: the buffer changed"
        if self.query_one(ProposalPanel).candidate is not None:
            self.offer(None, [])
        status.modified = self.editor.text != self._saved
        if self._idle is not None:
            self._idle.stop()
        if self.config.auto_delay is not None and self.editor.text != self._before:
            self._idle = self.set_timer(self.config.auto_delay,
                                        lambda: self.action_run("propagate", idle=True))

    def action_run(self, command: str, idle: bool = False) -> None:
        if self._idle is not None:
            self._idle.stop()  # an explicit command replaces the pending idle propagate
        doc, editor = self.editor.document, self.editor
        req = Request(command, editor.text, self._before,
                      doc.get_index_from_location(editor.cursor_location), str(self.path), idle)
        self.query_one(StatusBar).activity = f"{LABELS[command]}…"
        self.query_one(DenoiseView).begin(LABELS[command])
        self._rewrite(req)

    @work(thread=True, exclusive=True, group="rewrite")
    def _rewrite(self, req: Request) -> None:
        worker, view = get_current_worker(), self.query_one(DenoiseView)
        steps = 0

        def on_step(i: int, st: StepTrace) -> None:
            nonlocal steps
            if worker.is_cancelled:
                raise Cancelled  # don't wait on a UI that may be tearing down
            steps += 1
            self.call_from_thread(view.show_step, i, st)

        t0 = time.perf_counter()
        try:
            with self._lock:
                found = run_request(self.rewriter, req, lambda: worker.is_cancelled, on_step)
        except Cancelled:
            return
        except Exception as e:  # a bug in inference must not take the unsaved buffer with it
            self.call_from_thread(self._failed, req, e)
            return
        if not worker.is_cancelled:
            self.call_from_thread(self._finished, req, found, time.perf_counter() - t0, steps)

    def _finished(self, req: Request, found: list[Proposal], seconds: float, steps: int) -> None:
        if self.editor.text != req.text:
            return  # computed for an older buffer
        status = self.query_one(StatusBar)
        status.latency = seconds
        status.passes = sum(p.trace.get("forward_passes", 0) for p in found) or steps or None
        if found:
            note = f"{found[0].title}: ctrl+o accept · esc reject"
        else:
            note = f"{LABELS[req.command]}: no proposal"
            if not req.idle:
                # The user asked and nothing follows: start the next "last edit" here. An idle
                # run may have caught the edit half-typed, so it keeps the older start.
                self._before = req.text
        self.offer(req.text, found)
        if self.query_one(ProposalPanel).count > 1:
            note += " · ctrl+n next candidate"
        status.activity = note
        self.query_one(DenoiseView).finish(note)

    def _failed(self, req: Request, error: Exception) -> None:
        note = f"{LABELS[req.command]} failed: {type(error).__name__}: {error}"
        self.query_one(StatusBar).activity = note
        self.query_one(DenoiseView).finish(note)

    def offer(self, base: str | None, found: list[Proposal]) -> None:
        """Show ``found``, computed for the buffer text ``base``; None or [] clears the panel."""
        panel = self.query_one(ProposalPanel)
        if base is not None and found:
            panel.show(base, found)
        else:
            panel.clear()
        self.refresh_bindings()

    def action_accept(self) -> None:
        cand = self.query_one(ProposalPanel).candidate
        if cand is None:
            return
        if self.editor.text != cand.base:
            self.notify("The buffer changed since this proposal; dropped it.", severity="warning")
        else:
            doc = self.editor.document
            for e in sorted(cand.edits, key=lambda e: (e.start, e.end), reverse=True):
                self.editor.replace(e.new_text, doc.get_location_from_index(e.start),
                                    doc.get_location_from_index(e.end))
            self.query_one(StatusBar).activity = f"accepted: {cand.proposal.title}"
        self._before = self.editor.text
        self.offer(None, [])

    def action_reject(self) -> None:
        self._before = self.editor.text
        self.offer(None, [])
        self.query_one(StatusBar).activity = "rejected"

    def action_next_candidate(self) -> None:
        self.query_one(ProposalPanel).next_candidate()

    def action_save(self) -> bool:
        """Save the buffer; a file changed on disk since it was read is kept unless asked twice.

        Another program (an editor, ``git checkout``) may have written the file while it was
        open here: the first save says so and leaves it, a second one overwrites it, as an
        editor asks before clobbering a file changed behind its back.
        """
        expected = None if self._overwrite or self._new else self._saved
        try:
            atomic_write(self.path, self.editor.text, expected=expected,
                         new=self._new and not self._overwrite)
        except ChangedOnDisk:
            self._overwrite = True
            self.notify(f"not saved: {self.path} changed on disk since it was read; "
                        "save again to overwrite it", severity="warning")
            return False
        except OSError as e:
            self.notify(f"not saved: {e.strerror or e}", severity="error")
            return False
        self._saved, self._overwrite, self._new = self.editor.text, False, False
        self.query_one(StatusBar).modified = False
        self.notify(f"saved {self.path}")
        return True

    async def action_quit(self) -> None:
        if self.editor.text == self._saved:
            self.exit()
            return

        def answered(choice: str | None) -> None:
            if choice == "discard" or choice == "save" and self.action_save():
                self.exit()

        self.push_screen(QuitScreen(str(self.path)), answered)

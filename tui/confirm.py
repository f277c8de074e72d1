"""The question asked before quitting with unsaved changes."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid
from textual.screen import ModalScreen
from textual.widgets import Button, Label


class QuitScreen(ModalScreen[str]):
    """Dismisses with "save", "discard" or "cancel"."""

    BINDINGS = [Binding("escape", "dismiss('cancel')", "Cancel")]

    def __init__(self, path: str) -> None:
        super().__init__()
        self._path = path

    def compose(self) -> ComposeResult:
        with Grid(id="quit-dialog"):
            yield Label(f"{self._path} has unsaved changes. Quit anyway?", id="quit-question")
            yield Button("Save and quit", variant="primary", id="save")
            yield Button("Quit without saving", variant="error", id="discard")
            yield Button("Cancel", id="cancel")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id)

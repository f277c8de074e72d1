"""The status bar: which file and model, what remask is doing, and what the last request cost."""

from __future__ import annotations

from textual.reactive import reactive
from textual.widget import Widget


class StatusBar(Widget):
    """One line; every field is reactive so the app just assigns and the bar re-renders."""

    activity: reactive[str] = reactive("ready")
    modified: reactive[bool] = reactive(False)
    latency: reactive[float | None] = reactive(None)
    passes: reactive[int | None] = reactive(None)  # None: the run didn't report them

    def __init__(self, path: str, model: str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._path, self._model = path, model

    def render(self) -> str:
        cost = "—" if self.latency is None else f"{self.latency:.2f}s"
        if self.latency is not None and self.passes is not None:
            cost += f", {self.passes} fwd passes"
        dirty = " ●" if self.modified else ""
        return f"{self._path}{dirty} │ model {self._model} │ last {cost} │ {self.activity}"

"""The live denoising view: one span's canvas as the sampler commits it, step by step.

This is what makes a diffusion edit legible: instead of text appearing left to right, the user
sees every position of the span at once — still masked, holding a provisional guess, or
committed — and how many tokens each forward pass committed.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual.widget import Widget

from remask.infill.sampler import StepTrace

Decode = Callable[[list[int]], list[str]]  # token ids -> each id's text

MASK_GLYPH = "░"
HISTORY = 24  # committed-per-step counts shown; older ones are summarised by the step counter


class DenoiseView(Widget):
    """Renders the sampler's per-step trace for the span being denoised.

    Styles come from component classes so the .tcss decides how masked, provisional,
    committed and just-committed tokens look.
    """

    COMPONENT_CLASSES = {
        "denoise--title",
        "denoise--masked",
        "denoise--provisional",
        "denoise--committed",
        "denoise--fresh",
    }

    def __init__(self, decode: Decode, mask_id: int, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.border_title = "live denoising"
        self._decode, self._mask = decode, mask_id
        self._title, self._note = "", "idle"
        self._step: StepTrace | None = None
        self._step_no = 0
        self._fresh: set[int] = set()
        self._history: list[int] = []

    @property
    def step(self) -> int:
        """The sampler step on screen (0 before the first one of a request)."""
        return self._step_no

    def begin(self, title: str) -> None:
        """Start showing a new request; the canvas appears with the first step."""
        self._title, self._note = title, "waiting for the model…"
        self._step, self._step_no, self._history = None, 0, []
        self.refresh()

    def show_step(self, step_no: int, step: StepTrace) -> None:
        """Show the canvas after sampler step ``step_no`` (1-based; 1 starts a new span)."""
        if step_no == 1:
            self._history, prev = [], None
        else:
            prev = self._step.canvas if self._step is not None else None
        # A position is fresh when it was masked a step ago; expand/delete shift positions, so
        # only a same-length canvas can be compared position by position.
        self._fresh = set()
        if prev is not None and len(prev) == len(step.canvas):
            self._fresh = {j for j, (a, b) in enumerate(zip(prev, step.canvas, strict=True))
                           if a == self._mask and b != self._mask}
        self._step, self._step_no = step, step_no
        self._history.append(step.committed)
        self._note = ""
        self.refresh()

    def finish(self, note: str) -> None:
        """Keep the last canvas on screen and say how the request ended."""
        self._note = note
        self.refresh()

    def render(self) -> Text:
        style = self.get_component_rich_style
        out = Text()
        out.append(self._title or "denoising", style=style("denoise--title"))
        st = self._step
        if st is not None:
            open_ = st.canvas.count(self._mask)
            out.append(f"\nstep {self._step_no} · +{st.committed} committed · {open_} masked")
            if st.remasked:
                out.append(f" · {st.remasked} re-masked")
            counts = " ".join(map(str, self._history[-HISTORY:]))
            out.append(f"\ncommitted per step: {counts}")
            if st.rows > 1:  # the canvas below is one of them; the engine ranks them all
                out.append(f"\n{st.rows} candidates side by side, {st.drawn} of them drawn")
            out.append("\n\n")
            out.append_text(self._canvas_text(st))
        if self._note:
            out.append(f"\n{self._note}")
        return out

    def _canvas_text(self, st: StepTrace) -> Text:
        style = self.get_component_rich_style
        # The proposal holds the argmax for the canvas *before* this step's commits; when
        # expand/delete changed the length it no longer lines up, so no guess is shown.
        guesses = self._decode(st.proposal) if len(st.proposal) == len(st.canvas) else None
        words = self._decode(st.canvas)
        text = Text()
        for j, tok in enumerate(st.canvas):
            if tok != self._mask:
                kind = "denoise--fresh" if j in self._fresh else "denoise--committed"
                text.append(words[j], style=style(kind))
            elif guesses is not None and guesses[j]:
                text.append(guesses[j].replace("\n", "↵"), style=style("denoise--provisional"))
            else:  # no guess yet, or one with no text (expand/delete)
                text.append(MASK_GLYPH, style=style("denoise--masked"))
        return text

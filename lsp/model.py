"""The model the server loads once, and the Rewriter over it for the current settings.

Loading happens on the model thread (it can take seconds for a real model, and must not race a
denoising job). A model that fails to load is not fatal: the reason is kept for the user and
the server carries on with the features that need no model (hole and span hints).
"""

from __future__ import annotations

from pathlib import Path

from remask.diffing.proposal import Span
from remask.diffing.rewriter import Rewriter
from remask.diffing.spans import affected_spans
from remask.infill.engine import Engine, load_engine
from remask.infill.sampler import SamplerConfig

from .settings import Settings


class Model:
    """The engine (None when it failed to load, with ``error`` saying why) and its Rewriter."""

    def __init__(self, default: Path | None = None) -> None:
        self.default = default  # --model, else the bundled model
        self.engine: Engine | None = None
        self.error: str | None = None
        self.rewriter: Rewriter | None = None
        self._source: object = ()  # the directory the engine came from; () = never loaded

    def configure(self, settings: Settings) -> str | None:
        """Load the model if its directory changed, and rebuild the Rewriter for ``settings``.

        Returns the load error when this call tried to load and failed, else None.
        """
        source = Path(settings.model) if settings.model else self.default
        tried = source != self._source
        if tried:
            self._source = source
            try:
                self.engine, self.error = load_engine(source), None
            except Exception as e:  # any reason at all: keep serving the syntax-only features
                name = source if source is not None else "the bundled model"
                self.engine = None
                reason = str(e).splitlines()[0] if str(e) else repr(e)
                self.error = f"cannot load model {name}: {reason}"
        self.rewriter = Rewriter(self.engine, settings.rewriter_config(self.engine.sampler)) \
            if self.engine is not None else None
        return self.error if tried else None

    @staticmethod
    def spans(before: str, after: str, path: str | None, cursor: int | None,
              settings: Settings) -> list[Span]:
        """Spans the edit affects, for ``settings`` as they are now; no model needed.

        Not the Rewriter's config: the model thread rebuilds that after a settings change,
        maybe behind a fill, and hints computed meanwhile showed kinds the user had just
        turned off (seen under load in CI).
        """
        c = settings.rewriter_config(SamplerConfig())
        return affected_spans(before, after, path, cursor, kinds=c.kinds, marker=c.marker,
                              cap=c.span_cap)

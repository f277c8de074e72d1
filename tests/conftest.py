"""Shared fixtures: the real bundled models, loaded once per test session."""

from __future__ import annotations

import pytest

from remask.infill.engine import BUNDLED, BUNDLED_AR, load_engine


@pytest.fixture(scope="session")
def engine():
    """The bundled diffusion model behind the real engine."""
    return load_engine(BUNDLED)


@pytest.fixture(scope="session")
def ar_engine():
    """The bundled matched AR baseline."""
    return load_engine(BUNDLED_AR)

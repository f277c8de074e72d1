"""Shared fixtures: the bundled models (loaded once a session) and a language server client.

A test module that needs the server started with other settings defines its own ``client``.
"""

from __future__ import annotations

import pytest
import pytest_lsp
from lsp_support import config, initialize

from remask.infill.engine import BUNDLED, BUNDLED_AR, load_engine


@pytest.fixture(scope="session")
def engine():
    """The bundled diffusion model behind the real engine."""
    return load_engine(BUNDLED)


@pytest.fixture(scope="session")
def ar_engine():
    """The bundled matched AR baseline."""
    return load_engine(BUNDLED_AR)


@pytest_lsp.fixture(config=config(), scope="module")
async def client(lsp_client: pytest_lsp.LanguageClient):
    """A real ``remask lsp`` over stdio, initialized with no options.

    Module scope, as the tests' event loops are (``loop_scope="module"``): unequal scopes hang.
    """
    await initialize(lsp_client)
    yield
    await lsp_client.shutdown_session()

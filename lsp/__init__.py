"""remask's language server (pygls), started by ``remask lsp``."""

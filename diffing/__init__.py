"""Edits to spans, tree-sitter validation, minimal edits: the one API every front end calls."""

"""The Textual terminal UI: edit a file while remask proposes follow-ups and shows denoising live.

Every proposal comes from the same ``Rewriter`` the language server uses; this package only
shows them, applies the accepted one, and saves atomically.
"""

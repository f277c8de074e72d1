"""remask's benchmarks: each measures one claim on real tasks and reports a table plus JSON.

Every benchmark is a ``remask bench <name>`` command (``register(sub)`` / ``run(args)``) that
prints its result through :func:`remask.bench.report.report`, so numbers on screen and on disk
always come from the same rows.
"""

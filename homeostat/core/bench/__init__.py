"""`homeostat bench`'s pure parts: the task file, grading, result records, estimates and the report.

The bench runs the same tasks through headless Claude Code with the plugin off and on; everything
here is text in, values out, so the runner (`homeostat.runs.bench`) only moves values between these
functions, `claude` and the results files.
"""

"""The use cases: run, check, grade, provision, new-lab, up/down, as library functions.

Each takes what it needs (settings, a lab, paths) and returns a result or yields typed events; the faces (the CLI,
the notebook) parse their input, call one use case once and render what it returns.
"""

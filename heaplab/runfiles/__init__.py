"""The run directory: run.json, the raw logs and the readers every later stage loads a run through."""

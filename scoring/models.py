"""Models of the scoring app (none yet)."""

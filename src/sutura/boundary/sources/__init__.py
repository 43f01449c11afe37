"""Data sources: each runs a compiled statement and returns text rows or a refusal."""

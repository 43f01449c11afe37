"""The canonical form of a checked catalog and its SHA-256 digests (whole and per metric)."""

"""The catalog as files become definitions: documents written, checked across, pinned, and shown
to a caller; the drafts ``sutura init`` writes. Its sub-packages run in that order (error →
document → checks → pinning → view → draft), each importing only those before it."""

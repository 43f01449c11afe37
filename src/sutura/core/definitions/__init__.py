"""What a catalog defines, as typed values: models, relationships, metrics, knowledge, pinned."""

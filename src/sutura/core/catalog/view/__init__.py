"""The catalog as a caller sees it: one value rendered twice (text and structured halves),
its knowledge lines, pages and search, the physical-schema listing."""

"""Effects: files, settings, data sources, clock and logging. Every function returns values."""

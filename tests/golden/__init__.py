"""Golden files: compiled SQL per dialect, compared exactly; rewritten with --update-golden."""

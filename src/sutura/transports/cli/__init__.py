"""The command line: ``sutura <command>``."""

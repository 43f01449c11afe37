"""HTTP transport tests."""

"""Transports: decode, call the core through the service, encode."""

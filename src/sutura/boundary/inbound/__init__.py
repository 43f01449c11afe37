"""Inbound access tokens: the issuer's signing keys, and the verification of one token."""

"""The performance table: every figure measured beside its reference in one run (`make bench`)."""

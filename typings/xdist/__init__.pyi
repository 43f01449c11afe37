# The part of pytest-xdist (untyped) that sutura's tests use, checked against pytest-xdist 3.8:
# the scheduler that keeps a group of tests on one worker (tests/conftest.py).

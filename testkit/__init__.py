"""What the tests and the benchmarks both stand on: the Tally test game, HTTP API helpers, live servers
(uvicorn in a thread, `stela serve` processes) and the read-model rebuild comparison. Not part of the
distribution; importable from the repository root as `bench/` and `tests/` are. It imports nothing
of `tests` (tests/test_architecture.py says so), so the benchmarks stand on their own.
"""

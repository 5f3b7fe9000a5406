"""Stand-ins for the outside world that the tests and the benchmarks share; not part of the app."""

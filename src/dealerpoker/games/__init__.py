"""The two games' rules as a pure engine (no I/O, no clock, no global RNG)."""

"""Operators: casinos that launch their players here (signed launch, one-time tokens) and own
their money (the seamless wallet). See ``docs/operators.md``."""

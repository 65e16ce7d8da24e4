"""Observability: metrics and structured logs, which every layer of the server may use."""

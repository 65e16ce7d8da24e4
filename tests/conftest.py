"""Shared fixtures. Tests that need PostgreSQL, Redis or Chromium skip with a visible reason."""

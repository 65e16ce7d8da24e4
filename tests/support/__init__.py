"""Helpers shared by the test directories (and scripts/screenshots.py): real servers, databases."""

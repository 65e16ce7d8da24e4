"""The REST API: one router per resource, installed by ``create_app``."""

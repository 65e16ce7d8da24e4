"""The back office in the browser: staff accounts with roles, the append-only admin audit log,
and the pages' endpoints under ``/admin/api`` (``docs/backoffice.md``)."""

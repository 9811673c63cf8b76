"""The phone web form at the table: server-rendered pages and partials over the services."""

"""The phone web form at the table: server-rendered pages and htmx partials over the services."""

"""The baseline of the load benchmark: a DRF endpoint that does one INSERT in one transaction."""

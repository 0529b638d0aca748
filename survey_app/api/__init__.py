"""The JSON and CSV API under /api/v1."""

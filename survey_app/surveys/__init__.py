"""Surveys: definitions and their checks, lifecycle (draft, open, closed), copies, managing."""

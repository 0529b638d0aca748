"""Analysts' accounts: passwords, sessions, devices, who may see which survey, and signing in."""

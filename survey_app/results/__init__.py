"""Results: counts told by the privacy math, released while open, presented, exported."""

"""The lesson: randomized response worked out, step by step, on the class's own answers."""

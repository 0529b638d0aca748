"""The classroom: the projector view and one-time codes with their slips."""

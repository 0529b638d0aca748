"""Storage: the database models, engine settings and write transactions, and migrations."""

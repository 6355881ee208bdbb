"""rulecraft generated."""

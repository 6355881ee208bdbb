"""rulecraft runtime."""

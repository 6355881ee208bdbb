"""rulecraft schemas."""

"""rulecraft compiler."""

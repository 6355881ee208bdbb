"""What rulecraft publishes besides engines: printable reference sheets and record forms."""

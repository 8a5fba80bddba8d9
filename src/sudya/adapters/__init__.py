"""What the application talks to: the database, scenario files."""

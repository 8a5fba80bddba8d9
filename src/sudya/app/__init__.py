"""The application: one facade (`Sudya`) over the use cases, each call one transaction."""

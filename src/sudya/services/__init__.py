"""Use cases over the ledger; each call is one transaction."""

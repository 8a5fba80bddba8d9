"""Message codes and their catalogues (ru, en)."""

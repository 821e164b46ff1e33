"""Training data: PGN collections -> pattern sets (NMM) and game sequences (TD)."""

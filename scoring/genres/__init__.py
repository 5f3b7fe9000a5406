"""GENRES: pure Python scoring library (no Django imports anywhere in this package)."""

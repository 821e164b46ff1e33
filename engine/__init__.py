"""nmm-chess: a UCI chess engine with a Cython core."""

__version__ = "0.1.0"

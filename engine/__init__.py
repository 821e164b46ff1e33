"""nmm-chess: a UCI chess engine with a Cython core."""
import os

# One BLAS thread unless told otherwise: the engine's numpy work is small
# (loading nets, training on one core), and OpenBLAS's idle pool spins for a
# while after each call, taking a core from the search or from the opponent
# in a match (2.5% of a bench's samples here).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

__version__ = "0.1.0"

# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False, infer_types=False
"""The compiled core: board, move generation, perft, evaluation and search.

Every ``.pxi`` below is one concern; they are textually included into this
single module so that the C compiler sees one translation unit and can inline
the bit tricks and table look-ups across files. Cross-module ``cimport`` would
turn each call into a call through a function pointer, which costs perft a
factor of two or more.
"""

include "bits.pxi"
include "attacks.pxi"
include "position.pxi"
include "zobrist.pxi"
include "fen.pxi"
include "makemove.pxi"
include "movegen.pxi"
include "rules.pxi"
include "eval_weights.pxi"
include "eval_hand.pxi"
include "endgames.pxi"
include "eval_features.pxi"
include "eval_td.pxi"
include "nnue.pxi"
include "perft.pxi"
include "nmm.pxi"
include "tt.pxi"
include "syzygy.pxi"
include "search_params.pxi"
include "see.pxi"
include "move_classes.pxi"
include "regions.pxi"
include "cutoffs.pxi"
include "search_state.pxi"
include "scorers.pxi"
include "stats.pxi"
include "correction.pxi"
include "move_chains.pxi"
include "move_tables.pxi"
include "picker.pxi"
include "forward_pruning.pxi"
include "long_branches.pxi"
include "search_syzygy.pxi"
include "search.pxi"
include "threads.pxi"
include "api.pxi"
include "syzygy_api.pxi"
include "search_api.pxi"
include "search_params_api.pxi"
include "search_lab.pxi"
include "selfplay.pxi"

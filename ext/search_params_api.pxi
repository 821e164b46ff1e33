# The search's constants from Python (issue 43; engine/search_params.py
# declares them, ext/search_params.pxi and .h are generated from it). In the
# playing build they are compile-time constants: they can be read, not set.
# In a tuning build (NMM_TUNE=1 at build time) they are globals of the
# process, shared by every Searcher and thread: set them between searches.


def tuning_build() -> bool:
    """Whether this core is the tuning build, whose search constants can be set.

    >>> tuning_build() in (True, False)
    True
    """
    return NMM_TUNE != 0


cdef object _param_value(int i):
    """Constant ``i``'s value as its type: an int, or a float."""
    cdef double value = nmm_param_get(i)
    return value if nmm_param_is_float(i) else <int>value


def search_params() -> dict:
    """Every search constant's value in this core, by name, in the table's order.

    >>> search_params()["LMR_DIVISOR"]
    2.25
    """
    return {nmm_param_name(i).decode(): _param_value(i) for i in range(NMM_N_PARAMS)}


cdef int _param_index(str name) except -1:
    cdef int i
    for i in range(NMM_N_PARAMS):
        if nmm_param_name(i).decode() == name:
            return i
    raise ValueError(f"no search constant {name!r} (engine/search_params.py)")


def set_search_param(str name, value) -> None:
    """Set search constant ``name`` to ``value`` (a tuning build only; an int
    constant takes an integer). ValueError in the playing build, for an
    unknown name, or for a value outside the constant's range. Not while a
    search runs: the searching threads read the constants unguarded."""
    cdef int i = _param_index(name)
    if not NMM_TUNE:
        raise ValueError(f"{name}: the search constants are compile-time constants in this build; "
                         "build the tuning build (NMM_TUNE=1, make tune-build) to set them")
    if not nmm_param_is_float(i) and value != int(value):
        raise ValueError(f"{name} is an integer, not {value!r}")
    if not nmm_param_min(i) <= value <= nmm_param_max(i):
        raise ValueError(f"{name} must be in {_bound(i, nmm_param_min(i))}..{_bound(i, nmm_param_max(i))}, "
                         f"not {value!r}")
    nmm_param_set(i, value)
    if name in ("LMR_BASE", "LMR_DIVISOR"):
        init_search_tables()            # the reduction table is made of them


cdef object _bound(int i, double bound):
    return bound if nmm_param_is_float(i) else <int>bound

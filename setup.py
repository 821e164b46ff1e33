"""Build the Cython core (ext/core.pyx -> engine._core) and the NNUE trainer's loop
(ext/nnue_trainer.pyx -> engine.train._nnue_trainer)."""
import os
import platform
import sys
from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, find_packages, setup
from setuptools.command.build_ext import build_ext

# -O3 and popcnt: every x86-64 CPU of the last fifteen years has it, and
# without the flag __builtin_popcountll becomes a library call. NMM_NATIVE=1
# tunes for the building machine (not portable to other CPUs).
flags = ["-O3"]
if platform.machine() in ("x86_64", "AMD64"):
    flags.append("-mpopcnt")
if os.environ.get("NMM_NATIVE") == "1":
    flags.append("-march=native")


# The search's constants (engine/search_params.py) become ext/search_params.h and
# .pxi before Cython runs: #defines in the playing build, variables with UCI
# options in the tuning build (NMM_TUNE=1). The table is read from the source
# tree, which is on no path under a PEP 517 build.
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from engine.search_params import generate, tune_from_env  # noqa: E402

generate(tune_from_env(os.environ), HERE / "ext")


class ReplacingBuildExt(build_ext):
    """Put a fresh file in place instead of overwriting the old one: an engine
    still running (in a GUI, a match, a long perft) keeps its mapped copy
    instead of crashing when the library under it is rewritten."""

    def copy_file(self, src, dst, *args, **kwargs):
        if os.path.isfile(dst):
            os.unlink(dst)
        return super().copy_file(src, dst, *args, **kwargs)


extensions = [
    Extension("engine._core", ["ext/core.pyx"], include_dirs=["ext"], extra_compile_args=flags,
              depends=["ext/td_kernel.h", "ext/nnue_kernel.h", "ext/pick_kernel.h", "ext/syzygy.h", "ext/search_params.h"]),
    # The NNUE trainer's loop (engine/train/nnue.py): lab code, compiled with the same flags.
    Extension("engine.train._nnue_trainer", ["ext/nnue_trainer.pyx"], include_dirs=["ext"],
              extra_compile_args=flags, depends=["ext/nnue_trainer.h"]),
]

# The shipped nets travel in the package as engine/shipped_nets (engine/paths.py
# finds them there in a wheel, and in nets/ in a checkout or editable install).
NETS_PACKAGE = "engine.shipped_nets"

setup(
    packages=find_packages(include=["engine", "engine.*"]) + [NETS_PACKAGE],
    package_dir={NETS_PACKAGE: "nets"},
    package_data={NETS_PACKAGE: ["*.npz", "README.md"]},
    exclude_package_data={NETS_PACKAGE: ["*.py"]},
    ext_modules=cythonize(extensions, compiler_directives={"language_level": 3},
                          include_path=["ext"]),
    cmdclass={"build_ext": ReplacingBuildExt},
)

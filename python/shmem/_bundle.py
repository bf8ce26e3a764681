"""The console scripts of the pip package: `oshrun` and `shmem-info` run the programs the package
carries (shmem/bin, installed by setup.py); a CMake install has its own in <prefix>/bin."""
import os
import sys
from pathlib import Path


def _exec(name):
    prog = Path(__file__).resolve().parent / "bin" / name
    if not prog.is_file():
        sys.exit(f"{name}: not in this shmem package ({prog}); it is in the bin directory of the install")
    os.execv(prog, [str(prog), *sys.argv[1:]])


def oshrun():
    _exec("oshrun")


def shmem_info():
    _exec("shmem-info")

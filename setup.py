"""pip install . / pip wheel .: build the shmem package with CMake.

The package is self-contained: shmem/ holds the Python files and the extension (_core), shmem/lib
libshmem and its plugins (the library loads them from its own directory), shmem/bin oshrun and
shmem-info (also on PATH as console scripts). Only the CMake target shmem_pip is built
(cmake/pip.cmake: no tests, examples or benchmarks).

Environment:
  SHMEM_CMAKE_BUILD_DIR   build in this CMake build tree instead of build-pip/cmake: reused
                          (only shmem_pip built) when configured, configured first when empty
  SHMEM_CMAKE_ARGS        extra configure arguments (e.g. -DCMAKE_BUILD_TYPE=RelWithDebInfo)
  CMAKE_C_COMPILER_LAUNCHER, CMAKE_CXX_COMPILER_LAUNCHER
                          passed to the configure step (ccache: a rebuild costs seconds)
  CMAKE_BUILD_PARALLEL_LEVEL  jobs for the build (default: the CPU count)
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Distribution, Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
(ROOT / "build-pip").mkdir(exist_ok=True)  # egg_base below


def project_version():
    text = (ROOT / "CMakeLists.txt").read_text()
    m = re.search(r"project\(shmem VERSION ([0-9.]+)", text)
    if not m:
        sys.exit("setup.py: no `project(shmem VERSION x.y.z)` in CMakeLists.txt")
    return m.group(1)


def run(cmd, **kw):
    print("setup.py:", " ".join(shlex.quote(str(c)) for c in cmd), flush=True)
    subprocess.run([str(c) for c in cmd], check=True, **kw)


class CMakeBuild(build_ext):
    """Builds the CMake target shmem_pip, installs it into a staging prefix and lays the files
    out in the package (build_lib/shmem)."""

    def run(self):
        given = os.environ.get("SHMEM_CMAKE_BUILD_DIR")
        build = Path(given).resolve() if given else ROOT / "build-pip" / "cmake"
        if given and not (build / "CMakeCache.txt").is_file() and build.is_dir() and any(build.iterdir()):
            sys.exit(f"setup.py: SHMEM_CMAKE_BUILD_DIR={build} is neither empty nor a configured CMake build tree")
        if not (given and (build / "CMakeCache.txt").is_file()):
            args = ["-DCMAKE_BUILD_TYPE=Release", "-DSHMEM_BUILD_TESTS=OFF", "-DSHMEM_BUILD_BENCH=OFF",
                    "-DSHMEM_BUILD_EXAMPLES=OFF", "-DSHMEM_BUILD_TORCH_BACKEND=OFF",
                    f"-DPython3_EXECUTABLE={os.path.realpath(sys.executable)}"]
            for var in ("CMAKE_C_COMPILER_LAUNCHER", "CMAKE_CXX_COMPILER_LAUNCHER"):
                if os.environ.get(var):
                    args.append(f"-D{var}={os.environ[var]}")
            args += shlex.split(os.environ.get("SHMEM_CMAKE_ARGS", ""))
            run(["cmake", "-S", ROOT, "-B", build, *args])
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
        run(["cmake", "--build", build, "--target", "shmem_pip", "-j", jobs])

        stage = Path(self.build_temp).resolve() / "stage"
        shutil.rmtree(stage, ignore_errors=True)
        for component in ("runtime", "python"):
            run(["cmake", "--install", build, "--prefix", stage, "--component", component])
        pydir = stage / "lib" / "python3" / "dist-packages" / "shmem"
        if not (pydir / "_build.py").is_file():
            sys.exit(f"setup.py: the Python module was not built (see the configure output of {build}: "
                     "python3-dev, pybind11-dev and python3-numpy are needed)")
        pkg = Path(self.build_lib).resolve() / "shmem"
        shutil.rmtree(pkg, ignore_errors=True)
        shutil.copytree(pydir, pkg)
        (pkg / "lib").mkdir()
        (pkg / "bin").mkdir()
        # Wheels hold no symbolic links: the library under its SONAME (what _core needs), the
        # plugins, and the tools, each a real file.
        for f in sorted((stage / "lib").iterdir()):
            if re.fullmatch(r"libshmem\.so\.[0-9]+|libshmem_[a-z_]+\.so", f.name):
                shutil.copy2(f.resolve(), pkg / "lib" / f.name)
        for name in ("oshrun", "shmem-info"):
            shutil.copy2(stage / "bin" / name, pkg / "bin" / name)
        if not any(p.name.startswith("libshmem.so.") for p in (pkg / "lib").iterdir()):
            sys.exit(f"setup.py: no libshmem.so.N in {stage / 'lib'}")
        self._outputs = [str(p) for p in pkg.rglob("*") if p.is_file()]

    def get_outputs(self):
        return getattr(self, "_outputs", [])


class BinaryDistribution(Distribution):
    """A platform wheel (it carries ELF files), not a pure-Python one."""

    def has_ext_modules(self):
        return True


setup(
    version=project_version(),
    distclass=BinaryDistribution,
    # Placeholder: CMakeBuild builds the real extension (and everything else) with CMake.
    ext_modules=[Extension("shmem._core", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    packages=[],
    zip_safe=False,
    options={"build": {"build_base": "build-pip/setuptools"},
             "egg_info": {"egg_base": "build-pip"}},
)

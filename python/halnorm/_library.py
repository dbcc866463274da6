"""Finds libhalnorm.so and loads it with ctypes.

Search order (the first that exists wins; a failure names every place tried):
  1. $HALNORM_LIBRARY: a path to the library (an error if it is set but
     missing: a typo should not silently pick another build);
  2. next to this package (python/halnorm/libhalnorm.so, for an installed copy);
  3. Bazel runfiles of //runtime:libhalnorm.so (py_test/py_binary with
     data = ["//runtime:libhalnorm.so"]): $RUNFILES_DIR, $TEST_SRCDIR,
     <argv[0]>.runfiles, the runfiles tree this package sits in, and
     $RUNFILES_MANIFEST_FILE;
  4. the source checkout's Bazel outputs (after `bazel build
     //runtime:libhalnorm.so`): bazel-bin, then bazel-out/<host cpu>-opt/bin,
     since bazel-bin follows the last build's config (--config=aarch64 too).
A file built for another CPU (an ARM64 build on x86-64) is skipped, saying so.
"""

import ctypes
import os
import platform
import struct
import sys

LIBRARY_NAME = "libhalnorm.so"
ENV_VAR = "HALNORM_LIBRARY"
_WORKSPACE = "halnorm"  # workspace(name = ...) in WORKSPACE
_RUNFILES_PATH = f"{_WORKSPACE}/runtime/{LIBRARY_NAME}"

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
# python/halnorm -> the workspace root, in a checkout or in a runfiles tree.
_WORKSPACE_DIR = os.path.dirname(os.path.dirname(_PACKAGE_DIR))


# platform.machine() -> Bazel's --cpu (its output directory) and ELF e_machine.
_BAZEL_CPU = {"x86_64": "k8", "aarch64": "aarch64"}
_ELF_MACHINE = {"x86_64": 62, "aarch64": 183}


class LibraryNotFoundError(OSError):
    """libhalnorm.so was not found, or failed to load; says where it looked."""


def _foreign_cpu(path):
    """Why `path` cannot load on this CPU (an ELF for another machine), or None."""
    want = _ELF_MACHINE.get(platform.machine())
    try:
        with open(path, "rb") as f:
            header = f.read(20)
    except OSError:
        return None
    if want is None or len(header) < 20 or header[:4] != b"\x7fELF":
        return None
    machine = struct.unpack("<H" if header[5] == 1 else ">H", header[18:20])[0]
    if machine == want:
        return None
    name = {v: k for k, v in _ELF_MACHINE.items()}.get(machine, f"ELF machine {machine}")
    return f"built for {name}, this is {platform.machine()}"


def _runfiles_candidates():
    roots = [os.environ.get("RUNFILES_DIR"), os.environ.get("TEST_SRCDIR")]
    if sys.argv and os.path.isfile(sys.argv[0]):
        roots.append(os.path.abspath(sys.argv[0]) + ".runfiles")
    paths = [os.path.join(root, _RUNFILES_PATH) for root in roots if root]
    # This package inside a runfiles tree: <runfiles>/halnorm/python/halnorm.
    paths.append(os.path.join(_WORKSPACE_DIR, "runtime", LIBRARY_NAME))
    manifest = os.environ.get("RUNFILES_MANIFEST_FILE")
    if manifest:
        try:
            with open(manifest, encoding="utf-8") as lines:
                for line in lines:
                    key, _, value = line.rstrip("\n").partition(" ")
                    if key == _RUNFILES_PATH and value:
                        paths.append(value)
                        break
        except OSError:
            paths.append(f"{_RUNFILES_PATH} in {manifest} (unreadable)")
    return paths


def candidates():
    """Every path the search tries, in order (without $HALNORM_LIBRARY)."""
    paths = [os.path.join(_PACKAGE_DIR, LIBRARY_NAME)]
    paths += _runfiles_candidates()
    paths.append(os.path.join(_WORKSPACE_DIR, "bazel-bin", "runtime", LIBRARY_NAME))
    config = _BAZEL_CPU.get(platform.machine())
    if config:
        paths.append(os.path.join(_WORKSPACE_DIR, "bazel-out", f"{config}-opt", "bin", "runtime",
                                  LIBRARY_NAME))
    unique = []
    for path in paths:
        if path not in unique:
            unique.append(path)
    return unique


def find():
    """The path of the library the search picks; LibraryNotFoundError if none."""
    explicit = os.environ.get(ENV_VAR)
    if explicit:
        if os.path.isfile(explicit):
            foreign = _foreign_cpu(explicit)
            if foreign:
                raise LibraryNotFoundError(f"halnorm: ${ENV_VAR}={explicit} is {foreign}")
            return explicit
        raise LibraryNotFoundError(
            f"halnorm: ${ENV_VAR}={explicit} does not exist (unset it to search the default "
            f"places: next to the halnorm package, Bazel runfiles of //runtime:{LIBRARY_NAME}, "
            "the checkout's bazel-bin)")
    tried = []
    for path in candidates():
        foreign = _foreign_cpu(path) if os.path.isfile(path) else "not found"
        if not foreign:
            return path
        tried.append(f"{path} ({foreign})")
    raise LibraryNotFoundError(
        f"halnorm: cannot find {LIBRARY_NAME}. Set ${ENV_VAR} to its path, or build it with "
        f"`bazel build //runtime:{LIBRARY_NAME}` (or add it to a py_test's data). Searched: "
        f"${ENV_VAR} (unset), " + ", ".join(tried))


def load(path=None):
    """ctypes.CDLL of `path`, or of what find() picks."""
    path = path or find()
    try:
        return ctypes.CDLL(path), path
    except OSError as error:
        raise LibraryNotFoundError(f"halnorm: cannot load {path}: {error}") from error

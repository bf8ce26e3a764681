"""Exceptions raised by the shmem package.

Every error carries ``code`` (the C library's return code, negative; -1 "invalid argument" for
checks the bindings make before calling it) and ``message``. Argument errors are also
``ValueError`` / ``TypeError``, so ordinary ``except ValueError`` code catches them.
"""

_CODE_NAMES = {
    -1: "INVALID_ARGUMENT",
    -2: "INVALID_VALUE",
    -3: "STORE",
    -4: "INTERNAL",
    -5: "NOT_INITIALIZED",
    -6: "BOOTSTRAP",
    -7: "TIMEOUT",
    -8: "OUT_OF_MEMORY",
    -12: "PEER_LOST",
    -13: "AUTH",
    -100: "NOT_SUPPORTED",
}


def code_name(code: int) -> str:
    """The library's name for a return code (``"OUT_OF_MEMORY"`` for -8)."""
    return _CODE_NAMES.get(code, "ERROR")


class ShmemError(RuntimeError):
    """A failed OpenSHMEM call: ``code`` is the library's return code, ``message`` the reason."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(code, message)
        self.code = code
        self.message = message

    def __str__(self) -> str:
        return f"{self.message} [code {self.code}: {code_name(self.code)}]"


# shmem4py checks many arguments with ``assert`` (size, dtype and shape mismatches) and reaches
# unknown operation names through ``getattr`` (AttributeError), and a second free pops a missing
# key (KeyError). Programs written for it catch those, so the errors below derive from them as
# well: ``except AssertionError`` still catches a size mismatch here, ``except KeyError`` a
# double free, ``except AttributeError`` an unknown op.
class ShmemValueError(ShmemError, ValueError, AssertionError):
    """A bad argument value (size, PE, shape, non-symmetric or freed memory), found before any transfer."""


class ShmemTypeError(ShmemError, TypeError, AssertionError):
    """A bad argument type or dtype, found before any transfer."""


class ShmemKeyError(ShmemValueError, KeyError):
    """Memory freed twice (shmem4py raises KeyError there)."""


class ShmemOpError(ShmemValueError, AttributeError):
    """An unknown AMO or reduction operation name (shmem4py raises AttributeError there)."""

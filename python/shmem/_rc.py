"""Runtime configuration, as shmem4py's ``shmem4py.rc``: how the library starts and stops.

``import shmem`` does not start the library; the first call that needs it does, and that is
when ``rc`` is read (set it before, right after the import)::

    import shmem
    shmem.rc.threads = True            # start with shmem_init_thread(rc.thread_level)
    shmem.rc.thread_level = "serialized"

Attributes (the defaults are shmem4py's):
  ``initialize``    True: the first use initialises the library. False: the program calls
                    ``shmem.init()`` / ``shmem.init_thread()`` itself; using the library before
                    that raises ShmemError.
  ``threads``       False: ``shmem_init``. True: ``shmem_init_thread(thread_level)``.
  ``thread_level``  "single", "funneled", "serialized" or "multiple" (default "multiple").
  ``finalize``      None or True: finalise at interpreter exit. False: the program calls
                    ``shmem.finalize()`` itself.

``shmem.rc(threads=True, thread_level="serialized")`` sets several at once (as shmem4py's);
an unknown name, as a keyword or an attribute, raises TypeError.

The environment variables SHMEM4PY_RC_INITIALIZE, _THREADS, _THREAD_LEVEL and _FINALIZE set
them too (true/false/yes/no/on/off/1/0), read at the same moment.
"""
import os as _os

from . import _core
from ._errors import ShmemError, ShmemTypeError, ShmemValueError

_LEVELS = ("single", "funneled", "serialized", "multiple")
_NOT_INITIALIZED = -5


class RuntimeConfig:
    """The type of ``shmem.rc``: four checked attributes (see the module documentation)."""

    __slots__ = ("_initialize", "_threads", "_thread_level", "_finalize")

    def __init__(self) -> None:
        self._initialize = True
        self._threads = False
        self._thread_level = "multiple"
        self._finalize = None

    @staticmethod
    def _bool(name: str, value) -> bool:
        if not isinstance(value, bool):
            raise ShmemTypeError(-1, f"rc.{name} must be True or False (got {value!r})")
        return value

    @property
    def initialize(self) -> bool:
        return self._initialize

    @initialize.setter
    def initialize(self, value) -> None:
        self._initialize = self._bool("initialize", value)

    @property
    def threads(self) -> bool:
        return self._threads

    @threads.setter
    def threads(self, value) -> None:
        self._threads = self._bool("threads", value)

    @property
    def thread_level(self) -> str:
        return self._thread_level

    @thread_level.setter
    def thread_level(self, value) -> None:
        if not isinstance(value, str) or value.lower() not in _LEVELS:
            raise ShmemValueError(-1, f"rc.thread_level={value!r} is not one of {', '.join(_LEVELS)}")
        self._thread_level = value.lower()

    @property
    def finalize(self):
        return self._finalize

    @finalize.setter
    def finalize(self, value) -> None:
        self._finalize = None if value is None else self._bool("finalize", value)

    _NAMES = ("initialize", "threads", "thread_level", "finalize")

    def __setattr__(self, name, value) -> None:
        # As shmem4py's (and mpi4py's) rc: a misspelt option is an error, not a new attribute.
        if name not in RuntimeConfig._NAMES and name not in RuntimeConfig.__slots__:
            raise TypeError(f"shmem.rc has no option {name!r} (options: {', '.join(RuntimeConfig._NAMES)})")
        object.__setattr__(self, name, value)

    def __call__(self, **kwargs) -> None:
        """Set several options at once, as shmem4py's ``rc(initialize=False, ...)``; an unknown
        keyword raises TypeError and sets nothing."""
        for key in kwargs:
            if key not in RuntimeConfig._NAMES:
                raise TypeError(f"shmem.rc() got an unexpected keyword argument {key!r} "
                                f"(options: {', '.join(RuntimeConfig._NAMES)})")
        for key, value in kwargs.items():
            setattr(self, key, value)

    def __repr__(self) -> str:
        return (f"<shmem.rc initialize={self._initialize} threads={self._threads} "
                f"thread_level={self._thread_level!r} finalize={self._finalize}>")


rc = RuntimeConfig()

_TRUE = ("true", "yes", "on", "y", "1")
_FALSE = ("false", "no", "off", "n", "0")


def _apply_env() -> None:
    for name in ("initialize", "threads", "thread_level", "finalize"):
        var = f"SHMEM4PY_RC_{name.upper()}"
        text = _os.environ.get(var, "")
        if not text:
            continue
        low = text.lower()
        value = True if low in _TRUE else False if low in _FALSE else text
        if name != "thread_level" and isinstance(value, str):
            raise ShmemValueError(-1, f"{var}={text!r} is not a boolean (true/false, yes/no, on/off, 1/0)")
        try:
            setattr(rc, name, value)
        except ShmemError as e:
            raise ShmemValueError(-1, f"{var}={text!r}: {e.message}") from None


def _first_use() -> int:
    """Called by the extension at the first use of an uninitialised library: the thread level
    to initialise with, from ``rc``; raises when ``rc.initialize`` is False."""
    _apply_env()
    if not rc.initialize:
        raise ShmemError(_NOT_INITIALIZED, "shmem is not initialised: shmem.rc.initialize is False, so call "
                                           "shmem.init() or shmem.init_thread() first")
    if rc.threads:
        return getattr(_core, f"THREAD_{rc.thread_level.upper()}")
    return _core.THREAD_SINGLE


def _finalize_at_exit() -> bool:
    return rc.finalize is not False

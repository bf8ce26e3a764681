"""Teams and communication contexts (``Team``, ``Ctx``, ``TEAM_WORLD``, ``CTX_DEFAULT`` ...)."""
import enum as _enum
import operator as _operator

from . import _core
from ._errors import ShmemError, ShmemTypeError, ShmemValueError

_NOT_SUPPORTED = -100

# Handles of the teams and contexts created here and not yet destroyed. A handle is a pointer to
# a library object: using one after destroy (through a copy of the Team/Ctx) would touch freed
# memory, so every use is checked against these first.
_live_teams = set()
_live_ctxs = set()


def _need_teams(what: str) -> None:
    if not _core.HAVE_TEAMS:
        raise ShmemError(_NOT_SUPPORTED, f"{what} needs a shmem library with teams and contexts")


class CTX(_enum.IntFlag):
    """Context creation options."""

    PRIVATE = _core.CTX_PRIVATE
    SERIALIZED = _core.CTX_SERIALIZED
    NOSTORE = _core.CTX_NOSTORE


CTX_PRIVATE = CTX.PRIVATE
CTX_SERIALIZED = CTX.SERIALIZED
CTX_NOSTORE = CTX.NOSTORE


class Team:
    """A team of PEs. ``TEAM_WORLD`` and ``TEAM_SHARED`` are predefined; others come from
    ``split_strided`` / ``split_2d`` and are released with ``destroy`` (collective)."""

    __slots__ = ("_handle",)

    def __init__(self, team=None) -> None:
        # As in shmem4py: a copy of a Team, or TEAM_INVALID for None; anything else (a raw
        # integer handle included) is a TypeError. The package makes teams from handles with
        # Team._from_handle.
        if team is None:
            self._handle = _core.TEAM_INVALID
        elif isinstance(team, Team):
            self._handle = team._handle
        else:
            raise ShmemTypeError(-1, f"team must be a Team or None (got {type(team).__name__})")

    @classmethod
    def _from_handle(cls, handle: int) -> "Team":
        team = cls()
        team._handle = handle
        return team

    @property
    def handle(self) -> int:
        """The C handle (shmem_team_t) as an integer."""
        return self._handle

    def __eq__(self, other):
        if not isinstance(other, Team):
            return NotImplemented
        return self._handle == other._handle

    def __hash__(self):
        return hash(self._handle)

    def __bool__(self) -> bool:
        return self._handle != _core.TEAM_INVALID

    def __repr__(self) -> str:
        names = {_core.TEAM_WORLD: "TEAM_WORLD", _core.TEAM_SHARED: "TEAM_SHARED",
                 _core.TEAM_INVALID: "TEAM_INVALID"}
        return f"<shmem.Team {names.get(self._handle, hex(self._handle))}>"

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.destroy()

    def _predefined(self) -> bool:
        return self._handle in (_core.TEAM_WORLD, _core.TEAM_SHARED, _core.TEAM_INVALID)

    def _h(self) -> int:
        """The handle, refused once the team was destroyed (through any copy of it)."""
        if not self._predefined() and self._handle not in _live_teams:
            raise ShmemValueError(-1, f"{self!r} was destroyed")
        return self._handle

    def destroy(self) -> None:
        """Destroy the team (collective over it). The predefined objects TEAM_WORLD, TEAM_SHARED
        and TEAM_INVALID are left alone; a copy of one (``Team(TEAM_WORLD)``) becomes invalid
        and the predefined team is untouched (shmem4py's rule: predefined by identity)."""
        if self is TEAM_WORLD or self is TEAM_SHARED or self is TEAM_INVALID:
            return
        if self._predefined():
            self._handle = _core.TEAM_INVALID
            return
        handle = self._h()
        self._handle = _core.TEAM_INVALID
        _live_teams.discard(handle)
        _core.team_destroy(handle)

    def split_strided(self, start: int = 0, stride: int = 1, size=None, config=None, **kwargs) -> "Team":
        """Make a team of ``size`` PEs ``start, start+stride, ...`` of this team (collective over
        this team). PEs outside it get ``TEAM_INVALID``. ``config``/keywords: ``num_contexts``."""
        _need_teams("Team.split_strided")
        start, stride = _operator.index(start), _operator.index(stride)
        if size is None:
            size = len(range(start, self.n_pes(), stride)) if stride > 0 else 1
        return _new_team(_core.team_split_strided(self._h(), start, stride, _operator.index(size),
                                                  _num_contexts(config, kwargs)))

    def split_2d(self, xrange: int, xaxis_config=None, yaxis_config=None):
        """Split into a 2-D grid with rows of ``xrange`` PEs; return ``(xteam, yteam)``: this PE's
        row and column (collective over this team)."""
        _need_teams("Team.split_2d")
        x, y = _core.team_split_2d(self._h(), _operator.index(xrange),
                                   _num_contexts(xaxis_config, {}), _num_contexts(yaxis_config, {}))
        return _new_team(x), _new_team(y)

    def get_config(self) -> dict:
        """Return the team's configuration, ``{"num_contexts": n}``."""
        _need_teams("Team.get_config")
        return {"num_contexts": _core.team_get_config(self._h())}

    def my_pe(self) -> int:
        """This PE's number in the team."""
        if not _core.HAVE_TEAMS and self._handle == _core.TEAM_WORLD:
            return _core.my_pe()
        _need_teams("Team.my_pe")
        pe = _core.team_my_pe(self._h())
        if pe < 0:
            raise ShmemError(-1, f"this PE is not a member of {self!r}")
        return pe

    def n_pes(self) -> int:
        """The number of PEs in the team."""
        if not _core.HAVE_TEAMS and self._handle == _core.TEAM_WORLD:
            return _core.n_pes()
        _need_teams("Team.n_pes")
        n = _core.team_n_pes(self._h())
        if n < 0:
            raise ShmemError(-1, f"{self!r} is invalid")
        return n

    def translate_pe(self, pe=None, team=None) -> int:
        """Translate PE ``pe`` of this team (default: this PE) to its number in ``team``
        (default: ``TEAM_WORLD``)."""
        _need_teams("Team.translate_pe")
        src_pe = self.my_pe() if pe is None else _operator.index(pe)
        dest = team_handle(team)
        out = _core.team_translate_pe(self._h(), src_pe, dest)
        if out < 0:
            raise ShmemError(-1, f"PE {src_pe} of {self!r} is not a member of {Team._from_handle(dest)!r}")
        return out

    def create_ctx(self, options: int = 0) -> "Ctx":
        """Create a communication context on this team (collective over it)."""
        return Ctx.create(options, self)

    def sync(self) -> None:
        """Wait until every PE of the team arrives (collective over the team)."""
        if not _core.HAVE_TEAMS and self._handle == _core.TEAM_WORLD:
            _core.sync_all()
            return
        _need_teams("Team.sync")
        _core.team_sync(self._h())


def _new_team(handle: int) -> Team:
    if handle != _core.TEAM_INVALID:
        _live_teams.add(handle)
    return Team._from_handle(handle)


def _num_contexts(config, kwargs):
    conf = dict(config or {})
    conf.update(kwargs)
    unknown = set(conf) - {"num_contexts"}
    if unknown:
        raise ShmemValueError(-1, f"unknown team configuration field(s): {', '.join(sorted(unknown))}")
    value = conf.get("num_contexts")
    return None if value is None else _operator.index(value)


TEAM_WORLD = Team._from_handle(_core.TEAM_WORLD)
TEAM_SHARED = Team._from_handle(_core.TEAM_SHARED)
TEAM_INVALID = Team._from_handle(_core.TEAM_INVALID)


class Ctx:
    """A communication context: operations on it are ordered and completed (``fence``,
    ``quiet``) independently of other contexts. Pass ``ctx=`` to RMA, AMO and signal calls."""

    __slots__ = ("_handle",)

    def __init__(self, ctx=None) -> None:
        # As in shmem4py: a copy of a Ctx, or CTX_INVALID for None; anything else (a raw integer
        # handle included: Ctx(0) is not the default context) is a TypeError.
        if ctx is None:
            self._handle = _core.CTX_INVALID
        elif isinstance(ctx, Ctx):
            self._handle = ctx._handle
        else:
            raise ShmemTypeError(-1, f"ctx must be a Ctx or None (got {type(ctx).__name__})")

    @classmethod
    def _from_handle(cls, handle: int) -> "Ctx":
        ctx = cls()
        ctx._handle = handle
        return ctx

    @property
    def handle(self) -> int:
        """The C handle (shmem_ctx_t) as an integer."""
        return self._handle

    def __eq__(self, other):
        if not isinstance(other, Ctx):
            return NotImplemented
        return self._handle == other._handle

    def __hash__(self):
        return hash(self._handle)

    def __bool__(self) -> bool:
        return self._handle != _core.CTX_INVALID

    def __repr__(self) -> str:
        names = {_core.CTX_DEFAULT: "CTX_DEFAULT", _core.CTX_INVALID: "CTX_INVALID"}
        return f"<shmem.Ctx {names.get(self._handle, hex(self._handle))}>"

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.destroy()

    @staticmethod
    def create(options: int = 0, team=None) -> "Ctx":
        """Create a context (on ``team`` when given: collective over it)."""
        _need_teams("Ctx.create")
        if team is None:
            handle = _core.ctx_create(int(options))
        else:
            handle = _core.team_create_ctx(team_handle(team), int(options))
        _live_ctxs.add(handle)
        return Ctx._from_handle(handle)

    def _h(self) -> int:
        """The handle, refused once the context was destroyed (through any copy of it)."""
        if self._handle not in (_core.CTX_DEFAULT, _core.CTX_INVALID) and self._handle not in _live_ctxs:
            raise ShmemValueError(-1, f"{self!r} was destroyed")
        return self._handle

    def destroy(self) -> None:
        """Quiet and destroy the context. The predefined objects CTX_DEFAULT and CTX_INVALID are
        left alone; a copy of one (``Ctx(CTX_DEFAULT)``) becomes invalid and the default context
        is untouched (shmem4py's rule: predefined by identity)."""
        if self is CTX_DEFAULT or self is CTX_INVALID:
            return
        if self._handle in (_core.CTX_DEFAULT, _core.CTX_INVALID):
            self._handle = _core.CTX_INVALID
            return
        handle = self._h()
        self._handle = _core.CTX_INVALID
        _live_ctxs.discard(handle)
        _core.ctx_destroy(handle)

    def get_team(self) -> Team:
        """The team the context was created on (``TEAM_WORLD`` for ``Ctx.create()``)."""
        if not _core.HAVE_TEAMS and self._handle == _core.CTX_DEFAULT:
            return TEAM_WORLD
        _need_teams("Ctx.get_team")
        return Team._from_handle(_core.ctx_get_team(self._h()))

    def fence(self) -> None:
        """Order this context's operations to each PE."""
        _core.fence(self._h())

    def quiet(self) -> None:
        """Complete this context's outstanding operations."""
        _core.quiet(self._h())


CTX_DEFAULT = Ctx._from_handle(_core.CTX_DEFAULT)
CTX_INVALID = Ctx._from_handle(_core.CTX_INVALID)


def ctx_handle(ctx) -> int:
    """The handle to pass to _core: the default context for None."""
    if ctx is None:
        return _core.CTX_DEFAULT
    if isinstance(ctx, Ctx):
        return ctx._h()
    raise ShmemTypeError(-1, f"ctx must be a Ctx or None (got {type(ctx).__name__})")


def team_handle(team) -> int:
    """The handle to pass to _core: the world team for None."""
    if team is None:
        return _core.TEAM_WORLD
    if isinstance(team, Team):
        return team._h()
    raise ShmemTypeError(-1, f"team must be a Team or None (got {type(team).__name__})")

"""The class sessions' store: one SQL database shared by every server process.

By default a SQLite file ``class.db`` (WAL mode) in the app's own data folder,
``$FLDA_DATA_DIR`` (default ``~/.local/share/flda``; never the cache folder, which may be
emptied); ``FLDA_CLASS_DB_URL`` (any SQLAlchemy URL, e.g.
``postgresql+psycopg://flda:…@db-host/flda``) points every machine of a class at one
server.  The schema is made on first use (two processes may race to make it).  Nothing
runs on import: :func:`default_store` opens the database once per process.

Tables (defined below): ``classes`` (``version`` +1 on every lecturer change, ``tally`` +1
on every join, vote and seat removal), ``seats``, ``votes`` (one per seat, step and round),
``rounds`` (round 0 holds the step's correct choices), ``attempts`` (for the rate limits)
and ``meta`` (the device cookies' signing secret, the last incident).

Limits (environment variables ``FLDA_CLASS_<NAME>``, defaults in :data:`LIMITS`):
``MAX_CLASSES`` live classes per server, ``PER_STARTER`` live classes per lecturer and
``STARTS_PER_HOUR``, ``MAX_SEATS`` active seats per class (a seat is active while its
device followed in the last :data:`SEAT_ACTIVE_S`), ``DEVICES_PER_ADDRESS`` new devices
per client address and minute, wrong codes per minute ``WRONG_PER_DEVICE`` (past it that
device is refused, the right code too), ``WRONG_PER_ADDRESS`` and ``WRONG_PER_SERVER``
(past those only unknown codes are refused: a device with the right code still joins, so
a room behind one address is never locked out).

Faults end in :class:`ClassStoreError` (``StoreBusy``: try again; ``StoreUnavailable``),
never a traceback: SQLite waits at most 2 s for a lock, PostgreSQL connects within 3 s.
A running class expires after 24 h on the machine's monotonic clock (a wall-clock jump
neither ends nor deletes it); results stay 24 h after End.  A deleted or corrupted SQLite
file is noticed by every process (its inode changed), recreated once under a file lock
and reported by :meth:`ClassStore.incident`.
"""

from __future__ import annotations

import dataclasses
import fcntl
import json
import logging
import os
import secrets
import sqlite3
import threading
import time
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import Boolean, Column, Float, Integer, MetaData, String, Table, Text, create_engine, delete
from sqlalchemy import event, func, insert, or_, and_, select, update
from sqlalchemy.exc import IntegrityError, OperationalError, ProgrammingError, SQLAlchemyError

from explorer.classroom import codes, stages

LIFETIME_S = 24 * 3600  # a running class lives this long
GRACE_S = 24 * 3600  # an ended or expired class's results are kept this much longer
RATE_WINDOW_S = 60.0
SEAT_ACTIVE_S = 90.0
MAX_STEPS, MAX_CHOICES, MAX_VALUES_BYTES = 64, 12, 2048
#: What the projector may show over the slide (the lecturer's keys B, J, W, A): nothing,
#: a black-out, the join overlay (also the class's opening slide), "Why", "All numbers".
LAYERS = ("", "black", "join", "why", "numbers")
LIMITS = {
    "MAX_CLASSES": 200,
    "PER_STARTER": 3,
    "STARTS_PER_HOUR": 20,
    "MAX_SEATS": 400,
    "DEVICES_PER_ADDRESS": 60,
    "WRONG_PER_DEVICE": 8,
    "WRONG_PER_ADDRESS": 60,
    "WRONG_PER_SERVER": 600,
}
_log = logging.getLogger("flda.classroom")

metadata = MetaData()
meta = Table("meta", metadata, Column("name", String(32), primary_key=True), Column("value", Text))
classes = Table(
    "classes",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("code", String(16), nullable=False, unique=True),
    *(Column(name, String(64), nullable=False) for name in ("key_hash", "screen_hash")),
    Column("starter", String(64), nullable=False, index=True),
    Column("choices", String(200), nullable=False),
    *(Column(name, Integer, nullable=False, default=0) for name in ("step", "round", "version", "tally")),
    Column("rounds", Integer, nullable=False, default=2),
    *(Column(n, Boolean, nullable=False, default=False) for n in ("round_open", "revealed", "ended", "bars")),
    *(Column(name, Boolean, nullable=False, default=False) for name in ("live_counts", "early_round1")),
    Column("values_json", Text, nullable=False, default="{}"),
    Column("correct", String(64), nullable=False, default="[]"),
    Column("layer", String(16), nullable=False),
    *(Column(name, Float, nullable=False) for name in ("step_started", "created", "expires", "expires_mono")),
    Column("boot", String(40), nullable=False),
)
seats = Table(
    "seats",
    metadata,
    Column("class_id", Integer, primary_key=True),
    Column("device", String(64), primary_key=True),
    Column("seat", String(16), nullable=False),
    *(Column(name, Float, nullable=False) for name in ("joined", "seen")),
)
votes = Table(
    "votes",
    metadata,
    *(Column(name, Integer, primary_key=True) for name in ("class_id", "step", "round")),
    Column("device", String(64), primary_key=True),
    Column("choice", Integer, nullable=False),
    Column("at", Float, nullable=False),
)
rounds = Table(
    "rounds",
    metadata,
    *(Column(name, Integer, primary_key=True) for name in ("class_id", "step", "round")),
    *(Column(name, Float) for name in ("opened", "closed")),
    Column("correct", String(64)),
)
attempts = Table(
    "attempts",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("client", String(64), nullable=False, index=True),
    Column("at", Float, nullable=False),
)
_LISTENERS = []


def on_change(listener):
    """Call ``listener(code)`` after every committed change of a class in this process
    (the routes wake the class's waiting students with it)."""
    _LISTENERS.append(listener)


def limit(name):
    """The limit ``name`` of :data:`LIMITS`, or its ``FLDA_CLASS_<name>`` override."""
    return int(os.environ.get(f"FLDA_CLASS_{name}", LIMITS[name]))


def _where(table, **equal):
    """``table``'s rows whose columns equal ``equal`` (a where clause)."""
    return [table.c[name] == value for name, value in equal.items()]


def _choices(row):
    """The number of choices of each step of a class's row."""
    return [int(n) for n in row["choices"].split(",")]


class ClassStoreError(RuntimeError):
    """A fault of the class store, said for a user (details are logged)."""


class StoreBusy(ClassStoreError):
    """The store is busy: try again in a moment."""


class StoreUnavailable(ClassStoreError):
    """The store cannot be used now."""


class NotAllowed(PermissionError):
    """An action its sender may not take (no lecturer key, a limit reached, ended class)."""


@dataclasses.dataclass(frozen=True)
class ClassState:
    """One class as its followers see it (``live``: neither ended nor expired)."""

    code: str
    n_steps: int
    step: int
    round: int
    round_open: bool
    revealed: bool
    ended: bool
    rounds: int
    live_counts: bool
    early_round1: bool
    bars: bool
    values: dict
    correct: tuple
    n_choices: int
    step_started: float
    started: float
    expires: float
    version: int
    tally: int
    live: bool
    layer: str = ""

    def page_key(self):
        """What the projector's page is drawn from: every field but the tally and clocks."""
        drawn = dataclasses.asdict(self)
        for name in ("version", "tally", "step_started", "started", "expires", "live"):
            del drawn[name]
        return json.dumps(drawn, sort_keys=True)


def database_url():
    """``FLDA_CLASS_DB_URL``, else ``sqlite:///$FLDA_DATA_DIR/class.db``."""
    url = os.environ.get("FLDA_CLASS_DB_URL", "").strip()
    folder = Path(os.environ.get("FLDA_DATA_DIR") or Path.home() / ".local" / "share" / "flda")
    return url or f"sqlite:///{folder / 'class.db'}"


def _boot_id():
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()[:40]
    except OSError:
        return ""


def _engine(url):
    if not url.startswith("sqlite"):
        pg = {"connect_timeout": 3, "tcp_user_timeout": 5000} if url.startswith("postgresql") else {}
        return create_engine(url, pool_pre_ping=True, pool_size=5, pool_timeout=3, connect_args=pg)
    engine = create_engine(url, connect_args={"timeout": 2, "check_same_thread": False})

    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection, _record):
        dbapi_connection.isolation_level = None  # BEGIN is ours (SQLAlchemy's SQLite recipe)
        for pragma in ("journal_mode=WAL", "synchronous=NORMAL", "busy_timeout=2000"):
            dbapi_connection.execute(f"PRAGMA {pragma}")

    @event.listens_for(engine, "begin")
    def _begin(connection):
        readonly = connection.get_execution_options().get("flda_readonly", False)
        connection.exec_driver_sql("BEGIN" if readonly else "BEGIN IMMEDIATE")

    return engine


class ClassStore:
    """The class sessions (see the module docstring).

    Parameters
    ----------
    url : str, optional
        A SQLAlchemy URL; default :func:`database_url`.
    clock, monotonic : callable, optional
        Wall-clock and monotonic seconds (tests pass their own).
    boot : str, optional
        This boot's id (``/proc/sys/kernel/random/boot_id``): a class made in the same boot
        expires on the monotonic clock, one made in another on the wall clock.
    """

    def __init__(self, url=None, clock=time.time, monotonic=time.monotonic, boot=None):
        self.url = url or database_url()
        self.clock, self.monotonic = clock, monotonic
        self.boot = _boot_id() if boot is None else boot
        file = self.url.split("///", 1)[1] if self.url.startswith("sqlite:///") else ""
        self.path = Path(file) if file and file != ":memory:" else None
        if self.path:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self.engine = _engine(self.url)
        self._sqlite = self.engine.dialect.name == "sqlite"
        self._checked, self._secret, self._inode = 0.0, None, None
        try:
            self._make_schema()
        except (SQLAlchemyError, sqlite3.Error, OSError) as error:
            raise self._fault(error) from None

    # ------------------------------------------------------------------ plumbing
    def _make_schema(self):
        """Make the tables and the signing secret unless there; True if it made them."""
        for attempt in range(6):  # another process may be making them at this moment
            try:
                metadata.create_all(self.engine, checkfirst=True)
                with self.engine.begin() as conn:
                    made = conn.execute(select(meta.c.name).where(meta.c.name == "secret")).first() is None
                    if made:
                        conn.execute(insert(meta).values(name="secret", value=secrets.token_hex(32)))
                break
            except (OperationalError, IntegrityError, ProgrammingError):
                if attempt == 5:
                    raise
                time.sleep(0.05 * (attempt + 1))
        self._inode = self._file_id()
        return made

    def _file_id(self):
        try:
            stat = os.stat(self.path)
            return stat.st_dev, stat.st_ino
        except (OSError, TypeError):
            return None

    @contextmanager
    def _tx(self, write=True):
        """A transaction (``BEGIN IMMEDIATE`` on SQLite for writes); faults mapped."""
        try:
            if self.path and self.monotonic() - self._checked > 0.5:
                self._checked = self.monotonic()
                if self._file_id() != self._inode:
                    self._recover()
            if write:
                with self.engine.begin() as conn:
                    yield conn
            else:
                with self.engine.connect().execution_options(flda_readonly=True) as conn:
                    yield conn
        except NotAllowed:
            raise
        except (SQLAlchemyError, sqlite3.Error, OSError) as error:
            raise self._fault(error) from None

    def _fault(self, error):
        text = str(getattr(error, "orig", error)).lower()
        _log.warning("class store: %s", text[:300])
        if "locked" in text or "busy" in text or "queuepool" in text:
            return StoreBusy("The class store is busy: try again in a moment.")
        if self.path and any(s in text for s in ("not a database", "malformed", "no such table")):
            try:
                self._recover(damaged=True)
            except Exception:
                _log.exception("class store: recreating the database failed")
            return StoreUnavailable(self.incident() or "The class store was recreated: try again.")
        return StoreUnavailable("The class store cannot be reached now: try again in a minute.")

    def _recover(self, damaged=False):
        """Recreate a deleted or damaged SQLite file once (the first process to take the file
        lock moves a damaged one aside); whoever made the new schema writes the incident."""
        with open(f"{self.path}.lock", "a+") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            self.engine.dispose()
            current = self._file_id()
            if current is None or (damaged and current == self._inode):
                stamp = int(self.clock())
                for suffix in ("", "-wal", "-shm"):
                    if Path(f"{self.path}{suffix}").exists():
                        Path(f"{self.path}{suffix}").replace(f"{self.path}.lost-{stamp}{suffix}")
            if self._make_schema():
                note = (
                    f"The class database was {'damaged' if damaged else 'deleted'} and has been "
                    f"recreated at {time.ctime(self.clock())}: classes running before are lost."
                )
                with self.engine.begin() as conn:
                    conn.execute(insert(meta).values(name="incident", value=note))
        self._secret = None

    def _meta(self, name):
        with self._tx(write=False) as conn:
            return conn.execute(select(meta.c.value).where(meta.c.name == name)).scalar()

    def incident(self):
        """What went wrong with the store and was repaired (for the presenter), or None."""
        try:
            return self._meta("incident")
        except ClassStoreError:
            return None

    def secret(self):
        """The secret the device cookies are signed with (shared by every process)."""
        if self._secret is None:
            self._secret = bytes.fromhex(self._meta("secret"))
        return self._secret

    def _live_sql(self, grace=0.0):
        """SQL: the class has not expired (``grace`` seconds ago) on the right clock."""
        same = and_(classes.c.boot == self.boot, classes.c.expires_mono > self.monotonic() - grace)
        return or_(same, and_(classes.c.boot != self.boot, classes.c.expires > self.clock() - grace))

    def _expired(self, row):
        if row["boot"] == self.boot:
            return row["expires_mono"] <= self.monotonic()
        return row["expires"] <= self.clock()

    def _row(self, conn, code, lock=False):
        """The class's row (None for a code that is none or unknown)."""
        query = select(classes).where(classes.c.code == codes.normalize_code(code))
        query = query.with_for_update() if lock and not self._sqlite else query
        return conn.execute(query).mappings().first() if codes.normalize_code(code) else None

    def _lecturer_row(self, conn, code, key, lock=False):
        row = self._row(conn, code, lock)
        if row is None or not codes.key_matches(key, row["key_hash"]):
            raise NotAllowed("Only the lecturer's presenter link can do this.")
        return row

    def _set(self, conn, row, **values):
        conn.execute(update(classes).where(classes.c.id == row["id"]).values(**values))

    def _state(self, row):
        n = _choices(row)
        state = {f.name: row[f.name] for f in dataclasses.fields(ClassState) if f.name in row}
        state.update(n_steps=len(n), values=json.loads(row["values_json"]), n_choices=n[row["step"]])
        state.update(correct=tuple(json.loads(row["correct"])), started=row["created"])
        return ClassState(**state, live=not row["ended"] and not self._expired(row))

    def _count(self, conn, table, *where):
        return conn.execute(select(func.count()).select_from(table).where(*where)).scalar()

    def _over(self, conn, client, name, now):
        """Whether ``client`` made :func:`limit` ``name`` attempts within the window."""
        mine = attempts.c.client == codes.token_hash(client, name)
        return self._count(conn, attempts, mine, attempts.c.at > now - RATE_WINDOW_S) >= limit(name)

    def _changed(self, code):
        for listener in _LISTENERS:
            try:
                listener(code)
            except Exception:  # a listener never breaks a write that happened
                _log.exception("class change listener")

    # ------------------------------------------------------------------ classes
    def create_class(self, choices, starter, layer=""):
        """A new class at step 0; ``choices``: the number of choices of each step (0: no
        question).  Returns ``(code, key)`` (only the key's hash is stored).
        ``NotAllowed`` past the server's or the starter's limits."""
        choices = [int(n) for n in choices]
        if not 1 <= len(choices) <= MAX_STEPS or not all(0 <= n <= MAX_CHOICES for n in choices):
            raise ValueError(f"a class has 1-{MAX_STEPS} steps of 0-{MAX_CHOICES} choices")
        now, mono, key = self.clock(), self.monotonic(), codes.new_key()
        starter = codes.token_hash(starter, "starter")
        with self._tx() as conn:
            gone = select(classes.c.id).where(~self._live_sql(GRACE_S))
            for table in (votes, seats, rounds):
                conn.execute(delete(table).where(table.c.class_id.in_(gone)))
            conn.execute(delete(classes).where(~self._live_sql(GRACE_S)))
            conn.execute(delete(attempts).where(attempts.c.at < now - RATE_WINDOW_S))
            live, mine = (self._live_sql(), ~classes.c.ended), classes.c.starter == starter
            last_hour = (mine, classes.c.created > now - 3600)
            for where, name, why in (
                (live, "MAX_CLASSES", "This server runs as many classes as it may: try again later."),
                ((mine, *live), "PER_STARTER", "You have as many classes running as you may: end one first."),
                (last_hour, "STARTS_PER_HOUR", "You started many classes in the last hour: try again later."),
            ):
                if self._count(conn, classes, *where) >= limit(name):
                    raise NotAllowed(why)
            code = next(c for c in iter(codes.new_code, None) if self._row(conn, c) is None)
            conn.execute(
                insert(classes).values(
                    code=code,
                    key_hash=codes.token_hash(key),
                    screen_hash=codes.token_hash(codes.screen_token(key), "screen"),
                    starter=starter,
                    choices=",".join(map(str, choices)),
                    layer=layer if layer in LAYERS else "",
                    step_started=now,
                    created=now,
                    expires=now + LIFETIME_S,
                    expires_mono=mono + LIFETIME_S,
                    boot=self.boot,
                )
            )
        return code, key

    def state(self, code):
        """The class's :class:`ClassState`, or None for an unknown (or purged) code."""
        with self._tx(write=False) as conn:
            row = self._row(conn, code)
        return None if row is None else self._state(row)

    def is_lecturer(self, code, key, purpose="key"):
        """Whether ``key`` is the lecturer key (``purpose="screen"``: the screen token)."""
        if not codes.normalize_code(code) or not codes.valid_token(key):
            return False
        with self._tx(write=False) as conn:
            row = self._row(conn, code)
        return row is not None and codes.key_matches(key, row[f"{purpose}_hash"], purpose)

    def my_classes(self, starter):
        """The classes ``starter`` started that are still kept, newest first."""
        mine = select(classes).where(classes.c.starter == codes.token_hash(starter, "starter"))
        with self._tx(write=False) as conn:
            rows = conn.execute(mine.order_by(classes.c.created.desc(), classes.c.id.desc())).mappings()
            return [self._state(row) for row in rows]

    # -------------------------------------------------------------- the lecturer
    def steer(self, code, key, action, value=None):
        """One lecturer action (see the design in :mod:`explorer.classroom.stages`):
        ``"advance"``, ``"undo"``, ``"goto"`` (step), ``"bars"``, ``"live_counts"``,
        ``"early_round1"`` (bools), ``"rounds"`` (1 or 2), ``"values"`` (a dict of at most
        2 KB as JSON), ``"correct"`` (choice indices of the current step), ``"layer"`` (what
        the projector shows over the slide, :data:`LAYERS`; a class opens on its join
        slide, and advance or undo first clears a layer) or ``"end"``.
        Returns the new :class:`ClassState`; ``NotAllowed`` without the key or after End,
        ``ValueError`` for a value out of range."""
        now = self.clock()
        with self._tx() as conn:
            row = self._lecturer_row(conn, code, key, lock=True)
            if row["ended"] or self._expired(row):
                raise NotAllowed("This class has ended.")
            changes = self._change(row, action, value)
            if changes.get("step", row["step"]) != row["step"]:  # the new step's correct choices, kept
                kept = _where(rounds, class_id=row["id"], step=changes["step"], round=0)
                correct = conn.execute(select(rounds.c.correct).where(*kept)).scalar() or "[]"
                changes.update(step_started=now, correct=correct)
            # when a round first opens, and when it closes
            after = (changes.get("step", row["step"]), changes.get("round", row["round"]))
            stays = after == (row["step"], row["round"]) and changes.get("round_open", row["round_open"])
            if row["round_open"] and not stays:
                self._mark(conn, row["id"], row["step"], row["round"], closed=now)
            if changes.get("round_open") and not (row["round_open"] and stays):
                self._mark(conn, row["id"], *after, opened=func.coalesce(rounds.c.opened, now), closed=None)
            if "values" in changes:
                changes["values_json"] = json.dumps(changes.pop("values"), sort_keys=True)
            if action == "correct":
                self._mark(conn, row["id"], row["step"], 0, correct=changes["correct"])
            self._set(conn, row, version=row["version"] + 1, **changes)
            new = self._row(conn, code)
        self._changed(new["code"])
        return self._state(new)

    def _change(self, row, action, value):
        """The columns ``action`` changes (``ValueError`` for a value out of range)."""
        choices = _choices(row)
        if action in ("advance", "undo"):
            if row["layer"]:  # a key first wakes the screen (the join slide, a black-out)
                return {"layer": ""}
            if action == "undo" and row["step"] == 0 and not row["round"] and not row["revealed"]:
                return {"layer": "join"}  # back to the opening join slide
            return getattr(stages, action)({**row, "n_steps": len(choices)}, [n > 0 for n in choices])
        if action == "end":
            return dict(ended=True, round_open=False, expires=self.clock(), expires_mono=self.monotonic())
        if action == "goto":
            to = int(value)
            if not 0 <= to < len(choices):
                raise ValueError(f"step {to} is not one of 0-{len(choices) - 1}")
            return {"step": to, "values": {}, **stages.IDLE} if to != row["step"] else {}
        n = choices[row["step"]]
        valid = {
            "layer": value in LAYERS,
            **dict.fromkeys(("bars", "live_counts", "early_round1"), isinstance(value, bool)),
            "rounds": value in (1, 2),
            "values": isinstance(value, dict) and len(json.dumps(value)) <= MAX_VALUES_BYTES,
            "correct": isinstance(value, list | tuple)
            and all(isinstance(c, int) and 0 <= c < n for c in value),
        }
        if not valid.get(action):
            raise ValueError(f"{action!r} is not an action, or not with this value")
        return {action: json.dumps(sorted(set(value))) if action == "correct" else value}

    def _mark(self, conn, class_id, step, round_, **values):
        where = _where(rounds, class_id=class_id, step=step, round=round_)
        if conn.execute(select(rounds.c.round).where(*where)).first() is None:
            conn.execute(insert(rounds).values(class_id=class_id, step=step, round=round_))
        conn.execute(update(rounds).where(*where).values(**values))

    # ---------------------------------------------------------------- devices, seats
    def new_device(self, address):
        """A signed device cookie for a browser at ``address``, or None when that address
        made :func:`limit` ``DEVICES_PER_ADDRESS`` devices within the minute."""
        now = self.clock()
        with self._tx() as conn:
            if self._over(conn, address, "DEVICES_PER_ADDRESS", now):
                return None
            conn.execute(
                insert(attempts).values(client=codes.token_hash(address, "DEVICES_PER_ADDRESS"), at=now)
            )
        return codes.new_device(self.secret())

    def _seen(self, conn, row, device, now):
        """Note that ``device`` (hash) was seen in the class now; False when it has no seat."""
        where = _where(seats, class_id=row["id"], device=device)
        return bool(conn.execute(update(seats).where(*where).values(seen=now)).rowcount)

    def join(self, code_text, device, address):
        """A device joins (takes a seat): ``"ok"``, ``"unknown"``, ``"ended"``, ``"full"``
        or ``"rate-limited"`` (see the module docstring's limits); ``"bad-device"`` for a
        cookie this store did not sign."""
        if not codes.device_ok(device, self.secret()):
            return "bad-device"
        now, me = self.clock(), codes.token_hash(device, "device")
        with self._tx() as conn:
            if self._over(conn, me, "WRONG_PER_DEVICE", now):
                return "rate-limited"
            row = self._row(conn, code_text, lock=True)
            if row is None:
                crowd = ((address, "WRONG_PER_ADDRESS"), ("server", "WRONG_PER_SERVER"))
                limited = any(self._over(conn, who, name, now) for who, name in crowd)
                for who, name in ((me, "WRONG_PER_DEVICE"), *crowd):
                    conn.execute(insert(attempts).values(client=codes.token_hash(who, name), at=now))
                return "rate-limited" if limited else "unknown"
            if row["ended"] or self._expired(row):
                return "ended"
            if self._seen(conn, row, me, now):
                return "ok"
            active = (seats.c.class_id == row["id"], seats.c.seen > now - SEAT_ACTIVE_S)
            if self._count(conn, seats, *active) >= limit("MAX_SEATS"):
                return "full"
            seat = {"seat": codes.new_code(8), "joined": now, "seen": now}
            conn.execute(insert(seats).values(class_id=row["id"], device=me, **seat))
            self._set(conn, row, tally=classes.c.tally + 1)
        self._changed(row["code"])
        return "ok"

    def has_seat(self, code, device):
        """Whether ``device`` (the cookie) holds a seat in the class ``code``."""
        if not codes.device_ok(device, self.secret()):
            return False
        with self._tx(write=False) as conn:
            where = _where(seats, class_id=self._class_id(code), device=codes.token_hash(device, "device"))
            return conn.execute(select(seats.c.seat).where(*where)).first() is not None

    def touch(self, code, devices):
        """Note that these devices (hashes, as :meth:`roster` gives) followed just now."""
        if devices:
            with self._tx() as conn:
                where = (seats.c.class_id == self._class_id(code), seats.c.device.in_(list(devices)))
                conn.execute(update(seats).where(*where).values(seen=self.clock()))

    def _class_id(self, code):
        return select(classes.c.id).where(classes.c.code == code).scalar_subquery()

    def roster(self, code, step):
        """``(seated device hashes, [(round, device hash, choice)] of step)``: what a
        process's watcher keeps of a class to answer its followers."""
        with self._tx(write=False) as conn:
            class_id = self._class_id(code)
            seated = set(conn.execute(select(seats.c.device).where(seats.c.class_id == class_id)).scalars())
            query = select(votes.c.round, votes.c.device, votes.c.choice)
            ballots = conn.execute(query.where(votes.c.class_id == class_id, votes.c.step == step)).all()
        return seated, [tuple(b) for b in ballots]

    def seats(self, code, key):
        """The class's seats for the lecturer: ``[{"seat", "joined", "seen", "votes"}]``."""
        with self._tx(write=False) as conn:
            row = self._lecturer_row(conn, code, key)
            n = select(func.count()).where(votes.c.class_id == row["id"], votes.c.device == seats.c.device)
            query = select(seats.c.seat, seats.c.joined, seats.c.seen, n.scalar_subquery().label("votes"))
            found = conn.execute(query.where(seats.c.class_id == row["id"]).order_by(seats.c.joined))
            return [dict(r) for r in found.mappings()]

    def remove_seat(self, code, key, seat):
        """Remove one seat (its votes leave the counts); False when there is no such seat."""
        with self._tx() as conn:
            row = self._lecturer_row(conn, code, key, lock=True)
            where = _where(seats, class_id=row["id"], seat=str(seat)[:16])
            device = conn.execute(select(seats.c.device).where(*where)).scalar()
            if device is None:
                return False
            conn.execute(delete(votes).where(*_where(votes, class_id=row["id"], device=device)))
            conn.execute(delete(seats).where(*where))
            self._set(conn, row, tally=classes.c.tally + 1)
        self._changed(row["code"])
        return True

    # ------------------------------------------------------------------- votes
    def vote(self, code, device, choice):
        """A device's vote for ``choice`` (0-based) in the open round of the class's current
        step: ``"counted"``, ``"changed"`` (replaces its vote of this round) or why not:
        ``"closed"``, ``"not-joined"``, ``"bad-choice"``, ``"unknown"``."""
        if not codes.device_ok(device, self.secret()):
            return "not-joined"
        now, me = self.clock(), codes.token_hash(device, "device")
        with self._tx() as conn:
            row = self._row(conn, code, lock=True)
            if row is None:
                return "unknown"
            if not row["round_open"] or row["ended"] or self._expired(row):
                return "closed"
            if not self._seen(conn, row, me, now):
                return "not-joined"
            if not (type(choice) is int and 0 <= choice < _choices(row)[row["step"]]):
                return "bad-choice"
            ballot = {"class_id": row["id"], "step": row["step"], "round": row["round"], "device": me}
            update_vote = update(votes).where(*_where(votes, **ballot)).values(choice=choice, at=now)
            changed = conn.execute(update_vote).rowcount
            if not changed:
                conn.execute(insert(votes).values(**ballot, choice=choice, at=now))
            self._set(conn, row, tally=classes.c.tally + 1)
        self._changed(row["code"])
        return "changed" if changed else "counted"

    def counts(self, code, step):
        """``{round: {choice: votes}}`` of one step of the class."""
        out = {}
        for round_, _, choice in self.roster(code, step)[1]:
            out.setdefault(round_, {}).setdefault(choice, 0)
            out[round_][choice] += 1
        return out

    def results(self, code, key):
        """Every step's rounds for the lecturer, while the class is kept (24 h after End):
        ``[{"step", "round", "correct", "counts": {choice: votes}, "opened", "closed"}]``."""
        with self._tx(write=False) as conn:
            row = self._lecturer_row(conn, code, key)
            marks = conn.execute(select(rounds).where(rounds.c.class_id == row["id"])).mappings().all()
            group = (votes.c.step, votes.c.round, votes.c.choice)
            tallied = conn.execute(
                select(*group, func.count()).where(votes.c.class_id == row["id"]).group_by(*group)
            )
            counted = {}
            for step, round_, choice, n in tallied:
                counted.setdefault((step, round_), {})[choice] = n
        times = {(m["step"], m["round"]): m for m in marks}
        correct = {m["step"]: json.loads(m["correct"] or "[]") for m in marks if m["round"] == 0}
        return [
            {
                "step": step,
                "round": round_,
                "correct": correct.get(step, []),
                "counts": dict(sorted(counted.get((step, round_), {}).items())),
                **{name: times.get((step, round_), {}).get(name) for name in ("opened", "closed")},
            }
            for step, round_ in sorted({k for k in times if k[1] > 0} | set(counted))
        ]


_DEFAULT = {}
_DEFAULT_LOCK = threading.Lock()


def default_store():
    """The process's :class:`ClassStore` at :func:`database_url` (made on first use)."""
    url = database_url()
    with _DEFAULT_LOCK:
        if url not in _DEFAULT:
            _DEFAULT[url] = ClassStore(url)
        return _DEFAULT[url]

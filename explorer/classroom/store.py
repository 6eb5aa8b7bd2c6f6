"""The class sessions' store: one SQL database shared by every server process.

By default a SQLite file ``class.db`` in the cache folder (``$FLDA_CACHE_DIR``, else
``~/.cache/flda``) in WAL mode; ``FLDA_CLASS_DB_URL`` (any SQLAlchemy URL, e.g.
``postgresql+psycopg://flda:…@db-host/flda``) points every machine of a class at one
server.  The schema is made on first use.  Nothing here runs until a page is in a
class: importing this module opens no database (:func:`default_store` does, once).

Tables
------
``classes``
    one row per class: the join code (unique), the lecturer key's hash, the step, the
    round (0 before the first vote, then 1 and 2), whether it is open, whether counts
    show while it is open, whether the step is revealed, when the step started (the
    presenter's timer), created / expires (24 h) and a ``version`` that every
    lecturer action increments (what followers poll).
``students``
    who joined (class, the hash of the browser's random id): bounds the class size.
``votes``
    primary key (class, step, round, student): one vote per student per round is the
    database's job; a vote changed while its round is open replaces the old one.
``solves``
    primary key (class, step, student): one solved exercise per student and step.
``attempts``
    wrong join codes per client (hashed), so the rate limit holds across processes.

Writes run in ``BEGIN IMMEDIATE`` transactions on SQLite (one writer at a time,
readers never blocked in WAL mode) and lock the class row (``SELECT … FOR UPDATE``)
elsewhere, so a vote and the lecturer closing its round never interleave.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import (
    Boolean,
    Column,
    Float,
    Integer,
    MetaData,
    String,
    Table,
    create_engine,
    delete,
    event,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError, OperationalError

from explorer.classroom import codes

__all__ = [
    "ClassState",
    "ClassStore",
    "NotAllowed",
    "JOIN_OK",
    "JOIN_UNKNOWN",
    "JOIN_EXPIRED",
    "JOIN_FULL",
    "JOIN_RATE_LIMITED",
    "JOIN_BAD_ID",
    "LIFETIME_S",
    "MAX_CLASSES",
    "MAX_STUDENTS",
    "MAX_STEPS",
    "MAX_CHOICES",
    "WRONG_CODES_PER_MINUTE",
    "database_url",
    "default_store",
]

#: A class lives this long (seconds) after it was started.
LIFETIME_S = 24 * 3600
#: An expired class is kept (read-only, "expired" to a late joiner) this much longer.
GRACE_S = 24 * 3600
#: Bounds, enforced at insert.
MAX_CLASSES = 200
MAX_STUDENTS = 400
MAX_STEPS = 64
MAX_CHOICES = 12
ROUNDS = (1, 2)
#: Wrong join codes a client may send per minute (per browser; an address gets
#: :data:`WRONG_CODES_PER_ADDRESS`, since a room may share one).
WRONG_CODES_PER_MINUTE = 8
WRONG_CODES_PER_ADDRESS = 60
RATE_WINDOW_S = 60.0

JOIN_OK = "ok"
JOIN_UNKNOWN = "unknown"
JOIN_EXPIRED = "expired"
JOIN_FULL = "full"
JOIN_RATE_LIMITED = "rate-limited"
JOIN_BAD_ID = "bad-id"

metadata = MetaData()
classes = Table(
    "classes",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("code", String(16), nullable=False, unique=True),
    Column("key_hash", String(64), nullable=False),
    Column("n_steps", Integer, nullable=False),
    Column("step", Integer, nullable=False, default=0),
    Column("round", Integer, nullable=False, default=0),
    Column("round_open", Boolean, nullable=False, default=False),
    Column("counts_visible", Boolean, nullable=False, default=True),
    Column("revealed", Boolean, nullable=False, default=False),
    Column("ended", Boolean, nullable=False, default=False),
    Column("step_started", Float, nullable=False),
    Column("created", Float, nullable=False),
    Column("expires", Float, nullable=False, index=True),
    Column("version", Integer, nullable=False, default=0),
)
students = Table(
    "students",
    metadata,
    Column("class_id", Integer, primary_key=True),
    Column("student", String(64), primary_key=True),
    Column("joined", Float, nullable=False),
)
votes = Table(
    "votes",
    metadata,
    Column("class_id", Integer, primary_key=True),
    Column("step", Integer, primary_key=True),
    Column("round", Integer, primary_key=True),
    Column("student", String(64), primary_key=True),
    Column("choice", Integer, nullable=False),
    Column("at", Float, nullable=False),
)
solves = Table(
    "solves",
    metadata,
    Column("class_id", Integer, primary_key=True),
    Column("step", Integer, primary_key=True),
    Column("student", String(64), primary_key=True),
    Column("at", Float, nullable=False),
)
attempts = Table(
    "attempts",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("client", String(64), nullable=False, index=True),
    Column("at", Float, nullable=False),
)


class NotAllowed(PermissionError):
    """A lecturer action without the lecturer's key (or on an expired class)."""


@dataclass(frozen=True)
class ClassState:
    """What the followers need of a class (one small row)."""

    code: str
    n_steps: int
    step: int
    round: int
    round_open: bool
    counts_visible: bool
    revealed: bool
    ended: bool
    step_started: float
    expires: float
    version: int

    def page_key(self):
        """What a follower's page is drawn from: when it changes, the page reruns (a
        vote count changing does not change it)."""
        return (self.step, self.round, self.round_open, self.counts_visible, self.revealed, self.ended)


_STATE_COLUMNS = (
    classes.c.code,
    classes.c.n_steps,
    classes.c.step,
    classes.c.round,
    classes.c.round_open,
    classes.c.counts_visible,
    classes.c.revealed,
    classes.c.ended,
    classes.c.step_started,
    classes.c.expires,
    classes.c.version,
)


def database_url(cache_dir=None):
    """``FLDA_CLASS_DB_URL``, else ``sqlite:///<cache folder>/class.db``."""
    url = os.environ.get("FLDA_CLASS_DB_URL", "").strip()
    if url:
        return url
    folder = Path(cache_dir or os.environ.get("FLDA_CACHE_DIR") or Path.home() / ".cache" / "flda")
    return f"sqlite:///{folder / 'class.db'}"


def _sqlite_engine(url):
    path = url.split("///", 1)[1]
    if path and path != ":memory:":
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url, connect_args={"timeout": 30, "check_same_thread": False})

    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection, _record):
        # pysqlite's own transaction handling off: BEGIN is emitted below (SQLAlchemy's
        # documented recipe for SQLite transactions).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA busy_timeout=30000")
        cursor.close()

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
    clock : callable, optional
        Seconds since the epoch (tests pass their own to check expiry).
    """

    def __init__(self, url=None, clock=time.time):
        self.url = url or database_url()
        self.clock = clock
        if self.url.startswith("sqlite"):
            self.engine = _sqlite_engine(self.url)
        else:
            self.engine = create_engine(self.url, pool_pre_ping=True, pool_size=5, max_overflow=10)
        self._sqlite = self.engine.dialect.name == "sqlite"
        self._make_schema()

    def _make_schema(self):
        for attempt in range(5):  # two processes may make it at once
            try:
                metadata.create_all(self.engine, checkfirst=True)
                return
            except OperationalError:
                if attempt == 4:
                    raise
                time.sleep(0.1 * (attempt + 1))

    # ----------------------------------------------------------------- helpers
    def _write(self):
        return self.engine.begin()

    def _read(self):
        return self.engine.connect().execution_options(flda_readonly=True)

    def _row(self, conn, code, lock=False):
        query = select(classes).where(classes.c.code == code)
        if lock and not self._sqlite:
            query = query.with_for_update()
        return conn.execute(query).mappings().first()

    @staticmethod
    def _member(conn, class_id, student):
        """Whether the (hashed) ``student`` joined the class ``class_id``."""
        where = (students.c.class_id == class_id, students.c.student == student)
        return conn.execute(select(students.c.student).where(*where)).first() is not None

    @staticmethod
    def _state(row):
        return ClassState(**{c.name: row[c.name] for c in _STATE_COLUMNS})

    # ----------------------------------------------------------------- classes
    def create_class(self, n_steps):
        """A new class at step 0: returns ``(code, key)`` (the key is not stored, only its
        hash).  Removes classes expired more than a day ago; ``RuntimeError`` when
        :data:`MAX_CLASSES` live classes exist."""
        if not 1 <= int(n_steps) <= MAX_STEPS:
            raise ValueError(f"a class has 1-{MAX_STEPS} steps, not {n_steps}")
        now = self.clock()
        key = codes.new_key()
        with self._write() as conn:
            self._purge(conn, now)
            live = conn.execute(
                select(func.count()).select_from(classes).where(classes.c.expires > now)
            ).scalar()
            if live >= MAX_CLASSES:
                raise RuntimeError(
                    f"{live} classes are running on this server (at most {MAX_CLASSES}); "
                    "end one or wait until one expires."
                )
            for _ in range(20):
                code = codes.new_code()
                if self._row(conn, code) is None:
                    break
            else:  # pragma: no cover - 31**6 codes
                raise RuntimeError("no free join code")
            conn.execute(
                insert(classes).values(
                    code=code,
                    key_hash=codes.key_hash(key),
                    n_steps=int(n_steps),
                    step=0,
                    round=0,
                    round_open=False,
                    counts_visible=True,
                    revealed=False,
                    ended=False,
                    step_started=now,
                    created=now,
                    expires=now + LIFETIME_S,
                    version=0,
                )
            )
        return code, key

    def _purge(self, conn, now):
        old = [r.id for r in conn.execute(select(classes.c.id).where(classes.c.expires < now - GRACE_S))]
        if old:
            for table in (votes, solves, students):
                conn.execute(delete(table).where(table.c.class_id.in_(old)))
            conn.execute(delete(classes).where(classes.c.id.in_(old)))
        conn.execute(delete(attempts).where(attempts.c.at < now - RATE_WINDOW_S))

    def state(self, code):
        """The class's :class:`ClassState` (one indexed row), or None for an unknown code.
        An expired class is returned too (``expires`` says so); see :meth:`is_live`."""
        code = codes.normalize_code(code)
        if not code:
            return None
        with self._read() as conn:
            row = conn.execute(select(*_STATE_COLUMNS).where(classes.c.code == code)).mappings().first()
        return None if row is None else self._state(row)

    def is_live(self, state):
        """Whether a class (its :class:`ClassState`) has neither ended nor expired."""
        return state is not None and not state.ended and state.expires > self.clock()

    def is_lecturer(self, code, key):
        """Whether ``key`` is the lecturer key of the class ``code``."""
        code = codes.normalize_code(code)
        if not code:
            return False
        with self._read() as conn:
            row = conn.execute(select(classes.c.key_hash).where(classes.c.code == code)).first()
        return row is not None and codes.key_matches(key, row.key_hash)

    # ------------------------------------------------------------- the lecturer
    def steer(self, code, key, action, value=None):
        """One lecturer action on the class ``code``; returns the new :class:`ClassState`.

        ``action``: ``"open"`` (round ``value``, 1 or 2: opening round 2 needs round 1
        held), ``"close"``, ``"counts"`` (``value``: show counts while a round is open),
        ``"reveal"``, ``"next"``, ``"back"``, ``"goto"`` (step ``value``) or ``"end"``.
        Moving to another step closes the round and starts the step's timer.
        ``NotAllowed`` without the lecturer's key or on an ended/expired class.
        """
        code = codes.normalize_code(code)
        now = self.clock()
        with self._write() as conn:
            row = self._row(conn, code, lock=True) if code else None
            if row is None or not codes.key_matches(key, row["key_hash"]):
                raise NotAllowed("Only the lecturer's presenter link can steer this class.")
            if row["ended"] or row["expires"] <= now:
                raise NotAllowed("This class has ended.")
            changes = self._change(row, action, value, now)
            changes["version"] = row["version"] + 1
            conn.execute(update(classes).where(classes.c.id == row["id"]).values(**changes))
            new = self._row(conn, code)
        return self._state(new)

    @staticmethod
    def _change(row, action, value, now):
        step, last = row["step"], row["n_steps"] - 1

        def move(to):
            to = max(0, min(last, int(to)))
            if to == step:
                return {}
            return {"step": to, "round": 0, "round_open": False, "revealed": False, "step_started": now}

        if action == "open":
            wanted = int(value or 1)
            if wanted not in ROUNDS or (wanted == 2 and row["round"] < 1):
                raise ValueError("open round 1 first, then round 2")
            return {"round": wanted, "round_open": True}
        if action == "close":
            return {"round_open": False}
        if action == "counts":
            return {"counts_visible": bool(value)}
        if action == "reveal":
            return {"revealed": True, "round_open": False}
        if action == "next":
            return move(step + 1)
        if action == "back":
            return move(step - 1)
        if action == "goto":
            return move(value)
        if action == "end":
            return {"ended": True, "round_open": False}
        raise ValueError(f"unknown action {action!r}")

    # -------------------------------------------------------------- the students
    def _rate_limited(self, conn, clients, now):
        for client, limit in clients.items():
            recent = conn.execute(
                select(func.count())
                .select_from(attempts)
                .where(attempts.c.client == client, attempts.c.at > now - RATE_WINDOW_S)
            ).scalar()
            if recent >= limit:
                return True
        return False

    def join(self, code_text, student_id, clients=()):
        """A student joins: returns one of the ``JOIN_*`` statuses.

        ``clients`` are the sender's ``(name, limit)`` pairs (its browser id and address):
        each wrong code counts against every one of them; past a limit within a minute
        every join is refused (:data:`JOIN_RATE_LIMITED`) until the minute has passed.
        """
        if not codes.valid_token(student_id):
            return JOIN_BAD_ID
        clients = {codes.key_hash("client:" + str(name)): int(limit) for name, limit in dict(clients).items()}
        now = self.clock()
        code = codes.normalize_code(code_text)
        student = codes.student_hash(student_id)
        with self._write() as conn:
            if self._rate_limited(conn, clients, now):
                return JOIN_RATE_LIMITED
            row = self._row(conn, code, lock=True) if code else None
            if row is None:
                for client in clients:
                    conn.execute(insert(attempts).values(client=client, at=now))
                return JOIN_UNKNOWN
            if row["ended"] or row["expires"] <= now:
                return JOIN_EXPIRED
            if not self._member(conn, row["id"], student):
                joined = conn.execute(
                    select(func.count()).select_from(students).where(students.c.class_id == row["id"])
                ).scalar()
                if joined >= MAX_STUDENTS:
                    return JOIN_FULL
                conn.execute(insert(students).values(class_id=row["id"], student=student, joined=now))
        return JOIN_OK

    def vote(self, code, student_id, choice, n_choices):
        """A student's vote for ``choice`` (0-based, of ``n_choices``) in the open round of
        the class's current step.  Returns ``"counted"`` (first vote of the round),
        ``"changed"`` (replaces the student's vote of this round) or why it was refused:
        ``"closed"`` (no round open), ``"not-joined"``, ``"bad-choice"``, ``"unknown"``.
        The step and round are the store's, never the sender's."""
        if not codes.valid_token(student_id):
            return "not-joined"
        if not (isinstance(choice, int) and 0 <= choice < min(int(n_choices), MAX_CHOICES)):
            return "bad-choice"
        student = codes.student_hash(student_id)
        now = self.clock()
        with self._write() as conn:
            row = self._row(conn, codes.normalize_code(code), lock=True)
            if row is None:
                return "unknown"
            if not row["round_open"] or row["ended"] or row["expires"] <= now:
                return "closed"
            if not self._member(conn, row["id"], student):
                return "not-joined"
            where = (
                votes.c.class_id == row["id"],
                votes.c.step == row["step"],
                votes.c.round == row["round"],
                votes.c.student == student,
            )
            changed = conn.execute(update(votes).where(*where).values(choice=choice, at=now)).rowcount
            if changed:
                return "changed"
            try:
                with conn.begin_nested():
                    conn.execute(
                        insert(votes).values(
                            class_id=row["id"],
                            step=row["step"],
                            round=row["round"],
                            student=student,
                            choice=choice,
                            at=now,
                        )
                    )
            except IntegrityError:  # the same student's other tab, a moment earlier
                conn.execute(update(votes).where(*where).values(choice=choice, at=now))
                return "changed"
        return "counted"

    def my_vote(self, code, student_id, step, round_):
        """The choice this student voted in ``step``'s round ``round_``, or None."""
        if not codes.valid_token(student_id):
            return None
        with self._read() as conn:
            row = conn.execute(
                select(votes.c.choice)
                .select_from(votes.join(classes, classes.c.id == votes.c.class_id))
                .where(
                    classes.c.code == codes.normalize_code(code),
                    votes.c.step == step,
                    votes.c.round == round_,
                    votes.c.student == codes.student_hash(student_id),
                )
            ).first()
        return None if row is None else row.choice

    def counts(self, code, step):
        """``{round: {choice: votes}}`` of one step of the class."""
        with self._read() as conn:
            rows = conn.execute(
                select(votes.c.round, votes.c.choice, func.count())
                .select_from(votes.join(classes, classes.c.id == votes.c.class_id))
                .where(classes.c.code == codes.normalize_code(code), votes.c.step == step)
                .group_by(votes.c.round, votes.c.choice)
            ).all()
        out = {}
        for round_, choice, n in rows:
            out.setdefault(round_, {})[choice] = n
        return out

    def solve(self, code, student_id, step):
        """Record that a student solved the exercise of the class's *current* step (if it
        is ``step``); True when it counted (first time), False otherwise."""
        if not codes.valid_token(student_id):
            return False
        student = codes.student_hash(student_id)
        now = self.clock()
        with self._write() as conn:
            row = self._row(conn, codes.normalize_code(code), lock=True)
            if row is None or row["step"] != step or row["ended"] or row["expires"] <= now:
                return False
            if not self._member(conn, row["id"], student):
                return False
            try:
                with conn.begin_nested():
                    conn.execute(
                        insert(solves).values(class_id=row["id"], step=step, student=student, at=now)
                    )
            except IntegrityError:
                return False
        return True

    def tally(self, code):
        """``(students joined, {step: solves})`` of the class."""
        code = codes.normalize_code(code)
        with self._read() as conn:
            joined = conn.execute(
                select(func.count())
                .select_from(students.join(classes, classes.c.id == students.c.class_id))
                .where(classes.c.code == code)
            ).scalar()
            rows = conn.execute(
                select(solves.c.step, func.count())
                .select_from(solves.join(classes, classes.c.id == solves.c.class_id))
                .where(classes.c.code == code)
                .group_by(solves.c.step)
            ).all()
        return joined, dict(rows)

    def results(self, code, key):
        """Every step's results for the lecturer: a list of dicts (step, round, choice,
        votes) plus one row per step with solved exercises (round None, choice None).
        ``NotAllowed`` without the key."""
        if not self.is_lecturer(code, key):
            raise NotAllowed("Only the lecturer's presenter link can download the results.")
        code = codes.normalize_code(code)
        with self._read() as conn:
            rows = conn.execute(
                select(votes.c.step, votes.c.round, votes.c.choice, func.count())
                .select_from(votes.join(classes, classes.c.id == votes.c.class_id))
                .where(classes.c.code == code)
                .group_by(votes.c.step, votes.c.round, votes.c.choice)
                .order_by(votes.c.step, votes.c.round, votes.c.choice)
            ).all()
        out = [{"step": s, "round": r, "choice": c, "votes": n} for s, r, c, n in rows]
        _, solved = self.tally(code)
        out += [{"step": s, "round": None, "choice": None, "solved": n} for s, n in sorted(solved.items())]
        return out


_DEFAULT = {}
_DEFAULT_LOCK = threading.Lock()


def default_store():
    """The process's :class:`ClassStore` at :func:`database_url` (made on first use)."""
    url = database_url()
    with _DEFAULT_LOCK:
        if url not in _DEFAULT:
            _DEFAULT[url] = ClassStore(url)
        return _DEFAULT[url]

"""The class store (explorer/classroom): codes, keys, votes, bounds, expiry, rate limit,
and two processes voting into one SQLite file at once."""

import multiprocessing
import sqlite3
import string
import subprocess
import sys
from pathlib import Path

import pytest

from explorer.classroom import codes, store
from explorer.classroom.store import ClassStore, NotAllowed

ROOT = Path(__file__).resolve().parents[2]


class Clock:
    def __init__(self, now=1_000_000.0):
        self.now = now

    def __call__(self):
        return self.now


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def db(tmp_path, clock):
    return ClassStore(f"sqlite:///{tmp_path / 'class.db'}", clock=clock)


def joined(db, n, code):
    ids = [codes.new_student_id() for _ in range(n)]
    assert all(db.join(code, s) == store.JOIN_OK for s in ids)
    return ids


def test_codes_are_long_and_unambiguous():
    assert len(codes.ALPHABET) >= 30 and len(set(codes.ALPHABET)) == len(codes.ALPHABET)
    assert not set("0O1IL") & set(codes.ALPHABET)
    made = {codes.new_code() for _ in range(2000)}
    assert len(made) == 2000  # 31**6 codes: no collision in 2000 draws (p < 3e-3)
    assert all(len(c) >= 6 and set(c) <= set(codes.ALPHABET) for c in made)
    code = next(iter(made))
    assert codes.normalize_code(f" {code[:3].lower()}-{code[3:]} ") == code
    for bad in ("", "ABC", "ABCDE0", "ABCDEFG", "<script>", None, "ABCDE\u0130"):
        assert codes.normalize_code(bad) == ""


def test_the_key_is_stored_only_as_a_hash_and_checked(db, tmp_path):
    code, key = db.create_class(9)
    raw = sqlite3.connect(tmp_path / "class.db").execute("select * from classes").fetchall()
    assert key not in repr(raw) and codes.key_hash(key) in repr(raw)
    assert db.is_lecturer(code, key)
    assert not db.is_lecturer(code, key[:-1] + ("A" if key[-1] != "A" else "B"))
    assert not db.is_lecturer(code, "")
    other_code, other_key = db.create_class(9)
    assert not db.is_lecturer(code, other_key)
    with pytest.raises(NotAllowed):
        db.steer(code, other_key, "next")
    with pytest.raises(NotAllowed):
        db.steer(code, None, "open", 1)
    assert db.state(code).step == 0 and db.state(code).version == 0


def test_steering_moves_the_class_and_rounds_follow_the_rules(db, clock):
    code, key = db.create_class(3)
    with pytest.raises(ValueError):
        db.steer(code, key, "open", 2)  # round 2 comes after round 1
    s = db.steer(code, key, "open", 1)
    assert (s.round, s.round_open, s.version) == (1, True, 1)
    s = db.steer(code, key, "close")
    assert (s.round, s.round_open) == (1, False)
    s = db.steer(code, key, "open", 2)
    assert (s.round, s.round_open) == (2, True)
    s = db.steer(code, key, "reveal")
    assert s.revealed and not s.round_open
    clock.now += 30
    s = db.steer(code, key, "next")
    assert (s.step, s.round, s.revealed, s.step_started) == (1, 0, False, clock.now)
    assert db.steer(code, key, "goto", 99).step == 2  # clipped to the last step
    assert db.steer(code, key, "next").step == 2
    assert db.steer(code, key, "back").step == 1
    s = db.steer(code, key, "end")
    assert s.ended and not db.is_live(s)
    with pytest.raises(NotAllowed):
        db.steer(code, key, "next")


def test_one_vote_per_student_per_round(db):
    code, key = db.create_class(2)
    a, b = joined(db, 2, code)
    assert db.vote(code, a, 0, 3) == "closed"  # no round open yet
    db.steer(code, key, "open", 1)
    assert db.vote(code, a, 0, 3) == "counted"
    assert db.vote(code, a, 2, 3) == "changed"  # a change of mind replaces the vote
    assert db.vote(code, b, 2, 3) == "counted"
    assert db.vote(code, b, 3, 3) == "bad-choice"
    assert db.vote(code, b, -1, 3) == "bad-choice"
    assert db.vote(code, codes.new_student_id(), 0, 3) == "not-joined"
    assert db.vote(code, "x' or 1=1 --", 0, 3) == "not-joined"
    assert db.counts(code, 0) == {1: {2: 2}}
    assert db.my_vote(code, a, 0, 1) == 2 and db.my_vote(code, a, 0, 2) is None
    db.steer(code, key, "close")
    assert db.vote(code, a, 1, 3) == "closed"
    db.steer(code, key, "open", 2)
    assert db.vote(code, a, 1, 3) == "counted"
    assert db.counts(code, 0) == {1: {2: 2}, 2: {1: 1}}
    db.steer(code, key, "next")
    assert db.vote(code, a, 0, 3) == "closed"
    db.steer(code, key, "open", 1)
    assert db.vote(code, a, 0, 3) == "counted"
    assert db.counts(code, 1) == {1: {0: 1}} and db.counts(code, 0)[2] == {1: 1}
    rows = db.results(code, key)
    assert {"step": 0, "round": 1, "choice": 2, "votes": 2} in rows
    with pytest.raises(NotAllowed):
        db.results(code, "not-the-key-but-long-enough")


def test_solves_count_once_and_only_for_the_current_step(db):
    code, key = db.create_class(3)
    a, b = joined(db, 2, code)
    assert db.solve(code, a, 0) and not db.solve(code, a, 0)
    assert not db.solve(code, b, 1)  # not the class's step
    assert db.solve(code, b, 0)
    assert not db.solve(code, codes.new_student_id(), 0)
    assert db.tally(code) == (2, {0: 2})


def test_classes_expire_after_a_day(db, clock):
    code, key = db.create_class(9)
    s = joined(db, 1, code)[0]
    clock.now += store.LIFETIME_S - 1
    assert db.join(code, codes.new_student_id()) == store.JOIN_OK
    clock.now += 2
    assert db.join(code, codes.new_student_id()) == store.JOIN_EXPIRED
    assert not db.is_live(db.state(code))
    with pytest.raises(NotAllowed):
        db.steer(code, key, "open", 1)
    assert db.vote(code, s, 0, 2) == "closed"
    clock.now += store.GRACE_S + 1
    db.create_class(9)  # purges classes expired for more than a day
    assert db.state(code) is None
    assert db.join(code, codes.new_student_id()) == store.JOIN_UNKNOWN


def test_bounds_on_students_and_classes(db, monkeypatch):
    monkeypatch.setattr(store, "MAX_STUDENTS", 3)
    monkeypatch.setattr(store, "MAX_CLASSES", 2)
    code, _ = db.create_class(9)
    first = joined(db, 3, code)
    assert db.join(code, codes.new_student_id()) == store.JOIN_FULL
    assert db.join(code, first[0]) == store.JOIN_OK  # a student who is in stays in
    db.create_class(9)
    with pytest.raises(RuntimeError, match="at most 2"):
        db.create_class(9)
    with pytest.raises(ValueError):
        db.create_class(store.MAX_STEPS + 1)


def test_wrong_codes_are_rate_limited_per_client(db, clock):
    code, _ = db.create_class(9)
    letters = [c for c in codes.ALPHABET if c != code[0]]
    wrong = [letters[i % len(letters)] + code[1:] for i in range(store.WRONG_CODES_PER_MINUTE)]
    me, other = codes.new_student_id(), codes.new_student_id()
    clients = {"browser:" + me: store.WRONG_CODES_PER_MINUTE}
    assert [db.join(w, me, clients) for w in wrong] == [store.JOIN_UNKNOWN] * len(wrong)
    assert db.join(code, me, clients) == store.JOIN_RATE_LIMITED  # even the right code
    assert db.join(code, other, {"browser:" + other: 8}) == store.JOIN_OK  # others are not
    clock.now += store.RATE_WINDOW_S + 1
    assert db.join(code, me, clients) == store.JOIN_OK
    assert db.join("not a code", me, clients) == store.JOIN_UNKNOWN
    assert db.join(code, "short", clients) == store.JOIN_BAD_ID


def test_the_rate_limit_holds_across_store_objects(tmp_path, clock):
    url = f"sqlite:///{tmp_path / 'class.db'}"
    one, two = ClassStore(url, clock=clock), ClassStore(url, clock=clock)
    me = codes.new_student_id()
    clients = {"ip:10.0.0.7": 4}
    for i in range(4):
        assert (one if i % 2 else two).join("AAAAAA", me, clients) == store.JOIN_UNKNOWN
    code, _ = one.create_class(9)
    assert two.join(code, me, clients) == store.JOIN_RATE_LIMITED


def _vote_worker(url, code, ballots, out):
    db = ClassStore(url)
    out.put([db.vote(code, s, choice, 3) for s, choice in ballots for _ in range(2)])


def test_two_processes_count_every_vote_exactly_once(tmp_path):
    url = f"sqlite:///{tmp_path / 'class.db'}"
    db = ClassStore(url)
    code, key = db.create_class(9)
    ids = joined(db, 120, code)
    db.steer(code, key, "open", 1)
    context = multiprocessing.get_context("spawn")
    out = context.Queue()
    # Both processes vote for every student (twice each): 480 attempts, 120 votes.
    ballots = [(s, i % 3) for i, s in enumerate(ids)]
    workers = [context.Process(target=_vote_worker, args=(url, code, ballots, out)) for _ in range(2)]
    for w in workers:
        w.start()
    results = [out.get(timeout=120) for _ in workers]
    for w in workers:
        w.join(timeout=60)
        assert w.exitcode == 0
    statuses = [s for r in results for s in r]
    assert statuses.count("counted") == 120 and statuses.count("changed") == 360
    assert db.counts(code, 0) == {1: {0: 40, 1: 40, 2: 40}}
    raw = sqlite3.connect(tmp_path / "class.db")
    assert raw.execute("pragma journal_mode").fetchone()[0] == "wal"
    assert raw.execute("select count(*) from votes").fetchone()[0] == 120


def test_student_ids_are_stored_hashed(db, tmp_path):
    code, key = db.create_class(9)
    s = joined(db, 1, code)[0]
    db.steer(code, key, "open", 1)
    db.vote(code, s, 1, 2)
    dump = "\n".join(sqlite3.connect(tmp_path / "class.db").iterdump())
    assert s not in dump and codes.student_hash(s) in dump
    assert set(codes.student_hash(s)) <= set(string.hexdigits.lower())


def test_the_url_setting_and_the_cache_folder(tmp_path, monkeypatch):
    monkeypatch.delenv("FLDA_CLASS_DB_URL", raising=False)
    monkeypatch.setenv("FLDA_CACHE_DIR", str(tmp_path))
    assert store.database_url() == f"sqlite:///{tmp_path / 'class.db'}"
    monkeypatch.setenv("FLDA_CLASS_DB_URL", "postgresql+psycopg://u:p@db/flda")
    assert store.database_url() == "postgresql+psycopg://u:p@db/flda"


def test_importing_the_lesson_and_the_store_opens_no_database(tmp_path):
    """A page that is not in a class never touches the store: importing the store, the
    classroom views and opening the Lesson page make no class.db."""
    script = (
        "import explorer.classroom.store, explorer.ui.classroom\n"
        "from tests.app.apptest_support import open_page\n"
        "at = open_page('pages/lesson.py')\n"
        "assert not at.exception, at.exception\n"
    )
    env = {"FLDA_CACHE_DIR": str(tmp_path), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert not list(tmp_path.rglob("class.db*"))

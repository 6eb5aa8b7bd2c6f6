"""The class store (explorer/classroom): codes, keys, devices and seats, votes, results,
limits, expiry on the monotonic clock, and faults (locks, a deleted or damaged file, two
processes making the schema or voting at once)."""

import multiprocessing
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from explorer.classroom import codes, store
from explorer.classroom.store import ClassStore, NotAllowed

ROOT = Path(__file__).resolve().parents[2]
CHOICES = [3, 0, 2, 4]  # four steps; step 1 has no question


class Clock:
    def __init__(self, now=1_000_000.0):
        self.now = now

    def __call__(self):
        return self.now


@pytest.fixture
def wall():
    return Clock()


@pytest.fixture
def mono():
    return Clock(5_000.0)


@pytest.fixture
def db(tmp_path, wall, mono):
    return ClassStore(f"sqlite:///{tmp_path / 'class.db'}", clock=wall, monotonic=mono, boot="boot-a")


def seated(db, n, code, address="10.0.0.1"):
    devices = [db.new_device(f"10.1.{i // 200}.{i % 200}") for i in range(n)]
    assert all(db.join(code, d, address) == "ok" for d in devices)
    return devices


def walk(db, code, key, *actions):
    for action in actions:
        state = db.steer(code, key, action)
    return state


def test_codes_are_long_and_unambiguous():
    assert len(set(codes.ALPHABET)) == len(codes.ALPHABET) == 31 and not set("0O1IL") & set(codes.ALPHABET)
    made = {codes.new_code() for _ in range(2000)}
    assert len(made) == 2000 and all(len(c) == 6 and set(c) <= set(codes.ALPHABET) for c in made)
    code = next(iter(made))
    assert codes.normalize_code(f" {code[:3].lower()}-{code[3:]} ") == code
    for bad in ("", "ABC", "ABCDE0", "ABCDEFG", "<script>", None, 123456, ["ABCDEF"], "ABCDE\u0130"):
        assert codes.normalize_code(bad) == ""


def test_device_cookies_are_signed_and_cannot_be_made_up(db):
    device = db.new_device("10.0.0.1")
    assert codes.device_ok(device, db.secret())
    nonce, signature = device.split(".")
    for forged in (nonce, f"{nonce}.{signature[::-1]}", f"{codes.new_key()}.{signature}", "", None, "a.b"):
        assert not codes.device_ok(forged, db.secret())
    assert not codes.device_ok(device, b"another server's secret")


def test_keys_and_screen_tokens_are_stored_only_as_hashes(db, tmp_path):
    code, key = db.create_class(CHOICES, "lecturer-1")
    dump = "\n".join(sqlite3.connect(tmp_path / "class.db").iterdump())
    screen = codes.screen_token(key)
    assert key not in dump and screen not in dump and "lecturer-1" not in dump
    assert db.is_lecturer(code, key) and db.is_lecturer(code, screen, "screen")
    assert not db.is_lecturer(code, screen) and not db.is_lecturer(code, key, "screen")
    other_code, other_key = db.create_class(CHOICES, "lecturer-1")
    for wrong in (other_key, "", None, key[:-1] + ("A" if key[-1] != "A" else "B")):
        assert not db.is_lecturer(code, wrong)
        with pytest.raises(NotAllowed):
            db.steer(code, wrong, "advance")
    assert db.state(code).version == 0


def test_the_stages_bars_and_round_times(db, wall):
    code, key = db.create_class(CHOICES, "me")
    s = db.steer(code, key, "advance")
    assert (s.round, s.round_open, s.bars) == (1, True, False)  # counts hidden while open
    wall.now += 30
    s = walk(db, code, key, "advance", "advance")
    assert (s.round, s.round_open, s.bars) == (2, True, False)  # round 1's bars hidden before round 2
    wall.now += 30
    s = walk(db, code, key, "advance")
    assert s.bars and not s.round_open
    s = db.steer(code, key, "advance")
    assert s.revealed and s.bars and s.version == 5
    rows = db.results(code, key)
    assert [(r["round"], r["opened"], r["closed"]) for r in rows] == [
        (1, 1e6, 1e6 + 30),
        (2, 1e6 + 30, 1e6 + 60),
    ]
    s = db.steer(code, key, "undo")  # Back after Reveal: round 2 closed, bars of that stage
    assert (s.revealed, s.round, s.bars) == (False, 2, True)
    wall.now += 10
    s = walk(db, code, key, "advance", "advance")
    assert (s.step, s.round, s.bars, s.step_started, s.n_choices) == (1, 0, False, wall.now, 0)
    assert db.steer(code, key, "advance").revealed  # no question: idle -> revealed
    s = db.steer(code, key, "undo")
    assert (s.step, s.revealed) == (1, False)


def test_lecturer_settings_are_checked(db):
    code, key = db.create_class(CHOICES, "me")
    assert db.steer(code, key, "values", {"syn.theta": "0.8, 0"}).values == {"syn.theta": "0.8, 0"}
    assert db.steer(code, key, "correct", [2, 0, 2]).correct == (0, 2)
    assert db.steer(code, key, "rounds", 1).rounds == 1
    assert db.steer(code, key, "live_counts", True).live_counts
    assert db.steer(code, key, "bars", True).bars
    bad = [
        ("values", {"x": "y" * 3000}),
        ("values", ["not", "a", "mapping"]),
        ("correct", [3]),
        ("correct", ["1"]),
        ("rounds", 3),
        ("bars", "yes"),
        ("goto", 4),
        ("goto", -1),
        ("open", 1),
        ("DROP TABLE classes", None),
    ]
    for action, value in bad:
        with pytest.raises(ValueError):
            db.steer(code, key, action, value)
    s = db.steer(code, key, "goto", 2)
    assert (s.step, s.values, s.correct, s.bars, s.rounds) == (2, {}, (), False, 1)
    assert db.steer(code, key, "goto", 0).correct == (0, 2)  # kept per step
    assert db.results(code, key) == []  # no round opened yet


def test_one_seat_and_one_vote_per_device_and_round(db):
    code, key = db.create_class(CHOICES, "me")
    a, b = seated(db, 2, code)
    assert db.vote(code, a, 0) == "closed"
    db.steer(code, key, "advance")
    assert db.vote(code, a, 0) == "counted" and db.vote(code, a, 2) == "changed"
    assert db.join(code, a, "10.0.0.1") == "ok"  # joining again keeps the one seat
    assert db.vote(code, b, 2) == "counted"
    for crafted in (3, -1, True, 1.0, "1", None):
        assert db.vote(code, b, crafted) == "bad-choice"
    assert db.vote(code, db.new_device("10.0.0.9"), 0) == "not-joined"
    assert db.vote(code, "x' or 1=1 --", 0) == "not-joined"
    assert db.vote("ZZZZZZ", a, 0) == "unknown"
    assert db.counts(code, 0) == {1: {2: 2}}
    assert len(db.seats(code, key)) == 2
    walk(db, code, key, "advance", "advance")
    assert db.vote(code, a, 1) == "counted"
    assert db.counts(code, 0) == {1: {2: 2}, 2: {1: 1}}


def test_the_lecturer_removes_a_seat_and_its_votes(db):
    code, key = db.create_class(CHOICES, "me")
    a, b = seated(db, 2, code)
    db.steer(code, key, "advance")
    db.vote(code, a, 1), db.vote(code, b, 1)
    tally = db.state(code).tally
    listed = db.seats(code, key)
    assert [s["votes"] for s in listed] == [1, 1] and {"seat", "joined", "seen"} <= set(listed[0])
    with pytest.raises(NotAllowed):
        db.seats(code, "not-the-key-but-long-enough")
    with pytest.raises(NotAllowed):
        db.remove_seat(code, "not-the-key-but-long-enough", listed[0]["seat"])
    assert db.remove_seat(code, key, listed[0]["seat"]) and not db.remove_seat(code, key, "NOSUCH")
    assert db.counts(code, 0) == {1: {1: 1}} and db.state(code).tally == tally + 1
    assert sorted([db.vote(code, a, 0), db.vote(code, b, 0)]) == ["changed", "not-joined"]


def test_results_hold_integers_correct_choices_and_last_a_day_after_end(db, wall, mono):
    code, key = db.create_class(CHOICES, "me")
    devices = seated(db, 3, code)
    db.steer(code, key, "correct", [1])
    db.steer(code, key, "advance")
    for device, choice in zip(devices, (1, 1, 0), strict=True):
        db.vote(code, device, choice)
    walk(db, code, key, "advance", "end")
    assert not db.state(code).live
    with pytest.raises(NotAllowed):
        db.steer(code, key, "advance")
    wall.now += 23 * 3600
    mono.now += 23 * 3600
    (row,) = db.results(code, key)
    assert (row["step"], row["round"], row["correct"], row["counts"]) == (0, 1, [1], {0: 1, 1: 2})
    assert all(type(n) is int for n in row["counts"].values()) and row["closed"] >= row["opened"]
    wall.now += 2 * 3600
    mono.now += 2 * 3600
    db.create_class(CHOICES, "someone")  # purges what is older than its grace
    assert db.state(code) is None
    with pytest.raises(NotAllowed):
        db.results(code, key)


def test_a_running_class_expires_on_the_monotonic_clock(db, wall, mono, tmp_path):
    """Issue 42: a wall-clock jump of +25 h ended a running class and +49 h deleted it."""
    code, key = db.create_class(CHOICES, "me")
    wall.now += 49 * 3600
    db.create_class(CHOICES, "someone")  # would purge
    assert db.state(code).live and db.steer(code, key, "advance").round == 1
    mono.now += 24 * 3600 + 1
    assert not db.state(code).live
    assert db.join(code, db.new_device("10.0.0.2"), "10.0.0.2") == "ended"
    # after a reboot (another boot id) the wall clock decides
    rebooted = ClassStore(db.url, clock=wall, monotonic=Clock(1.0), boot="boot-b")
    fresh, _ = rebooted.create_class(CHOICES, "me-too")
    assert rebooted.state(fresh).live and db.state(fresh).live


def test_one_device_cannot_fill_the_class(db, wall, monkeypatch):
    """Issue 42: one client joined 398 fake students; a real late student read "full"."""
    monkeypatch.setenv("FLDA_CLASS_MAX_SEATS", "30")
    monkeypatch.setenv("FLDA_CLASS_DEVICES_PER_ADDRESS", "10")
    code, _ = db.create_class(CHOICES, "me")
    minted = [db.new_device("10.9.9.9") for _ in range(40)]
    fakes = [d for d in minted if d is not None]
    assert len(fakes) == 10  # new devices per address and minute are bounded
    assert all(db.join(code, d, "10.9.9.9") == "ok" for d in fakes)
    real = seated(db, 20, code)
    assert len(real) == 20  # the room still gets its seats
    assert db.join(code, db.new_device("10.2.0.1"), "10.2.0.1") == "full"
    wall.now += store.SEAT_ACTIVE_S + 1  # the fakes stop following; a real student comes back
    assert db.join(code, real[0], "10.1.0.0") == "ok"
    assert db.join(code, db.new_device("10.2.0.2"), "10.2.0.2") == "ok"  # active seats count
    assert db.new_device("10.9.9.9") is not None  # a minute later the address may make more


def test_wrong_codes_never_lock_a_room_out(db, wall):
    """Issue 42: 64 wrong codes from one address locked every classmate behind it out."""
    code, _ = db.create_class(CHOICES, "me")
    attacker, classmate = db.new_device("10.0.0.7"), db.new_device("10.0.0.7")
    letters = [c for c in codes.ALPHABET if c != code[0]]
    statuses = [db.join(letters[i % 30] + code[1:], attacker, "10.0.0.7") for i in range(10)]
    assert statuses[:8] == ["unknown"] * 8 and statuses[8:] == ["rate-limited"] * 2
    assert db.join(code, attacker, "10.0.0.7") == "rate-limited"  # that device, even the right code
    for i in range(70):  # rotating devices from the same address
        db.join(letters[i % 30] + code[1:], db.new_device(f"10.3.0.{i}"), "10.0.0.7")
    assert db.join("ABCDEF" if code != "ABCDEF" else "ABCDEG", classmate, "10.0.0.7") == "rate-limited"
    assert db.join(code, classmate, "10.0.0.7") == "ok"  # the right code still joins
    assert db.join("not a code", db.new_device("10.4.0.1"), "10.4.0.1") == "unknown"
    assert db.join(code, "forged.device", "10.0.0.7") == "bad-device"
    wall.now += store.RATE_WINDOW_S + 1
    assert db.join(code, attacker, "10.0.0.7") == "ok"


def test_starting_is_limited_per_starter_and_per_server(db, monkeypatch, tmp_path, wall):
    """Issue 42: 201 presses of "Start a class" left the lecturer unable to start one."""
    monkeypatch.setenv("FLDA_CLASS_MAX_CLASSES", "5")
    made = [db.create_class(CHOICES, "student") for _ in range(3)]
    with pytest.raises(NotAllowed, match="end one"):
        db.create_class(CHOICES, "student")
    assert [s.code for s in db.my_classes("student")] == [c for c, _ in reversed(made)]
    assert db.my_classes("lecturer") == []
    restarted = ClassStore(db.url, clock=wall, monotonic=db.monotonic, boot="boot-a")
    mine, key = restarted.create_class(CHOICES, "lecturer")
    restarted.steer(made[0][0], made[0][1], "end")
    assert db.create_class(CHOICES, "student") and db.create_class(CHOICES, "third")  # 5 running
    with pytest.raises(NotAllowed, match="server runs as many"):
        db.create_class(CHOICES, "fourth")
    with pytest.raises(ValueError):
        db.create_class([3] * (store.MAX_STEPS + 1), "lecturer")


def test_the_data_folder_and_the_url_setting(tmp_path, monkeypatch):
    monkeypatch.delenv("FLDA_CLASS_DB_URL", raising=False)
    monkeypatch.setenv("FLDA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("FLDA_DATA_DIR", str(tmp_path / "data"))
    assert store.database_url() == f"sqlite:///{tmp_path / 'data' / 'class.db'}"
    monkeypatch.delenv("FLDA_DATA_DIR")
    assert store.database_url() == f"sqlite:///{Path.home() / '.local' / 'share' / 'flda' / 'class.db'}"
    monkeypatch.setenv("FLDA_CLASS_DB_URL", "postgresql+psycopg://u:p@db/flda")
    assert store.database_url() == "postgresql+psycopg://u:p@db/flda"


def test_a_locked_database_answers_busy_at_once(db, tmp_path):
    """Issue 42: votes waited 33 s on a locked database, then showed SQL."""
    code, key = db.create_class(CHOICES, "me")
    (device,) = seated(db, 1, code)
    db.steer(code, key, "advance")
    holder = sqlite3.connect(tmp_path / "class.db", timeout=0, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(store.StoreBusy, match="try again"):
            db.vote(code, device, 1)
        with pytest.raises(store.StoreBusy):
            db.steer(code, key, "advance")
    finally:
        holder.execute("ROLLBACK")
    assert db.vote(code, device, 1) == "counted"
    pragma = db.engine.connect().exec_driver_sql("PRAGMA busy_timeout").scalar()
    assert pragma <= 2000


def test_a_deleted_database_is_recreated_once_and_reported(tmp_path, wall, mono):
    """Issue 42: deleting class.db under two processes split the class."""
    url = f"sqlite:///{tmp_path / 'class.db'}"
    one = ClassStore(url, clock=wall, monotonic=mono, boot="b")
    two = ClassStore(url, clock=wall, monotonic=mono, boot="b")
    old, _ = one.create_class(CHOICES, "me")
    assert two.state(old) is not None and one.incident() is None
    for suffix in ("", "-wal", "-shm"):
        Path(f"{tmp_path / 'class.db'}{suffix}").unlink(missing_ok=True)
    mono.now += 1
    assert one.state(old) is None  # one noticed, recreated
    new, key = two.create_class(CHOICES, "me")  # two noticed the new file and uses it
    assert one.state(new) is not None and two.is_lecturer(new, key)
    assert one.incident() and one.incident() == two.incident()
    assert len([p for p in tmp_path.iterdir() if p.name == "class.db"]) == 1


def test_a_damaged_database_is_moved_aside_and_recreated(tmp_path, wall, mono):
    url = f"sqlite:///{tmp_path / 'class.db'}"
    one = ClassStore(url, clock=wall, monotonic=mono, boot="b")
    code, key = one.create_class(CHOICES, "me")
    one.engine.dispose()
    (tmp_path / "class.db").write_bytes(b"this is not a database" * 500)
    for suffix in ("-wal", "-shm"):
        Path(f"{tmp_path / 'class.db'}{suffix}").unlink(missing_ok=True)
    with pytest.raises(store.StoreUnavailable, match="recreated"):
        one.steer(code, key, "advance")
    assert list(tmp_path.glob("class.db.lost-*"))
    assert one.create_class(CHOICES, "me") and one.incident()
    two = ClassStore(url, clock=wall, monotonic=mono, boot="b")
    assert two.incident() == one.incident()


def _make_schema(url, barrier, out):
    barrier.wait()
    try:
        ClassStore(url).create_class(CHOICES, f"racer-{multiprocessing.current_process().pid}")
        out.put("ok")
    except Exception as error:  # pragma: no cover - what the test reports
        out.put(repr(error))


def _race(url, n=4):
    context = multiprocessing.get_context("spawn")
    barrier, out = context.Barrier(n), context.Queue()
    workers = [context.Process(target=_make_schema, args=(url, barrier, out)) for _ in range(n)]
    for w in workers:
        w.start()
    results = [out.get(timeout=120) for _ in workers]
    for w in workers:
        w.join(timeout=60)
    return results


def test_processes_may_race_to_make_the_schema(tmp_path):
    """Issue 42 (PostgreSQL: IntegrityError); here on SQLite, see test_store_postgresql."""
    assert _race(f"sqlite:///{tmp_path / 'class.db'}") == ["ok"] * 4


def _vote_worker(url, code, ballots, out):
    db = ClassStore(url)
    out.put([db.vote(code, device, choice) for device, choice in ballots for _ in range(2)])


def test_two_processes_count_every_vote_exactly_once(tmp_path):
    url = f"sqlite:///{tmp_path / 'class.db'}"
    db = ClassStore(url)
    code, key = db.create_class(CHOICES, "me")
    devices = seated(db, 120, code)
    db.steer(code, key, "advance")
    context = multiprocessing.get_context("spawn")
    out = context.Queue()
    ballots = [(d, i % 3) for i, d in enumerate(devices)]
    workers = [context.Process(target=_vote_worker, args=(url, code, ballots, out)) for _ in range(2)]
    for w in workers:
        w.start()
    statuses = [s for _ in workers for s in out.get(timeout=120)]
    for w in workers:
        w.join(timeout=60)
        assert w.exitcode == 0
    assert statuses.count("counted") == 120 and statuses.count("changed") == 360
    assert db.counts(code, 0) == {1: {0: 40, 1: 40, 2: 40}}
    assert sqlite3.connect(tmp_path / "class.db").execute("pragma journal_mode").fetchone()[0] == "wal"


def test_importing_the_store_and_routes_opens_no_database(tmp_path):
    """A page that is not in a class never touches the store."""
    script = (
        "import explorer.classroom.store, explorer.ui.class_routes, explorer.ui.serving\n"
        "explorer.ui.serving.routes()\n"
        "from tests.app.apptest_support import open_page\n"
        "at = open_page('pages/lesson.py')\n"
        "assert not at.exception, at.exception\n"
    )
    env = {"FLDA_CACHE_DIR": str(tmp_path), "FLDA_DATA_DIR": str(tmp_path), "PATH": "/usr/bin:/bin"}
    env["HOME"] = str(tmp_path)
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert not list(tmp_path.rglob("class.db*"))

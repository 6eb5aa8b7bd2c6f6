"""The digits' fits kept on disk (explorer.experiments.digits.stored_fit / precompute)."""

import json
import threading
import time
from dataclasses import fields, replace

import numpy as np
import pytest

from explorer.data import digits as dg
from explorer.experiments import digits as ed


@pytest.fixture(scope="module")
def offline():
    return dg.make_offline_domains(random_state=0)


@pytest.fixture
def counting(monkeypatch):
    """Record every real fit (method names) made through ``ed.fit_method``."""
    calls = []
    original = ed.fit_method

    def fit_method(*args, **kwargs):
        calls.append(args[4])
        return original(*args, **kwargs)

    monkeypatch.setattr(ed, "fit_method", fit_method)
    return calls


def assert_same(a, b):
    """Every field equal, arrays bit for bit and of the same dtype."""
    for f in fields(ed.MethodResult):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if isinstance(x, np.ndarray):
            assert isinstance(y, np.ndarray) and x.dtype == y.dtype, f.name
            assert np.array_equal(x, y), f.name
        else:
            assert x == y and type(x) is type(y), (f.name, x, y)


# Each a different part of the stored form: plain fits, an oracle with its cross-validated
# error, l2 by cross-validation (cv_errors), ε > 0.
CASES = [
    ("A → B", "S-LR", 1e-3, 0.0),
    ("B → A", "T-LR", 1e-2, 0.0),
    ("A → B", "FLDA-Q", None, 0.0),
    ("B → A", "FLDA-L", 1e-2, 0.0),
    ("A → B", "FLDA-L", 1e-2, 0.2),
]


@pytest.mark.parametrize("direction, method, l2, zero_tol", CASES)
def test_a_stored_fit_is_exactly_a_fresh_fit(offline, tmp_path, counting, direction, method, l2, zero_tol):
    fresh = ed.fit_direction(offline, direction, method, l2, zero_tol, 0)
    assert counting == [method]
    first = ed.stored_fit(
        offline, direction, method, l2, zero_tol, 0, store=ed.result_store.ResultStore(tmp_path)
    )
    assert counting == [method, method] and len(list(tmp_path.glob("*.json"))) == 1
    assert_same(first, fresh)
    # a restarted server: a new store object on the same folder reads it, fits nothing
    again = ed.stored_fit(
        offline, direction, method, l2, zero_tol, 0, store=ed.result_store.ResultStore(tmp_path)
    )
    assert counting == [method, method]
    assert_same(again, fresh)
    if l2 is None:
        assert again.cv_errors and list(again.cv_errors) == list(ed.L2_GRID)


def test_every_setting_and_the_data_are_in_the_key(offline, tmp_path, counting):
    store = ed.result_store.ResultStore(tmp_path)
    base = ("A → B", "FLDA-Q", 1e-3, 0.0, 0)
    ed.stored_fit(offline, *base, store=store)
    other_data = replace(offline, key=offline.key + "-other")
    variants = [
        ("B → A", "FLDA-Q", 1e-3, 0.0, 0),
        ("A → B", "S-LS", 1e-3, 0.0, 0),
        ("A → B", "FLDA-Q", 1e-2, 0.0, 0),
        ("A → B", "FLDA-Q", 1e-3, 0.1, 0),
        ("A → B", "FLDA-Q", 1e-3, 0.0, 1),
    ]
    for variant in variants:
        ed.stored_fit(offline, *variant, store=store)
    ed.stored_fit(other_data, *base, store=store)
    assert len(counting) == 2 + len(variants) and len(list(tmp_path.glob("*.json"))) == 2 + len(variants)
    ed.stored_fit(offline, *base, store=store)
    assert len(counting) == 2 + len(variants)


def _broken_variants(record):
    value = record["value"]
    coef = value["coef"]
    return [
        "{truncated",
        json.dumps({**record, "value": {**value, "error": "0.2"}}),
        json.dumps({**record, "value": {**value, "error": 1.5}}),
        json.dumps({**record, "value": {**value, "method": "S-LR"}}),
        json.dumps({**record, "value": {**value, "coef": {**coef, "data": "not base64!"}}}),
        json.dumps({**record, "value": {**value, "coef": {**coef, "shape": [10, 255]}}}),
        json.dumps({**record, "value": {**value, "coef": {**coef, "dtype": "|O"}}}),
        json.dumps({**record, "value": {**value, "theta": [0.0] * 256}}),
        json.dumps({**record, "value": {k: v for k, v in value.items() if k != "intercept"}}),
        json.dumps({**record, "value": {**value, "cv_errors": [[1e-3]]}}),
    ]


def test_a_corrupt_or_foreign_entry_is_ignored_and_recomputed(offline, tmp_path, counting):
    store = ed.result_store.ResultStore(tmp_path)
    fresh = ed.stored_fit(offline, "A → B", "FLDA-Q", 1e-3, store=store)
    (path,) = tmp_path.glob("*.json")
    record = json.loads(path.read_text())
    broken = _broken_variants(record)
    for text in broken:
        path.write_text(text)
        assert_same(ed.stored_fit(offline, "A → B", "FLDA-Q", 1e-3, store=store), fresh)
    assert len(counting) == 1 + len(broken)
    ed.stored_fit(offline, "A → B", "FLDA-Q", 1e-3, store=store)  # rewritten: read back
    assert len(counting) == 1 + len(broken)


def test_a_stale_entry_from_other_code_or_libraries_is_refitted(offline, tmp_path, counting, monkeypatch):
    ed.stored_fit(offline, "A → B", "S-LS", 1e-3, store=ed.result_store.ResultStore(tmp_path))
    digest = ed.result_store.code_fingerprint()
    monkeypatch.setattr(ed.result_store.metadata, "version", lambda name: "0.0-upgraded")
    ed.result_store.code_fingerprint.cache_clear()
    try:
        assert ed.result_store.code_fingerprint() != digest
        ed.stored_fit(offline, "A → B", "S-LS", 1e-3, store=ed.result_store.ResultStore(tmp_path))
    finally:
        ed.result_store.code_fingerprint.cache_clear()
    assert counting == ["S-LS", "S-LS"]


def test_the_fingerprint_covers_the_method_the_readers_and_this_experiment():
    library, app = ed.result_store.SOURCE_ROOTS
    files = set(ed.result_store.core_files())
    for path in (
        library / "classifier.py",
        library / "solvers.py",
        library / "objectives.py",
        library / "transfer.py",
        app / "data" / "digits.py",
        app / "experiments" / "digits.py",
        app / "experiments" / "scoring.py",
    ):
        assert path in files, path
    assert not any(part in path.parts for path in files for part in ("figures", "ui", "teaching"))


def test_an_unwritable_store_still_gives_the_fit(offline, tmp_path):
    blocker = tmp_path / "not a folder"
    blocker.write_text("")
    result = ed.stored_fit(offline, "A → B", "S-LS", 1e-3, store=ed.result_store.ResultStore(blocker / "x"))
    assert_same(result, ed.fit_direction(offline, "A → B", "S-LS", 1e-3))


def _quick(monkeypatch):
    """``fit_method`` with l2 = 0.1 where cross-validation was asked (fast, still real fits
    of the method asked for), recording (method, l2 asked for)."""
    calls = []
    original = ed.fit_method

    def quick(*args, **kwargs):
        calls.append((args[4], kwargs.get("l2")))
        time.sleep(0.05)  # a page and a warm-up overlap inside the same fits
        return original(*args, **{**kwargs, "l2": kwargs.get("l2") or 0.1})

    monkeypatch.setattr(ed, "fit_method", quick)
    return calls


def test_precompute_fills_what_the_default_page_asks_for(offline, tmp_path, monkeypatch):
    calls = _quick(monkeypatch)
    store = ed.result_store.ResultStore(tmp_path)
    reports = []
    warmed = ed.precompute(seed=0, store=store, progress=lambda f, t: reports.append(f))
    assert reports[-1] == 1.0 and len(calls) == 10 and all(l2 is None for _, l2 in calls)
    assert len(list(tmp_path.glob("*.json"))) == 10
    # the page's defaults: offline data of the seed, l2 by cross-validation, ε = 0, dropout
    page = ed.run_digits(
        offline,
        "A → B",
        "logistic",
        None,
        0.0,
        0,
        fit=lambda d, m, l2, tol: ed.stored_fit(offline, d, m, l2, tol, 0, store=store),
    )
    assert len(calls) == 10
    assert page.keys() == warmed.keys()
    for key in page:
        assert_same(page[key], warmed[key])


def test_a_warm_up_and_a_page_never_fit_the_same_direction_twice(offline, tmp_path, monkeypatch):
    calls = _quick(monkeypatch)
    store = ed.result_store.ResultStore(tmp_path)
    warm_up = threading.Thread(target=ed.precompute, kwargs={"seed": 0, "store": store})
    warm_up.start()
    page = ed.run_digits(
        offline, fit=lambda d, m, l2, tol: ed.stored_fit(offline, d, m, l2, tol, 0, store=store)
    )
    warm_up.join()
    assert len(calls) == 10 and len(page) == 10


def test_s_lr_of_one_direction_and_t_lr_of_the_other_train_once_with_the_same_result(offline, monkeypatch):
    """Both train on the same labelled images (A → B's source is B → A's target)."""

    def fresh(direction, method):
        ed._TRAINED.clear()
        return ed.fit_direction(offline, direction, method, None)

    alone = {("B → A", "T-LR"): fresh("B → A", "T-LR"), ("A → B", "S-LR"): fresh("A → B", "S-LR")}
    searches = []
    original = ed.cross_validate_l2
    monkeypatch.setattr(ed, "cross_validate_l2", lambda *a, **k: searches.append(a[2]) or original(*a, **k))
    ed._TRAINED.clear()
    first = ed.fit_direction(offline, "A → B", "S-LR", None)
    second = ed.fit_direction(offline, "B → A", "T-LR", None)
    assert searches == ["S-LR"]  # the oracle's l2 search and final fit were not redone
    assert_same(first, alone[("A → B", "S-LR")])
    assert_same(second, alone[("B → A", "T-LR")])
    assert first.error != second.error  # each still scored its own way
    # FLDA is never shared (θ comes from both domains), nor other data or settings
    ed.fit_direction(offline, "B → A", "S-LR", None)
    ed.fit_direction(offline, "A → B", "FLDA-L", None)
    assert searches == ["S-LR", "S-LR", "FLDA-L"]
    by_hand = ed.fit_direction(offline, "B → A", "T-LR", 1e-2)
    assert by_hand.l2 == 1e-2 and not np.array_equal(by_hand.coef, second.coef)

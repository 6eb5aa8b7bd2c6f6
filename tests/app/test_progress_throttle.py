"""Progress bars pass on at most ten updates a second (``explorer.experiments.progress.throttled``)."""

from __future__ import annotations

from explorer.experiments.progress import UPDATE_INTERVAL_S, report, scaled, throttled


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_work_shorter_than_the_interval_sends_no_update():
    calls, clock = [], Clock()
    progress = throttled(lambda f, t: calls.append((f, t)), clock=clock)
    for k in range(45):  # a sweep read from the cache: 45 reports in 30 ms
        clock.now += 0.03 / 45
        report(progress, k, 45, f"fit {k + 1} of 45")
    assert calls == []


def test_long_work_moves_the_bar_at_most_once_per_interval_with_the_latest_report():
    calls, clock = [], Clock()
    progress = throttled(lambda f, t: calls.append((f, t)), clock=clock)
    for k in range(100):  # 100 reports, 25 ms apart: 2.5 s of work
        clock.now += 0.025
        report(progress, k, 100, f"step {k}")
    assert 20 <= len(calls) <= 25
    assert calls[0] == (0.03, "step 3")  # the first once 0.1 s have passed
    assert all(b[0] - a[0] >= 0.04 - 1e-12 for a, b in zip(calls, calls[1:]))
    assert UPDATE_INTERVAL_S == 0.1


def test_slow_steps_are_all_shown_and_scaled_subtasks_still_map_their_fractions():
    calls, clock = [], Clock()
    progress = scaled(throttled(lambda f, t: calls.append((f, t)), clock=clock), 0.5, 1.0)
    for k in range(4):  # a logistic repeat takes about a second
        clock.now += 1.0
        progress(k / 4, f"repeat {k + 1}")
    assert calls == [(0.5, "repeat 1"), (0.625, "repeat 2"), (0.75, "repeat 3"), (0.875, "repeat 4")]

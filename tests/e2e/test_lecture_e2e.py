"""One lecture (issue 40): a whole class through ``deploy/serve.sh`` steered by keys only,
and the projector drawing the very slide the Lesson's slide mode draws.

* A whole 12-step class: two Streamlit processes behind nginx; a projector and a
  presenter in the lecturer's browser, two phones.  The presenter gets keys only
  (Page Down, Page Up, B, O): every key moves the class exactly one stage (the store's
  row, compared with :func:`explorer.classroom.stages.advance` / ``undo``), the projector
  and the phones follow, the phones' votes are counted on the presenter, a control the
  lecturer sets shows on the projector, and after End the results download.
* The same slide: for every step at 1920×1080 and 1280×720 the projector of a class at
  that step and ``/lesson?present=1&step=…`` show the same texts in the same type (within
  5 %) and a figure where the step has one, and nothing scrolls.
"""

from __future__ import annotations

import csv
import io
import json
import os
import sqlite3
import time

import pytest

import e2e_harness as h

from explorer.classroom import stages
from explorer.teaching.lesson import LESSON_STEPS

pytestmark = [pytest.mark.e2e, pytest.mark.slow]
SCREENS = [{"width": 1920, "height": 1080}, {"width": 1280, "height": 720}]
PHONE = {"width": 390, "height": 844}
FOLLOW_S = 15  # a projector's rerun computes a step: generous on a loaded machine


def _start(context, url):
    """Start a class from the lecturer's browser (loopback may): its links; the lecturer's
    key is now a cookie of ``context``."""
    answer = context.request.post(f"{url}/_flda/class/start", data={})
    body = answer.json()
    assert answer.ok and body["status"] == "ok", body
    return body


def _row(db, code):
    names = ("version", "step", "round", "round_open", "revealed", "layer", "rounds")
    with sqlite3.connect(db) as conn:
        values = conn.execute(f"select {', '.join(names)} from classes where code = ?", (code,)).fetchone()
    return dict(zip(names, values, strict=True))


def _wait(check, seconds=FOLLOW_S, what=""):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.1)
    raise AssertionError(f"not within {seconds} s: {what}")


def _counter(page):
    return page.locator(".st-key-lesson_counter p").first.inner_text().strip()


def _expected(row, key):
    """The class's row after ``key`` (the stage machine, and the layer a key wakes)."""
    if row["layer"]:
        return {**row, "layer": ""}
    asks = [bool(s.choices) for s in LESSON_STEPS]
    state = {**row, "n_steps": len(LESSON_STEPS), "live_counts": False, "early_round1": False}
    changes = (stages.advance if key == "PageDown" else stages.undo)(state, asks)
    return {**row, **{k: v for k, v in changes.items() if k in row}}


@pytest.fixture
def deployed(browser_ready, e2e_tmp, tmp_path, monkeypatch):
    if not os.access(h.NGINX, os.X_OK):
        pytest.skip(h.SKIP_NO_NGINX)
    db = tmp_path / "class.db"
    monkeypatch.setenv("FLDA_CLASS_DB_URL", f"sqlite:///{db}")
    server = h.DeployedServer(processes=2, log_path=e2e_tmp / "serve-lecture.log")
    yield server, db
    assert server.stop() == 0, server.log_tail()


def test_a_whole_class_through_serve_sh_with_keys_only(deployed, chromium, screenshot_dir):
    server, db = deployed
    lecturer = chromium.new_context(viewport=SCREENS[0], accept_downloads=True)
    phones = [chromium.new_context(viewport=PHONE) for _ in range(2)]
    try:
        links = _start(lecturer, server.url)
        code = links["code"]
        presenter = lecturer.new_page()
        presenter.goto(server.url + links["presenter"])
        projector = lecturer.new_page()
        projector.goto(server.url + links["projector"] + "&present=1")
        projector.wait_for_selector(
            "html[data-flda-slide='join']", state="attached", timeout=FOLLOW_S * 1000
        )  # opening slide
        devices = [p.new_page() for p in phones]
        for device in devices:
            device.goto(f"{server.url}/join?code={code}")
            device.wait_for_selector("#class-view:not([hidden])", timeout=FOLLOW_S * 1000)
        presenter.bring_to_front()
        presenter.wait_for_selector(".flda-class-stats", timeout=FOLLOW_S * 1000)
        voted = 0

        def press(key):
            before = _row(db, code)
            wanted = _expected(before, key)
            presenter.keyboard.press(key)
            try:
                _wait(lambda: _row(db, code)["version"] > before["version"], what=f"{key} at {before}")
            except AssertionError:
                presenter.screenshot(path=str(screenshot_dir / "lecture-presenter-stuck.png"))
                raise
            time.sleep(1.0)  # a second stage would come now if the key acted twice
            after = _row(db, code)
            # exactly the stage one key makes (the version also counts the correct choices the
            # presenter writes for a new step: not a stage)
            assert {k: after[k] for k in wanted if k != "version"} == {
                k: v for k, v in wanted.items() if k != "version"
            }, (key, before, after)
            return after

        press("PageDown")  # the join slide goes
        _wait(lambda: projector.evaluate("!document.documentElement.dataset.fldaSlide"), what="join off")
        for index, lesson_step in enumerate(LESSON_STEPS):
            _wait(lambda index=index: _counter(projector).startswith(f"{index + 1} /"), what=f"step {index}")
            for device in devices:
                _wait(
                    lambda device=device, index=index: (
                        device.locator("#step").inner_text().startswith(f"Step {index + 1} of")
                    ),
                    what=f"phone at step {index}",
                )
            if index == 2:  # the lecturer's value on the projector: θ of the estimating-θ step
                presenter.locator("[data-testid='stRadioGroup'] label").filter(
                    has_text="0.2, 0.6"
                ).first.click()
                _wait(
                    lambda: (
                        projector.locator("[data-testid='stRadioGroup'] input:checked").count() >= 2
                        and "0.2, 0.6" in projector.locator(".st-key-lesson_slide").inner_text()
                    ),
                    what="the lecturer's θ on the projector",
                )
                presenter.bring_to_front()
            row = _row(db, code)
            while True:
                row = press("PageDown")
                if row["round_open"]:
                    for device, choice in zip(devices, (0, len(lesson_step.choices) - 1), strict=True):
                        device.locator(".choice").nth(choice).click()
                        device.wait_for_selector(".choice.mine", timeout=FOLLOW_S * 1000)
                    voted += 2
                    _wait(
                        lambda r=row["round"]: (
                            f"round {r}: 2 votes" in presenter.locator(".flda-class-bars").inner_text()
                        ),
                        what="votes on the presenter",
                    )
                if index == 1 and row["round"] == 2 and not row["round_open"]:
                    before = row
                    press("PageUp")  # undo one stage: round 2 open again
                    row = press("PageDown")
                    assert {k: v for k, v in row.items() if k != "version"} == {
                        k: v for k, v in before.items() if k != "version"
                    }
                if row["revealed"]:
                    break
            if index < 11:
                _wait(lambda: "Next step" in projector.locator(".st-key-lesson_next").inner_text())
            if index == 4:
                presenter.keyboard.press("b")
                _wait(lambda: _row(db, code)["layer"] == "black", what="black-out")
                _wait(lambda: projector.evaluate("document.documentElement.dataset.fldaSlide") == "black")
                press("PageDown")  # a key wakes the screen first
                presenter.keyboard.press("o")  # the overview on the presenter, a browser layer
                assert presenter.locator(".flda-slide-overview").is_visible()
                presenter.keyboard.press("Escape")
            if index + 1 < len(LESSON_STEPS):
                press("PageDown")
        projector.screenshot(path=str(screenshot_dir / "lecture-projector-last-step.png"))
        presenter.screenshot(path=str(screenshot_dir / "lecture-presenter-last-step.png"))

        presenter.get_by_role("button", name="End the class…").click()
        presenter.get_by_role("button", name="Yes, end it").click()
        _wait(lambda: presenter.get_by_text("This class has ended").count() > 0, what="ended")
        with presenter.expect_download() as download:
            presenter.get_by_role("button", name="Download the results (CSV)").click()
        rows = list(csv.DictReader(io.StringIO(download.value.path().read_text(encoding="utf-8"))))
        asked = [s for s in LESSON_STEPS if s.choices]
        assert sum(int(r["votes"]) for r in rows) == voted == 2 * 2 * len(asked)
        assert {r["votes"] for r in rows} <= {"0", "1", "2"}  # integers, not "1.0"
        assert {int(r["step"]) for r in rows} == {i + 1 for i, s in enumerate(LESSON_STEPS) if s.choices}
        assert any(r["correct"] == "True" for r in rows) and all(r["opened"] for r in rows)
        for device in devices:
            _wait(
                lambda device=device: "ended" in device.locator("body").inner_text().lower(), what="phone end"
            )
    finally:
        lecturer.close()
        for p in phones:
            p.close()


def _slide(page):
    """What a slide shows: its texts and the size of its body text."""
    return page.evaluate(
        """() => {
          const slide = document.querySelector('.st-key-lesson_slide');
          const p = slide.querySelector('[data-testid="stMarkdownContainer"] p');
          const label = slide.querySelector('[data-testid="stRadioGroup"] label p');
          return {
            title: slide.querySelector('h2')?.textContent.trim(),
            text: p?.textContent.trim(),
            body: parseFloat(getComputedStyle(p).fontSize),
            choices: [...slide.querySelectorAll('[data-testid="stRadioGroup"] label')]
              .map(l => l.textContent.trim()),
            choice: label ? parseFloat(getComputedStyle(label).fontSize) : 0,
            charts: slide.querySelectorAll('[data-testid="fldaChart"]').length,
            scrolls: document.scrollingElement.scrollHeight > innerHeight + 2
              || [...document.querySelectorAll('[data-testid="stMain"]')]
                .some(e => e.scrollHeight > e.clientHeight + 2),
          };
        }"""
    )


@pytest.mark.parametrize("screen", SCREENS, ids=lambda s: f"{s['width']}x{s['height']}")
def test_the_projector_shows_the_lessons_own_slide(
    streamlit_server, chromium, screen, screenshot_dir, tmp_path
):
    lecturer = chromium.new_context(viewport=screen)
    alone = chromium.new_context(viewport=screen)
    try:
        links = _start(lecturer, streamlit_server.url)
        code = links["code"]
        projector = lecturer.new_page()
        projector.goto(streamlit_server.url + links["projector"] + "&present=1")
        slide = alone.new_page()
        for index, lesson_step in enumerate(LESSON_STEPS):
            answer = lecturer.request.post(
                f"{streamlit_server.url}/_flda/class/steer",
                data=json.dumps({"code": code, "action": "goto", "value": index}),
                headers={"Content-Type": "application/json"},
            )
            assert answer.ok, answer.text()
            if index == 0:
                lecturer.request.post(
                    f"{streamlit_server.url}/_flda/class/steer",
                    data=json.dumps({"code": code, "action": "layer", "value": ""}),
                    headers={"Content-Type": "application/json"},
                )
            _wait(lambda index=index: _counter(projector).startswith(f"{index + 1} /"), what=f"step {index}")
            slide.goto(f"{streamlit_server.url}/lesson?present=1&step={lesson_step.slug}")
            _wait(lambda index=index: _counter(slide).startswith(f"{index + 1} /"), what="the lesson's slide")
            projector.wait_for_timeout(1500)
            ours, theirs = _slide(projector), _slide(slide)
            assert ours["title"] == theirs["title"] == lesson_step.title
            assert ours["text"] == theirs["text"] and ours["choices"] == theirs["choices"]
            assert abs(ours["body"] - theirs["body"]) <= 0.05 * theirs["body"]
            assert abs(ours["choice"] - theirs["choice"]) <= 0.05 * max(theirs["choice"], 1)
            assert ours["body"] >= 0.03 * screen["height"]  # a projector's type, not a web page's
            assert (ours["charts"] > 0) == (theirs["charts"] > 0) == bool(lesson_step.chart_key)
            assert not ours["scrolls"] and not theirs["scrolls"], (lesson_step.slug, ours, theirs)
            if index in (0, 6):
                projector.screenshot(
                    path=str(screenshot_dir / f"projector-{screen['width']}-{index + 1}.png")
                )
    finally:
        lecturer.close()
        alone.close()

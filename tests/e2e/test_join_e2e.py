"""The students' page (/join, no Streamlit) in Chromium on a 390×844 phone: join with the
code, follow the lecturer, vote, see the answer after Reveal; when the follow path fails
the page says "Reconnecting…" and recovers by itself (issue 40 item 8)."""

import json
import urllib.request

import pytest

import e2e_harness as h

pytestmark = [pytest.mark.e2e, pytest.mark.slow]
PHONE = {"width": 390, "height": 844}


def _post(server, name, body, cookie=""):
    request = urllib.request.Request(
        f"{server.url}/_flda/class/{name}",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "Cookie": cookie},
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        cookies = "; ".join(c.split(";")[0] for c in answer.headers.get_all("Set-Cookie") or ())
        return json.load(answer), cookies


@pytest.fixture
def class_server(browser_ready, e2e_tmp, tmp_path, monkeypatch):
    monkeypatch.setenv("FLDA_CLASS_DB_URL", f"sqlite:///{tmp_path / 'class.db'}")
    server = h.StreamlitServer(log_path=e2e_tmp / "streamlit-join.log")
    yield server
    server.stop()


def test_a_phone_joins_follows_votes_and_recovers(class_server, chromium, screenshot_dir):
    links, lecturer = _post(class_server, "start", {})
    code = links["code"]

    def steer(action, value=None):
        return _post(class_server, "steer", {"code": code, "action": action, "value": value}, lecturer)[0]

    context = chromium.new_context(viewport=PHONE)
    page = context.new_page()
    page.goto(f"{class_server.url}/join")
    page.fill("#code", code.lower())
    page.click("#join-form button")
    page.wait_for_selector("#class-view:not([hidden])")
    assert page.locator("#step").inner_text().startswith("Step 1 of 12")
    assert page.locator(".choice:disabled").count() == 3  # no round open yet
    steer("advance")  # the class's opening join slide goes
    steer("advance")  # round 1 opens
    page.wait_for_selector(".choice:not([disabled])")
    page.locator(".choice").nth(1).click()
    page.wait_for_selector(".choice.mine")
    assert page.locator(".choice.mine .letter").inner_text() == "B"
    box = page.locator(".choice").first.bounding_box()
    assert box["height"] >= 44 and box["width"] >= 300  # a thumb's target on a phone
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.screenshot(path=str(screenshot_dir / "join-phone-voted.png"))

    page.route("**/_flda/class/state*", lambda route: route.abort())  # the follow path fails
    page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
    page.wait_for_selector("#status:not([hidden])")
    assert "Reconnecting" in page.locator("#status").inner_text()
    page.screenshot(path=str(screenshot_dir / "join-phone-reconnecting.png"))
    for action in ("advance", "advance", "advance", "advance"):
        steer(action)
    steer("correct", [1])
    page.unroute("**/_flda/class/state*")  # the path is back: the page recovers on its own
    page.wait_for_selector("#answer:not([hidden])", timeout=15_000)
    assert page.locator("#status").is_hidden()
    assert page.locator(".choice.correct .letter").inner_text() == "B ✓"
    assert "lesson?step=domain-shift-as-dropout" in page.locator("#explore").get_attribute("href")
    page.screenshot(path=str(screenshot_dir / "join-phone-revealed.png"), full_page=True)
    context.close()


def test_wrong_codes_and_crafted_text_stay_text(class_server, chromium):
    context = chromium.new_context(viewport=PHONE)
    page = context.new_page()
    page.goto(f"{class_server.url}/join?code=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E")
    page.wait_for_selector("#join-note:not(:empty)")
    assert page.locator("#join-view img").count() == 0
    assert "no class with this code" in page.locator("#join-note").inner_text()
    context.close()

"""Presence proof with the box's button and watches, driven through `driftd ctl` on the simulated board."""
import re

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from helpers import by_id, click, ctl, goto, open_page, shot, tap, type_into, wait, wait_nonempty, wait_text


def drop(driver, text, kind, fill):
    goto(driver, "drop")
    type_into(driver, "drop-text", text)
    Select(driver.find_element(By.ID, "cond-kind")).select_by_value(kind)
    click(driver, "cond-add")
    for field, value in fill.items():
        type_into(driver, driver.find_element(By.CSS_SELECTOR, f"#cond-list [data-kind='{kind}'] [data-field='{field}']").get_attribute("id"), value)
    click(driver, "drop-submit")
    return wait_nonempty(driver, "drop-code", timeout=60)


def find_by_code(driver, code):
    goto(driver, "home")
    type_into(driver, "share-code", code)
    tap(driver, driver.find_element(By.CSS_SELECTOR, "#code-form button[type='submit']"))
    wait_text(driver, "bottle-title", code)


def test_presence_is_proved_with_the_box_button(base_url, browser_factory, artifacts):
    a = browser_factory()
    open_page(a, base_url)
    code = drop(a, "Only for those who came", "presence", {"withinSeconds": "120"})
    b = browser_factory()
    open_page(b, base_url)
    find_by_code(b, code)
    click(b, "open-submit")
    wait_text(b, "open-error", "not yet")
    click(b, "presence-start")
    shown = wait_text(b, "presence-status", "press the button on the box")
    shot(b, artifacts, "15-presence-press-now")
    # The page shows this visitor's own press count; one press proves nothing.
    presses = int(re.search(r"(\d+) times", shown).group(1))
    assert presses >= 2, shown
    for _ in range(presses):
        ctl("press", "presence")
    # The proof arrives on /api/v1/live and the page opens the bottle by itself.
    wait_text(b, "content-text", "Only for those who came", timeout=30)
    shot(b, artifacts, "16-presence-opened")


def test_a_watched_bottle_announces_that_it_can_be_opened(base_url, browser_factory, artifacts):
    a = browser_factory()
    open_page(a, base_url)
    try:
        ctl("weather", "--celsius", "10")
        code = drop(a, "Only on a hot day", "temperature", {"min": "30"})
        b = browser_factory()
        open_page(b, base_url)
        find_by_code(b, code)
        wait(b).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#bottle-conditions li.notSatisfied[data-kind='temperature']"),
                      "the temperature condition is not shown as not met")
        click(b, "watch-toggle")
        wait_text(b, "watch-toggle", "stop watching")
        shot(b, artifacts, "17-watching-locked")
        goto(b, "mine")
        wait(b).until(lambda d: [li for li in d.find_elements(By.CSS_SELECTOR, "#watch-list li") if code in li.text],
                      "the watch is not listed")
        ctl("weather", "--celsius", "35")
        wait_text(b, "notices", "can be opened now", timeout=90)
        shot(b, artifacts, "18-watch-notice")
        tap(b, next(btn for btn in b.find_elements(By.CSS_SELECTOR, "#notices p button") if btn.text == "View it"))
        wait_text(b, "bottle-title", code)
        click(b, "open-submit")
        wait_text(b, "content-text", "Only on a hot day")
    finally:
        ctl("weather", "--cycle")

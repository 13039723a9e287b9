"""Shared fixtures for the browser tests: a running driftd (DRIFT_URL) and headless Chromium sessions.

scripts/browser-tests.sh starts driftd and sets DRIFT_URL; run by hand with
`DRIFT_URL=http://127.0.0.1:8080 .build/browser-venv/bin/python -m pytest tests/browser`.
"""
import os
import pathlib
import struct
import zlib

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

ROOT = pathlib.Path(__file__).resolve().parents[2]
ARTIFACTS = pathlib.Path(os.environ.get("DRIFT_ARTIFACTS", ROOT / ".build" / "artifacts" / "browser"))


@pytest.fixture(scope="session")
def base_url():
    url = os.environ.get("DRIFT_URL")
    if not url:
        pytest.skip("DRIFT_URL is not set: start driftd (scripts/browser-tests.sh does) and point DRIFT_URL at it")
    return url.rstrip("/")


@pytest.fixture(scope="session")
def peer_url():
    """A second box on the simulated radio (scripts/browser-tests.sh starts it)."""
    url = os.environ.get("DRIFT_PEER_URL")
    if not url:
        pytest.skip("DRIFT_PEER_URL is not set: scripts/browser-tests.sh starts a second box for the mesh tests")
    return url.rstrip("/")


@pytest.fixture(scope="session")
def artifacts():
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


def _new_driver(performance_log=False):
    options = webdriver.ChromeOptions()
    prefs = {"browser": "ALL"}
    if performance_log:  # the DevTools Network events, for bytes on the wire
        prefs["performance"] = "ALL"
    options.set_capability("goog:loggingPrefs", prefs)
    options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=412,915", "--lang=en-US", "--no-first-run", "--disable-extensions",
                "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream"):
        options.add_argument(arg)
    service = Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"))
    driver = webdriver.Chrome(service=service, options=options)
    driver.set_page_load_timeout(60)
    driver.set_script_timeout(30)
    return driver


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when == "call":
        item.failed_call = report.failed


@pytest.fixture
def browser_factory(request):
    """Makes separate browser sessions (separate profiles, so separate device tokens).

    When the test fails, each session's screen and browser console go to the artifacts.
    """
    drivers = []

    def make(performance_log=False):
        driver = _new_driver(performance_log)
        drivers.append(driver)
        return driver

    yield make
    if getattr(request.node, "failed_call", False):
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        for n, driver in enumerate(drivers):
            try:
                driver.save_screenshot(str(ARTIFACTS / f"FAILED-{request.node.name}-{n}.png"))
                (ARTIFACTS / f"FAILED-{request.node.name}-{n}.log").write_text(
                    driver.current_url + "\n" + "\n".join(str(e) for e in driver.get_log("browser")))
            except Exception:  # noqa: BLE001 - best effort
                pass
    for driver in drivers:
        try:
            driver.quit()
        except Exception:  # noqa: BLE001 - a crashed session must not hide the test result
            pass


def make_png(path, width=96, height=64):
    """Writes a small RGB PNG (a gradient) with only the standard library."""
    rows = bytearray()
    for y in range(height):
        rows.append(0)  # filter: none
        for x in range(width):
            rows += bytes((x * 255 // width, y * 255 // height, 160))
    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(bytes(rows), 9)) + chunk(b"IEND", b"")
    pathlib.Path(path).write_bytes(png)
    return str(path)

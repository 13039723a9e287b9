"""Whispers (recorded and picked from a file), editing before the first open, Keep Alive, older chat lines,
on-device translation and photos in the chat."""
import math
import struct
import wave

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from conftest import make_png
from helpers import by_id, click, goto, on_item, open_page, shot, tap, type_into, wait, wait_nonempty, wait_text


def make_wav(path, seconds=3.0, rate=8000):
    """A mono 16-bit tone of `seconds`, written with the standard library."""
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(b"".join(struct.pack("<h", int(8000 * math.sin(2 * math.pi * 440 * n / rate)))
                                 for n in range(int(seconds * rate))))
    return str(path)


def audio_plays(driver, element_id):
    return wait(driver).until(lambda d: d.execute_script(
        "const a = document.getElementById(arguments[0]);"
        "return !a.closest('[hidden]') && !a.hidden && a.readyState >= 1 && a.src.startsWith('blob:')", element_id),
        f"#{element_id} has no playable sound")


def test_whisper_from_a_file_without_a_secure_context(base_url, browser_factory, tmp_path, artifacts):
    d = browser_factory()
    # Pretend to be the box's plain-HTTP page on a phone: no secure context, so no MediaRecorder.
    d.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {
        "source": "Object.defineProperty(window, 'isSecureContext', {get: () => false});"})
    open_page(d, base_url)
    goto(d, "drop")
    by_id(d, "drop-text")
    assert not d.find_element(By.ID, "whisper-recorder").is_displayed()
    # The page says why it cannot record itself here, in plain words.
    wait_text(d, "whisper-why", "secure connection")
    type_into(d, "drop-text", "Listen closely")
    short = make_wav(tmp_path / "short.wav", seconds=1.0)
    d.find_element(By.ID, "drop-whisper").send_keys(short)
    wait_text(d, "whisper-info", "1.0 s")
    d.find_element(By.ID, "drop-whisper").send_keys(make_wav(tmp_path / "whisper.wav", seconds=3.0))
    audio_plays(d, "whisper-preview")
    shot(d, artifacts, "19-whisper-file")
    click(d, "drop-submit")
    wait_nonempty(d, "drop-code", timeout=60)
    click(d, "drop-view")
    wait_text(d, "content-text", "Listen closely")
    audio_plays(d, "content-whisper")


def test_whisper_recorded_with_media_recorder(base_url, browser_factory, artifacts):
    d = browser_factory()  # 127.0.0.1 is a secure context; Chromium's fake microphone plays a tone
    open_page(d, base_url)
    goto(d, "drop")
    by_id(d, "whisper-recorder")
    type_into(d, "drop-text", "A recorded whisper")
    click(d, "whisper-record")
    wait_text(d, "whisper-timer", "3.")  # about three seconds recorded
    click(d, "whisper-record")
    audio_plays(d, "whisper-preview")
    click(d, "drop-submit")
    wait_nonempty(d, "drop-code", timeout=60)
    click(d, "drop-view")
    wait_text(d, "content-text", "A recorded whisper")
    audio_plays(d, "content-whisper")
    shot(d, artifacts, "20-whisper-recorded")


def test_creator_edits_before_the_first_open(base_url, browser_factory, artifacts, tmp_path):
    d = browser_factory()
    open_page(d, base_url)
    goto(d, "drop")
    type_into(d, "drop-text", "First draft")
    d.find_element(By.ID, "drop-photo").send_keys(make_png(tmp_path / "draft.png"))
    by_id(d, "drop-photo-preview")
    click(d, "drop-submit")
    code = wait_nonempty(d, "drop-code", timeout=60)
    goto(d, "mine")
    # Found again if the page re-renders My bottles under the test's hand (a stale element).
    on_item(d, "#mine-list li", code,
            lambda card: tap(d, next(b for b in card.find_elements(By.TAG_NAME, "button") if b.text == "Edit")))
    wait_text(d, "drop-title", "Edit")
    by_id(d, "photo-remove-box")
    assert d.find_element(By.ID, "drop-text").get_attribute("value") == "First draft"
    type_into(d, "drop-text", "Second thoughts")
    d.execute_script("arguments[0].click()", d.find_element(By.ID, "photo-remove"))
    Select(d.find_element(By.ID, "cond-kind")).select_by_value("daysOfWeek")
    click(d, "cond-add")
    for box in d.find_elements(By.CSS_SELECTOR, "#cond-list [data-kind='daysOfWeek'] input[type='checkbox']"):
        d.execute_script("arguments[0].click()", box)
    shot(d, artifacts, "21-edit")
    click(d, "drop-submit")
    wait_text(d, "drop-result", "Saved")
    click(d, "drop-view")
    wait_text(d, "content-text", "Second thoughts")
    assert not d.find_element(By.ID, "content-image").is_displayed(), "the removed photo still shows"
    has_image = d.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "fetch('/api/v1/bottles/' + location.hash.slice(3), {headers: {Authorization: 'Bearer ' + localStorage.getItem('driftbox.token')}})"
        ".then(r => r.json()).then(b => done(b.hasImage));")
    assert has_image is False
    wait(d).until(lambda drv: drv.find_elements(By.CSS_SELECTOR, "#bottle-conditions li[data-kind='daysOfWeek']"))


def test_keep_alive_rescues_a_dying_chat_and_older_lines_page_in(base_url, browser_factory, artifacts):
    d = browser_factory()
    open_page(d, base_url)
    goto(d, "drop")
    type_into(d, "drop-text", "Talk to me")
    click(d, "drop-submit")
    wait_nonempty(d, "drop-code", timeout=60)
    click(d, "drop-view")
    click(d, "open-submit")
    by_id(d, "chat-form")
    bottle_id = d.execute_script("return location.hash.slice(3)")
    # 55 lines through the API (from this visitor and two more: the box allows bursts of
    # 20 lines per visitor), then rejoin: the newest 50 show, the rest behind "older".
    posted = d.execute_async_script("""
        const [id, done] = [arguments[0], arguments[arguments.length - 1]];
        const json = (token) => ({Authorization: 'Bearer ' + token, 'Content-Type': 'application/json'});
        (async () => {
          const tokens = [localStorage.getItem('driftbox.token')];
          for (let k = 0; k < 2; k++) {
            const t = (await (await fetch('/api/v1/visitors', {method: 'POST'})).json()).token;
            await fetch(`/api/v1/bottles/${id}/open`, {method: 'POST', headers: json(t), body: '{}'});
            tokens.push(t);
          }
          for (let i = 1; i <= 55; i++) {
            const r = await fetch(`/api/v1/bottles/${id}/messages`, {method: 'POST', headers: json(tokens[Math.floor((i - 1) / 19)]),
                                  body: JSON.stringify({text: `line ${i}`, language: 'en'})});
            if (!r.ok) { done(`line ${i}: ${r.status}`); return; }
          }
          // Visitors who opened over HTTP count as present for a grace period; a live
          // connection that closes ends that at once.
          for (const t of tokens.slice(1)) await new Promise((resolve) => {
            const ws = new WebSocket(`ws://${location.host}/api/v1/bottles/${id}/live?token=${encodeURIComponent(t)}`);
            ws.onmessage = () => { ws.close(); resolve(); };
            ws.onerror = resolve;
          });
          done('ok');
        })();""", bottle_id)
    assert posted == "ok", posted
    wait_text(d, "chat-messages", "line 55")
    click(d, "chat-leave")
    by_id(d, "view-home")
    goto(d, f"b/{bottle_id}")
    wait_text(d, "chat-dying", "disappears in")
    click(d, "chat-keepalive")
    wait_text(d, "chat-keeper", "keeper")
    wait(d).until(lambda drv: not drv.find_element(By.ID, "chat-dying").is_displayed(), "still dying after Keep alive")
    shot(d, artifacts, "22-kept-alive")
    click(d, "open-submit")
    by_id(d, "chat-form")
    wait(d).until(lambda drv: len(drv.find_elements(By.CSS_SELECTOR, "#chat-messages li")) == 50)
    click(d, "chat-older")
    wait(d).until(lambda drv: len(drv.find_elements(By.CSS_SELECTOR, "#chat-messages li")) == 55)
    first = d.find_element(By.CSS_SELECTOR, "#chat-messages li:first-child").text
    assert "line 1" in first and "line 10" not in first


FAKE_TRANSLATOR = """
self.Translator = {
  availability: async ({sourceLanguage, targetLanguage}) => (sourceLanguage === 'de' ? 'available' : 'unavailable'),
  create: async ({sourceLanguage, targetLanguage}) => ({translate: async (text) => `[${sourceLanguage}>${targetLanguage}] ${text}`}),
};
"""


def test_lines_in_another_language_are_translated_on_the_device_and_photos_go_in_the_chat(base_url, browser_factory, tmp_path, artifacts):
    d = browser_factory()
    # Headless Chromium has no on-device model; a stand-in with the Translator API's shape.
    d.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": FAKE_TRANSLATOR})
    open_page(d, base_url)
    goto(d, "drop")
    type_into(d, "drop-text", "Sprichst du Deutsch?")
    click(d, "drop-submit")
    wait_nonempty(d, "drop-code", timeout=60)
    click(d, "drop-view")
    click(d, "open-submit")
    by_id(d, "chat-form")
    bottle_id = d.execute_script("return location.hash.slice(3)")
    posted = d.execute_async_script("""
        const [id, done] = [arguments[0], arguments[arguments.length - 1]];
        (async () => {
          const t = (await (await fetch('/api/v1/visitors', {method: 'POST'})).json()).token;
          const headers = {Authorization: 'Bearer ' + t, 'Content-Type': 'application/json'};
          await fetch(`/api/v1/bottles/${id}/open`, {method: 'POST', headers, body: '{}'});
          for (const [text, language] of [['Hallo zusammen', 'de'], ['Hello all', 'en-GB']]) {
            const r = await fetch(`/api/v1/bottles/${id}/messages`, {method: 'POST', headers, body: JSON.stringify({text, language})});
            if (!r.ok) { done(`${r.status}`); return; }
          }
          done('ok');
        })();""", bottle_id)
    assert posted == "ok", posted
    wait_text(d, "chat-messages", "Translated on this device: [de>en] Hallo zusammen")
    wait_text(d, "chat-messages", "Hello all")
    assert "] Hello all" not in d.find_element(By.ID, "chat-messages").text
    # A photo in the chat: resized, uploaded as an attachment, shown to everyone.
    d.find_element(By.ID, "chat-photo").send_keys(make_png(tmp_path / "chat.png", 120, 80))
    wait(d).until(lambda drv: drv.execute_script(
        "return [...document.querySelectorAll('#chat-messages img')].some(i => i.complete && i.naturalWidth > 0)"),
        "the chat photo never showed")
    shot(d, artifacts, "23-chat-translated-and-photo")

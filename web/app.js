// Drift Box visitor page. Plain JS, no framework, nothing loaded from outside the box.
// Works over plain HTTP (not a secure context): every richer API is feature-detected.
'use strict';

// Older phones (iOS < 14, Chrome < 86) lack replaceChildren.
if (!Element.prototype.replaceChildren) {
  Element.prototype.replaceChildren = function replaceChildren(...nodes) { while (this.lastChild) this.removeChild(this.lastChild); this.append(...nodes); };
}

const API = '/api/v1';
const TOKEN_KEY = 'driftbox.token';
const $ = (id) => document.getElementById(id);

// ---------------------------------------------------------------- small helpers

/** Creates an element with attributes and children (strings become text nodes). */
function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') node.className = v;
    else if (k === 'text') node.textContent = v;
    else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

function show(node, visible) { node.hidden = !visible; }
const plural = (n, one, many) => `${n} ${n === 1 ? one : (many || one + 's')}`;
const cap = (s) => (s ? s[0].toUpperCase() + s.slice(1) : s);

const STATE_WORDS = { locked: 'Locked', openable: 'Can be opened', active: 'Open · chat', dying: 'Chat ending', expired: 'Gone' };
const STATUS_WORDS = { satisfied: 'Met', notSatisfied: 'Not yet', unknown: 'Checked when you open it' };
const LABEL_WORDS = { local: 'Local', nearby: 'Nearby', sameCountry: 'Same country', sameContinent: 'Same continent', global: 'Global' };
const SOLAR_WORDS = { day: 'Day', civilDusk: 'Dusk', night: 'Night', civilDawn: 'Dawn' };
const EMERGENCY_WORDS = { medical: 'Medical emergency', fire: 'Fire', 'missing-person': 'Missing person', weather: 'Dangerous weather', security: 'Security alert', other: 'Emergency' };
const RESOURCE_WORDS = { water: 'water', medical: 'medical help', power: 'power', tools: 'tools', food: 'food', other: 'help' };

function fmtDuration(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60), r = s % 60;
  if (m < 60) return `${m} min ${String(r).padStart(2, '0')} s`;
  const h = Math.floor(m / 60);
  return h < 48 ? `${h} h ${m % 60} min` : `${Math.floor(h / 24)} days`;
}

/** "3 min ago" in whole units. */
function ago(iso) {
  const s = Math.max(0, (boxNow() - Date.parse(iso)) / 1000);
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 172800) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86400)} days ago`;
}

/** Distance in words: metres below 1 km, else kilometres. */
function fmtDistance(m) { return m < 1000 ? `${Math.round(m)} m` : `${(m / 1000).toFixed(1)} km`; }

/** Metres and compass direction from the box to a point (haversine). */
function fromBox(lat, lon) {
  const p = state.box && state.box.position;
  if (!p || lat == null || lon == null) return null;
  const r = Math.PI / 180, dLat = (lat - p.latitude) * r, dLon = (lon - p.longitude) * r;
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(p.latitude * r) * Math.cos(lat * r) * Math.sin(dLon / 2) ** 2;
  const metres = 6371000 * 2 * Math.atan2(Math.sqrt(a), Math.sqrt(1 - a));
  const y = Math.sin(dLon) * Math.cos(lat * r);
  const x = Math.cos(p.latitude * r) * Math.sin(lat * r) - Math.sin(p.latitude * r) * Math.cos(lat * r) * Math.cos(dLon);
  const bearing = (Math.atan2(y, x) / r + 360) % 360;
  const dir = ['north', 'north-east', 'east', 'south-east', 'south', 'south-west', 'west', 'north-west'][Math.round(bearing / 45) % 8];
  return metres < 30 ? 'right here' : `${fmtDistance(metres)} ${dir}`;
}

// ---------------------------------------------------------------- storage and token

/** localStorage when it works (captive-portal windows may refuse or forget it), else memory. */
const store = (() => {
  const memory = new Map();
  let persistent = false;
  try {
    const probe = '__driftbox_probe__';
    window.localStorage.setItem(probe, '1');
    persistent = window.localStorage.getItem(probe) === '1';
    window.localStorage.removeItem(probe);
  } catch (_) { persistent = false; }
  return {
    persistent,
    get(k) { try { return persistent ? localStorage.getItem(k) : (memory.get(k) ?? null); } catch (_) { return memory.get(k) ?? null; } },
    set(k, v) { memory.set(k, v); try { if (persistent) localStorage.setItem(k, v); } catch (_) { /* memory only */ } },
  };
})();

const state = {
  token: store.get(TOKEN_KEY),
  box: null,
  clockOffset: 0,          // box clock minus this device's clock, ms
  limits: {},
  view: 'home',
  bottle: null,            // the bottle on screen
  chat: null,              // live chat state (see enterChat)
  presence: null,          // {bottle, expiresAt, timer}
  editing: null,           // bottle being edited (PATCH) or null
  translators: new Map(),
  followed: new Map(),     // chats this visitor is in: id -> {id, shareCode, state, deadline}
  camps: null,             // the last camp listing
  hiddenAlerts: new Set(), // emergencies this visitor dismissed
};

function boxNow() { return Date.now() + state.clockOffset; }

class ApiError extends Error {
  constructor(status, code, message, details) { super(message); this.status = status; this.code = code; this.details = details; }
}

let registering = null;
/** Registers a new device token (POST /visitors) and keeps it. */
async function register() {
  if (!registering) {
    registering = (async () => {
      let r;
      try { r = await fetch(`${API}/visitors`, { method: 'POST', headers: { Accept: 'application/json' } }); }
      catch (_) { setOffline(true); throw new ApiError(0, 'offline', 'Cannot reach the box. Are you still on its Wi-Fi?', null); }
      const body = await r.json().catch(() => null);
      if (!r.ok || !body || !body.token) throw toError(r, body);
      state.token = body.token;
      store.set(TOKEN_KEY, body.token);
      renderRecovery();
      return body.token;
    })().finally(() => { registering = null; });
  }
  return registering;
}

function toError(r, body) {
  const e = body && body.error;
  if (e) return new ApiError(r.status, e.code, e.message || 'Something went wrong.', e.details);
  return new ApiError(r.status, 'internal', `The box answered ${r.status}.`, null);
}

/** One banner for "the box cannot be reached", never a message per section. */
function setOffline(offline) {
  show($('offline'), offline);
  document.body.classList.toggle('offline', offline);
}

/**
 * Calls the box's API. `json` is sent as JSON; `body` with `type` as raw bytes.
 * Re-registers once on 401 `unauthorized`. Returns the parsed JSON (null for 204).
 */
async function api(method, path, { json, body, type, token, retry = true } = {}) {
  if (!token && !state.token) await register();
  const headers = { Accept: 'application/json', Authorization: `Bearer ${token || state.token}` };
  let payload;
  if (json !== undefined) { headers['Content-Type'] = 'application/json'; payload = JSON.stringify(json); }
  else if (body !== undefined) { headers['Content-Type'] = type || 'application/octet-stream'; payload = body; }
  let r;
  try { r = await fetch(API + path, { method, headers, body: payload }); }
  catch (_) { setOffline(true); throw new ApiError(0, 'offline', 'Cannot reach the box. Are you still on its Wi-Fi?', null); }
  setOffline(false);
  if (r.status === 204) return null;
  const data = await r.json().catch(() => null);
  if (r.ok) return data;
  const err = toError(r, data);
  if (r.status === 401 && retry && !token) {
    await register();
    return api(method, path, { json, body, type, retry: false });
  }
  throw err;
}

/** Fetches media that needs the bearer token and returns an object URL for it. */
async function mediaURL(url) {
  const r = await fetch(url, { headers: { Authorization: `Bearer ${state.token}` } });
  if (!r.ok) throw toError(r, await r.json().catch(() => null));
  return URL.createObjectURL(await r.blob());
}

/** Field names the box uses in `invalid` errors, in plain words. */
const FIELD_WORDS = { text: 'The message', hint: 'The hint', lifetimeSeconds: 'The lifetime', conditions: 'A condition', password: 'The password', language: 'The language' };

/** An API error as a sentence a visitor understands (the box's own words are technical). */
function errorText(e) {
  if (!(e instanceof ApiError)) return (e && e.message) || 'Something went wrong. Please try again.';
  const d = e.details || {};
  switch (e.code) {
    case 'offline': return e.message;
    case 'rate_limited': return `Too many tries. Wait ${fmtDuration((d.retryAfterSeconds || 10) * 1000)} and try again.`;
    case 'busy': return 'The box is busy. Try again in a few seconds.';
    case 'not_found': return 'This bottle is not here (any more).';
    case 'too_large': return 'That is too large for the box.';
    case 'unsupported_media_type': return 'The box cannot use this kind of file.';
    case 'invalid': {
      const field = String(d.field || '');
      const head = Object.keys(FIELD_WORDS).find((k) => field === k || field.startsWith(k + '.') || field.startsWith(k + '['));
      const what = head ? FIELD_WORDS[head] : 'Something in the form';
      return `${what} was refused by the box: ${d.problem || e.message}.`;
    }
    case 'forbidden': return cap(e.message) + '.';
    case 'conflict': return 'That is no longer possible: ' + e.message + '.';
    default: return cap(e.message || 'Something went wrong.').replace(/\.?$/, '.');
  }
}

function wsURL(path) {
  const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${proto}//${location.host}${API}${path}${path.includes('?') ? '&' : '?'}token=${encodeURIComponent(state.token)}`;
}

// ---------------------------------------------------------------- errors next to their field

/** Shows `text` in `errorId` (next to `field`), marks the field, focuses it and brings both on screen. */
function fieldError(errorId, text, field) {
  const err = $(errorId);
  err.textContent = text;
  if (field) { field.setAttribute('aria-invalid', 'true'); field.focus({ preventScroll: true }); }
  const target = field && field.getBoundingClientRect().height ? field : err;
  requestAnimationFrame(() => {
    target.scrollIntoView({ block: 'center' });
    const r = err.getBoundingClientRect();
    if (r.bottom > innerHeight - 80 || r.top < 0) err.scrollIntoView({ block: 'center' });
  });
}

function clearErrors(root) {
  for (const e of root.querySelectorAll('.error')) e.textContent = '';
  for (const f of root.querySelectorAll('[aria-invalid]')) f.removeAttribute('aria-invalid');
}

// ---------------------------------------------------------------- notices (one at a time)

let noticeTimer = 0;
function notice(text, action) {
  clearTimeout(noticeTimer);
  const p = el('p', {}, el('span', {}, text));
  if (action) p.append(el('button', { type: 'button', onclick: () => { p.remove(); action.run(); } }, action.label));
  p.append(el('button', { type: 'button', 'aria-label': 'Dismiss', onclick: () => p.remove() }, '×'));
  $('notices').replaceChildren(p);
  noticeTimer = setTimeout(() => p.remove(), action ? 20000 : 6000);
}

// ---------------------------------------------------------------- avatars

/** A 5×5 identicon from `avatar.pattern` (bit 0 = top-left, row-major) in hsl(hue, 65%, 45%). */
function avatar(participant, size = 28) {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', '0 0 5 5');
  svg.setAttribute('width', size); svg.setAttribute('height', size);
  svg.setAttribute('class', 'avatar');
  svg.setAttribute('aria-hidden', 'true');
  const a = participant && participant.avatar;
  if (!a) return svg;
  const colour = `hsl(${a.hue}, 65%, 45%)`;
  for (let row = 0; row < 5; row++) for (let col = 0; col < 5; col++) {
    if (!((a.pattern >>> (row * 5 + col)) & 1)) continue;
    const r = document.createElementNS(ns, 'rect');
    r.setAttribute('x', col); r.setAttribute('y', row); r.setAttribute('width', 1); r.setAttribute('height', 1);
    r.setAttribute('fill', colour);
    svg.append(r);
  }
  return svg;
}

function whoText(p) {
  if (!p) return 'Someone';
  if (p.isBox) return 'The box';
  const parts = [];
  if (p.isMe) parts.push('You');
  else parts.push(`Visitor ${String(p.id || '').slice(0, 4)}`);
  if (p.isCreator) parts.push('creator');
  if (p.label && !p.isMe) parts.push(LABEL_WORDS[p.label] || p.label);
  return parts.join(' · ');
}

// ---------------------------------------------------------------- box header

async function loadBox() {
  try {
    const box = await api('GET', '/box');
    state.box = box;
    state.limits = box.limits || {};
    const t = Date.parse(box.time);
    if (!Number.isNaN(t)) state.clockOffset = t - Date.now();
    $('box-name').textContent = box.name || 'Drift Box';
    document.title = box.name || 'Drift Box';
    renderWeather(box.weather);
    $('box-solar').textContent = box.solarPhase ? SOLAR_WORDS[box.solarPhase] || box.solarPhase : '';
    tickClock();
    applyLimits();
  } catch (_) { /* the offline banner says it */ }
}

function renderWeather(w) {
  const parts = [];
  if (w) {
    if (w.temperatureC != null) parts.push(`${w.temperatureC.toFixed(1)} °C`);
    if (w.humidityPercent != null) parts.push(`${Math.round(w.humidityPercent)} %`);
    if (w.pressureHPa != null) parts.push(`${Math.round(w.pressureHPa)} hPa`);
  }
  $('box-weather').textContent = parts.join(' · ');
}

function fmt(date, options) {
  try { return new Intl.DateTimeFormat(undefined, { ...options, timeZone: state.box && state.box.timezone }).format(date); }
  catch (_) { return date.toLocaleString(); }
}
/** A date-time as the box's wall clock shows it (the box's time zone). */
const boxTime = (iso) => fmt(new Date(iso), { weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' });
/** Hours and minutes on the box's clock. */
const clockTime = (date) => fmt(date, { hour: '2-digit', minute: '2-digit' });

function tickClock() {
  if (!state.box) return;
  $('box-time').textContent = fmt(new Date(boxNow()), { hour: '2-digit', minute: '2-digit', weekday: 'short' });
}

// ---------------------------------------------------------------- box events (/api/v1/live)

let liveSocket = null, liveRetry = 1000;
function connectLive() {
  if (!state.token) return;
  let opened = false;
  try { liveSocket = new WebSocket(wsURL('/live')); } catch (_) { return; }
  liveSocket.onopen = () => { opened = true; liveRetry = 1000; setOffline(false); $('conn-state').textContent = 'Live: connected to the box'; };
  liveSocket.onmessage = (m) => { let e; try { e = JSON.parse(m.data); } catch (_) { return; } onBoxEvent(e); };
  liveSocket.onclose = async () => {
    $('conn-state').textContent = 'Not connected; retrying…';
    let wait = liveRetry;
    liveRetry = Math.min(liveRetry * 2, 30000);
    if (!opened) {
      // Refused before the upgrade: a browser's WebSocket does not say why, the same route
      // over plain HTTP does (docs/api.md). A box that no longer knows this device (401)
      // gets a new token at once; too many sockets (429) waits as long as the box asks.
      try {
        const r = await fetch(`${API}/live`, { headers: { Authorization: `Bearer ${state.token}` } });
        if (r.status === 401) { await register(); wait = 0; }
        else if (r.status === 429) wait = 1000 * (Number(r.headers.get('Retry-After')) || 5);
      } catch (_) { setOffline(true); }
    }
    setTimeout(connectLive, wait);
  };
}

const bottleIdOf = (b) => (b && typeof b === 'object' ? b.id : b);

function onBoxEvent(e) {
  const bid = bottleIdOf(e.bottle);
  const current = state.bottle && (state.bottle.id === bid || state.bottle.shareCode === bid);
  switch (e.type) {
    case 'weather': renderWeather(e.weather); break;
    case 'camps': renderCamps(e.listing); break;
    case 'bottle':
      followedChanged(bid, e.event, e.deadline);
      if (state.view === 'home') scheduleList();
      if (state.view === 'mine') loadMine();
      if (current && e.event === 'expired') bottleGone();
      else if (current) loadBottle(state.bottle.id, { quiet: true });
      break;
    case 'watch':
      if (e.at) notice(`A bottle you watch can be opened now at ${e.at}.`);
      else notice('A bottle you watch can be opened now.', { label: 'View it', run: () => go(`b/${bid}`) });
      if (current) loadBottle(state.bottle.id, { quiet: true });
      if (state.view === 'mine') loadMine();
      break;
    case 'presence':
      if (state.presence && (state.presence.bottle === bid || current)) {
        clearInterval(state.presence.timer);
        state.presence = null;
        $('presence-status').textContent = 'Presence proved. Opening…';
        show($('presence-status'), true);
        openBottle();
      } else {
        notice('Your presence was proved at the box.');
      }
      break;
    case 'creator': {
      const words = { firstOpen: 'Someone opened your bottle for the first time.', joined: 'Someone joined the chat of your bottle.',
        linesWhileAway: `${e.count || 'New'} new chat line${e.count === 1 ? '' : 's'} in your bottle while you were away.` };
      if (e.at) notice(`${words[e.event] || 'News about your bottle.'} (It is at ${e.at}.)`);
      else notice(words[e.event] || 'News about your bottle.', { label: 'View it', run: () => go(`b/${bid}`) });
      refreshUnread();
      break;
    }
    default: break;
  }
}

// ---------------------------------------------------------------- chats this visitor is in: the dying bar

/** Remembers what the box says about chats this visitor is in (from lists and views). */
function follow(b) {
  if (!b || !b.id) return;
  if (b.hasOpened && b.chat && (b.state === 'active' || b.state === 'dying')) {
    state.followed.set(b.id, { id: b.id, shareCode: b.shareCode, state: b.chat.state, deadline: b.chat.deadline ? Date.parse(b.chat.deadline) : null });
  } else if (b.state === 'expired' || b.gone || !b.chat) {
    state.followed.delete(b.id);
  }
  renderDying();
}

function followedChanged(id, event, deadline) {
  const f = state.followed.get(id);
  if (!f) return;
  if (event === 'expired') {
    state.followed.delete(id);
    if (!(state.bottle && state.bottle.id === id)) notice(`The chat of bottle ${f.shareCode || ''} has ended; the bottle is gone.`);
  } else if (event === 'dying') { f.state = 'dying'; f.deadline = deadline ? Date.parse(deadline) : null; }
  else if (event === 'active') { f.state = 'active'; f.deadline = null; }
  renderDying();
}

let dyingTimer = 0;
/** The countdown and Keep alive of a dying chat this visitor is in, on every screen. */
function renderDying() {
  clearInterval(dyingTimer);
  dyingTimer = 0;
  const inChat = state.chat && !state.chat.left ? state.chat.bottleId : null;
  const dying = [...state.followed.values()].filter((f) => f.state === 'dying' && f.deadline && f.id !== inChat)
    .sort((a, b) => a.deadline - b.deadline);
  const bar = $('chat-dying');
  if (!dying.length) { show(bar, false); return; }
  const f = dying[0];
  const tick = () => {
    const left = f.deadline - boxNow();
    if (left <= 0) {
      $('dying-text').textContent = `The chat of bottle ${f.shareCode || ''} is ending…`;
      clearInterval(dyingTimer);
      confirmGone(f.id, 0);
      return;
    }
    const here = state.bottle && state.bottle.id === f.id;
    $('dying-text').textContent = `Everyone left ${here ? 'this chat' : `the chat of ${f.shareCode || 'your bottle'}`}: it disappears in ${fmtDuration(left)}.`;
  };
  $('chat-keepalive').dataset.bottle = f.id;
  show(bar, true);
  tick();
  dyingTimer = setInterval(tick, 1000);
}

/** After a countdown: gone (404) or rescued? Asks the box until it knows. */
function confirmGone(id, n) {
  setTimeout(async () => {
    if (!state.followed.has(id)) return;
    try {
      const b = await api('GET', `/bottles/${id}`);
      if (b.chat && b.chat.state === 'dying' && n < 20) { confirmGone(id, n + 1); return; }
      follow(b);
      if (state.bottle && state.bottle.id === id) renderBottle(b);
    } catch (e) {
      if (e.code === 'not_found') { followedChanged(id, 'expired'); if (state.bottle && state.bottle.id === id) bottleGone(id); }
    }
  }, 1000);
}

async function keepAlive() {
  const id = $('chat-keepalive').dataset.bottle || (state.bottle && state.bottle.id);
  if (!id) return;
  try {
    const r = await api('POST', `/bottles/${id}/keep-alive`);
    followedChanged(id, r && r.state === 'dying' ? 'dying' : 'active');
    if (state.bottle && state.bottle.id === id && r && r.keeper) renderKeeper({ ...r.keeper, isMe: true });
    notice('You keep this chat alive now.');
  } catch (e) {
    if (e.code === 'not_found') { followedChanged(id, 'expired'); if (state.bottle && state.bottle.id === id) bottleGone(id); }
    else notice(errorText(e));
  }
}

// ---------------------------------------------------------------- views and routing

const VIEWS = ['home', 'drop', 'bottle', 'mine', 'recovery'];

function go(hash) { if (location.hash === `#${hash}`) route(); else location.hash = hash; }

function route(event) {
  const h = decodeURIComponent(location.hash.slice(1));
  let view = 'home', arg = null;
  if (h.startsWith('b/')) { view = 'bottle'; arg = h.slice(2); }
  else if (VIEWS.includes(h)) view = h;
  if (view !== 'bottle' && state.chat) leaveChat();
  if (view !== 'bottle') { stopPresence(); state.bottle = null; }
  if (view !== 'home' && state.remote) leaveRemote(false);
  state.view = view;
  for (const v of VIEWS) show($(`view-${v}`), v === view);
  for (const b of document.querySelectorAll('.tabs button')) {
    const here = b.dataset.view === view || (view === 'bottle' && b.dataset.view === 'home');
    if (here) b.setAttribute('aria-current', 'page'); else b.removeAttribute('aria-current');
  }
  // Screen readers: a new view announces itself by its heading (not on the first load).
  if (event && event.type === 'hashchange') {
    const heading = $(`view-${view}`).querySelector('h2');
    heading.tabIndex = -1;
    heading.focus({ preventScroll: true });
    window.scrollTo(0, 0);
  }
  if (view === 'home') { loadList(); loadCamps(); }
  if (view === 'mine') { loadMine(); loadSent(); }
  if (view === 'recovery') renderRecovery();
  if (view === 'drop' && !state.editing) { resetDrop(); loadBoxes(); }
  if (view === 'bottle') loadBottle(arg);
  renderDying();
}

// ---------------------------------------------------------------- bottle lists

/** The conditions that matter to a visitor: without the expiry (said apart). */
const realConditions = (b) => (b.conditions || []).filter((c) => c.kind !== 'expiry');

/** One line about how a bottle opens, in words that do not contradict its state. */
function opensText(b) {
  const conds = realConditions(b);
  if (b.state === 'active' || b.state === 'dying') return b.hasOpened || b.isMine ? '' : 'Open: join its chat.';
  if (!conds.length) return 'No conditions: anyone here can open it.';
  const notMet = conds.filter((c) => c.status === 'notSatisfied').length;
  const askedAtOpen = conds.filter((c) => c.status === 'unknown' && (c.kind === 'password' || c.kind === 'presence'));
  const parts = [`Opens with ${plural(conds.length, 'condition')}`];
  if (notMet) parts.push(`${notMet} not met right now`);
  else if (askedAtOpen.length) parts.push(askedAtOpen.map((c) => (c.kind === 'password' ? 'you need the password' : 'you need to be at the box')).join(', '));
  return parts.join(': ') + '.';
}

function bottleCard(b, extraActions) {
  const teaser = b.state === 'locked' && !b.isMine;
  const li = el('li', { 'data-bottle': b.id, class: teaser ? 'teaser' : null });
  const unread = b.unreadLines > 0 ? el('span', { class: 'unread', 'aria-label': `${plural(b.unreadLines, 'new line')}` }, String(b.unreadLines)) : null;
  li.append(el('div', { class: 'top' },
    el('span', { class: `badge ${b.state}` }, STATE_WORDS[b.state] || b.state),
    b.shareCode ? el('span', { class: 'code' }, b.shareCode) : null,
    unread,
    b.isMine ? el('span', { class: 'muted small' }, 'yours') : null,
    b.hasImage ? el('span', { class: 'muted small' }, 'with a photo') : null,
    b.hasWhisper ? el('span', { class: 'muted small' }, 'with a whisper') : null));
  if (b.hint) li.append(el('p', { class: 'hint' }, `“${b.hint}”`));
  const opens = opensText(b);
  if (opens) li.append(el('p', { class: 'muted small' }, opens));
  if (b.chat && (b.hasOpened || b.isMine)) li.append(el('p', { class: 'muted small' }, chatLine(b)));
  const label = b.state === 'locked' ? 'See the conditions' : (b.hasOpened || b.isMine ? (b.chat ? 'Go to the chat' : 'View') : 'Open it');
  const actions = el('div', { class: 'actions' },
    el('button', { type: 'button', onclick: () => go(`b/${b.id}`), 'aria-label': `${label}: bottle ${b.shareCode || ''}` }, label));
  for (const a of extraActions || []) actions.append(a);
  li.append(actions);
  return li;
}

function chatLine(b) {
  const c = b.chat;
  const present = (c.present || []).length;
  const parts = [`${plural(c.lines || 0, 'line')} in the chat`, present ? `${present} here now` : 'nobody here now'];
  if (c.state === 'dying' && c.deadline) parts.push(`ends in ${fmtDuration(Date.parse(c.deadline) - boxNow())}`);
  return parts.join(' · ');
}

let listTimer = 0;
/** Several events in a row reload the list once. */
function scheduleList() { clearTimeout(listTimer); listTimer = setTimeout(loadList, 300); }

async function loadList() {
  clearTimeout(listTimer);
  try {
    const { bottles } = await api('GET', '/bottles');
    // Open ones first (what a visitor can do now), then chats, then locked teasers.
    const order = { openable: 0, active: 1, dying: 1, locked: 2 };
    bottles.sort((a, b) => (order[a.state] ?? 3) - (order[b.state] ?? 3));
    bottles.forEach(follow);
    $('bottle-list').replaceChildren(...bottles.map((b) => bottleCard(b)));
    show($('bottle-empty'), bottles.length === 0);
    show($('list-title'), true);
  } catch (e) {
    if (e.code === 'offline') { show($('bottle-empty'), false); show($('list-title'), $('bottle-list').children.length > 0); }
  }
  loadRemoteChats();
}

// ---------------------------------------------------------------- the mesh: other boxes

/** Other boxes for "where it goes"; the choice stays hidden on a box without a mesh. */
async function loadBoxes() {
  let boxes = [];
  try { boxes = (await api('GET', '/mesh/boxes')).boxes; } catch (_) { boxes = []; }
  state.meshBoxes = boxes;
  const km = (m) => (m == null ? '' : ` (${fmtDistance(m)})`);
  $('drop-to').replaceChildren(...boxes.map((b) => el('option', { value: b.name }, b.name + km(b.distanceMeters))));
  show($('drop-where-box'), boxes.length > 0 && !state.editing);
  if (!boxes.length) $('drop-where').value = 'nearby';
  show($('drop-to-box'), $('drop-where').value === 'manual');
}

async function loadRemoteChats() {
  let chats = [];
  try { chats = (await api('GET', '/mesh/chats')).chats; } catch (_) { chats = []; }
  // A chat that needs the bottle's password asks for it here; the box seals it to the host.
  $('remote-list').replaceChildren(...chats.map((c) => {
    const field = c.needsPassword
      ? el('input', { type: 'password', id: `remote-password-${c.bottle}` })
      : null;
    return el('li', { 'data-remote': c.bottle },
      el('div', { class: 'top' }, el('span', { class: 'badge active' }, 'Open chat'), el('span', { class: 'muted small' }, `at ${c.host}`)),
      c.hint ? el('p', { class: 'hint' }, `“${c.hint}”`) : null,
      c.needsPassword ? el('label', { for: `remote-password-${c.bottle}` }, 'The bottle’s password') : null,
      field,
      el('div', { class: 'actions' }, el('button', { type: 'button', onclick: () => joinRemote(c, field ? field.value : null) }, 'Join the chat')));
  }));
  show($('remote-box'), chats.length > 0);
}

async function joinRemote(c, password) {
  $('remote-error').textContent = '';
  try {
    await api('POST', `/mesh/chats/${c.bottle}/join`, password ? { json: { password } } : {});
  } catch (e) { fieldError('remote-error', errorText(e)); return; }
  state.remote = { bottle: c.bottle, timer: null };
  $('remote-chat-title').textContent = `Chat at ${c.host}`;
  $('remote-lines').replaceChildren();
  show($('remote-chat'), true);
  $('remote-text').focus();
  pollRemote();
}

async function pollRemote() {
  const r = state.remote;
  if (!r) return;
  clearTimeout(r.timer);
  try {
    const { lines } = await api('GET', `/mesh/chats/${r.bottle}/lines`);
    if (state.remote !== r) return;
    $('remote-error').textContent = '';
    $('remote-lines').replaceChildren(...lines.map((l) => el('li', { class: l.isMe ? 'me' : '' },
      el('div', { class: 'bubble' }, el('span', { class: 'who' }, `${l.isMe ? 'You' : LABEL_WORDS[l.label] || l.label} · ${clockTime(new Date(l.sentAt))}`),
        el('span', { class: 'message-text', lang: l.language || null }, l.text)))));
  } catch (e) {
    if (e.code === 'not_found') { leaveRemote(true); notice('That chat is gone: the box that hosted it erased it.'); return; }
    // Lines are shown only once the host admitted us; until then `details.admission` says why
    // not (pending, refused with the reason, or none: this box restarted and forgot the join —
    // the host still knows us through this box, so joining again needs no password).
    const admission = e.code === 'not_admitted' && e.details ? e.details.admission : null;
    $('remote-error').textContent = admission && admission.state === 'refused' ? `The box that hosts it said no: ${admission.reason}.`
      : (admission && admission.state === 'pending' ? '' : (e.code === 'offline' ? '' : errorText(e)));
    if (admission && admission.state === 'none' && !r.rejoined) {
      r.rejoined = true;
      try { await api('POST', `/mesh/chats/${r.bottle}/join`); } catch (_) { /* asked again on the next join */ }
    }
  }
  r.timer = setTimeout(pollRemote, 3000);
}

async function sendRemote(ev) {
  ev.preventDefault();
  const r = state.remote;
  const input = $('remote-text');
  const text = input.value.trim();
  if (!r) return;
  if (!text) { fieldError('remote-error', 'Write a line first.', input); return; }
  try {
    await api('POST', `/mesh/chats/${r.bottle}/lines`, { json: { text, language: navigator.language || 'und' } });
    input.value = '';
    notice('Sent over the mesh; it shows up once the box that hosts the chat has it.');
  } catch (e) { fieldError('remote-error', errorText(e), input); }
}

async function leaveRemote(gone) {
  const r = state.remote;
  state.remote = null;
  if (r) clearTimeout(r.timer);
  show($('remote-chat'), false);
  if (r && !gone) { try { await api('POST', `/mesh/chats/${r.bottle}/leave`); } catch (_) { /* the host times us out */ } }
  if (state.view === 'home') loadRemoteChats();
}

async function loadSent() {
  let bottles = [];
  try { bottles = (await api('GET', '/mesh/sent')).bottles; } catch (_) { bottles = []; }
  $('sent-list').replaceChildren(...bottles.map((b) => el('li', {},
    el('div', { class: 'top' }, el('span', { class: `badge ${b.state === 'delivered' ? 'active' : 'locked'}` }, b.state === 'delivered' ? 'Delivered' : 'Travelling'),
      el('span', { class: 'muted small' }, `to ${b.destination}${b.placement === 'drift' ? ' (drifted)' : ''}`)),
    el('p', { class: 'muted small' }, `Sent ${boxTime(b.sentAt)}, disappears ${boxTime(b.expiresAt)}`))));
  show($('sent-box'), bottles.length > 0);
}

// ---------------------------------------------------------------- camps: emergencies on top, news on home

async function loadCamps() {
  try {
    const r = await fetch(`${API}/camps`, { headers: { Accept: 'application/json' } });
    if (r.ok) renderCamps(await r.json());
  } catch (_) { /* offline: the banner says it */ }
}

function emergencyWords(m) {
  const where = fromBox(m.latitude, m.longitude);
  const facts = [ago(m.receivedAt)];
  if (where) facts.push(where);
  const from = m.fromMe ? 'sent from this box' : (m.camp || 'a camp nearby');
  return { title: `${EMERGENCY_WORDS[m.detail] || 'Emergency'} — ${from}`, text: m.text, facts: facts.join(' · ') };
}

function eventWhen(m) {
  if (!m.eventStart) return '';
  const start = Date.parse(m.eventStart);
  const mins = m.eventMinutes;
  let when = boxTime(m.eventStart);
  if (mins) when += `, for ${mins >= 120 ? `${Math.round(mins / 60)} h` : `${mins} min`}`;
  if (start > boxNow()) when += ` (in ${fmtDuration(start - boxNow())})`;
  else if (!mins || start + mins * 60000 > boxNow()) when += ' (now)';
  return when;
}

/** Emergencies as a banner on every screen; camps, requests and events on the first screen. */
function renderCamps(data) {
  if (!data) return;
  state.camps = data;
  const camps = data.camps || [], messages = data.messages || [];
  const alerts = messages.filter((m) => m.kind === 'emergency' && Date.parse(m.expiresAt) > boxNow()
    && !state.hiddenAlerts.has(`${m.node}/${m.receivedAt}`)).slice(0, 2);
  $('camp-alerts').replaceChildren(...alerts.map((m) => {
    const w = emergencyWords(m);
    const key = `${m.node}/${m.receivedAt}`;
    return el('div', { role: 'alert', 'data-kind': m.detail },
      el('p', {}, el('strong', {}, w.title), `${w.text} `, el('span', { class: 'small' }, `(${w.facts})`)),
      el('button', { type: 'button', class: 'on-dark', 'aria-label': `Hide this alert: ${w.title}`, onclick: () => { state.hiddenAlerts.add(key); renderCamps(state.camps); } }, 'Hide'));
  }));
  show($('camp-alerts'), alerts.length > 0);
  $('camp-list').replaceChildren(...camps.map((c) => {
    const facts = [plural(c.members, 'person', 'people')];
    if (c.distanceMeters != null) facts.push(`${fmtDistance(c.distanceMeters)} away`);
    facts.push(`heard ${ago(c.lastSeen)}`);
    return el('li', { class: 'camp' }, el('strong', {}, c.name), el('p', { class: 'muted small' }, facts.join(' · ')),
      c.note ? el('p', {}, c.note) : null);
  }));
  const news = messages.filter((m) => m.kind !== 'emergency').slice(0, 10);
  $('camp-messages').replaceChildren(...news.map((m) => {
    const from = m.camp || 'A camp';
    let head;
    if (m.kind === 'event') head = `${from} invites: ${m.detail || 'an event'} — ${eventWhen(m)}`;
    else if (m.kind === 'request') head = `${from} needs ${RESOURCE_WORDS[m.detail] || m.detail || 'help'}`;
    else head = from;
    return el('li', { class: `camp-${m.kind}` }, el('strong', {}, head), el('p', {}, m.text), el('span', { class: 'muted small' }, ago(m.receivedAt)));
  }));
  show($('camp-news-title'), news.length > 0);
  show($('camps'), camps.length + news.length > 0);
}

// ---------------------------------------------------------------- share codes

/** A share code as people type it: spaces, dashes and case do not matter. */
const normalCode = (raw) => raw.toUpperCase().replace(/[^0-9A-Z]/g, '');

async function findByCode(ev) {
  ev.preventDefault();
  const input = $('share-code');
  const code = normalCode(input.value);
  clearErrors($('code-form'));
  if (!code) { fieldError('code-error', 'Type the share code first (8 letters and digits).', input); return; }
  if (code.length !== 8) { fieldError('code-error', `A share code has 8 letters and digits; this one has ${code.length}.`, input); return; }
  try {
    const b = await api('GET', `/bottles/${encodeURIComponent(code)}`);
    input.value = '';
    go(`b/${b.id}`);
  } catch (e) {
    if (e.code !== 'not_found') { fieldError('code-error', errorText(e), input); return; }
    // A bottle that left this box for another one: say where, and offer to watch it from here.
    let travelled = null;
    try { travelled = await api('GET', `/mesh/travelled/${encodeURIComponent(code)}`); } catch (_) { travelled = null; }
    if (!travelled) { fieldError('code-error', 'No bottle with that code here. It may be gone, or the code is mistyped.', input); return; }
    $('code-error').replaceChildren(
      `This bottle travelled to ${travelled.destination}. `,
      el('button', { type: 'button', id: 'watch-travelled', onclick: async () => {
        try {
          await api('PUT', `/mesh/watches/${encodeURIComponent(code)}`);
          $('code-error').textContent = `Watching: you will hear here when it can be opened at ${travelled.destination}.`;
        } catch (err) { $('code-error').textContent = errorText(err); }
      } }, 'Tell me when it can be opened'));
    $('code-error').scrollIntoView({ block: 'center' });
  }
}

async function copyText(text, input) {
  let ok = false;
  try { if (navigator.clipboard && window.isSecureContext) { await navigator.clipboard.writeText(text); ok = true; } } catch (_) { ok = false; }
  if (!ok && input) { input.focus(); input.select(); try { ok = document.execCommand('copy'); } catch (_) { ok = false; } }
  if (!ok) {
    const t = el('textarea', { class: 'vh', 'aria-hidden': 'true' }, text);
    document.body.append(t); t.select();
    try { ok = document.execCommand('copy'); } catch (_) { ok = false; }
    t.remove();
  }
  return ok;
}

// ---------------------------------------------------------------- My bottles and Watching

let unreadTotal = 0;
function setUnreadBadge(n) {
  unreadTotal = n;
  const badge = $('mine-unread');
  badge.textContent = n > 99 ? '99+' : String(n);
  show(badge, n > 0);
  document.querySelector('.tabs button[data-view="mine"]').setAttribute('aria-label', n > 0 ? `Mine, ${plural(n, 'new line')}` : 'Mine');
}

async function refreshUnread() {
  try {
    const [{ bottles }, watches] = await Promise.all([api('GET', '/my/bottles'), api('GET', '/my/watches')]);
    setUnreadBadge(bottles.concat(watches.bottles).reduce((n, b) => n + (b.unreadLines || 0), 0));
  } catch (_) { /* next time */ }
}

function notificationChoices(b) {
  const n = b.notifications;
  if (!n) return null;
  const box = el('details', { class: 'notify' }, el('summary', {}, 'Notices I get'));
  const group = el('div', { class: 'check', role: 'group', 'aria-label': `Notices about bottle ${b.shareCode}` });
  const words = { firstOpen: 'When it is opened', participantJoined: 'When someone joins', linesWhileAway: 'New lines while I am away' };
  for (const key of Object.keys(words)) {
    const input = el('input', { type: 'checkbox', checked: n[key] });
    const chip = el('label', { class: `chip${n[key] ? ' on' : ''}` }, input, words[key]);
    input.addEventListener('change', async () => {
      chip.classList.toggle('on', input.checked);
      const next = { ...n, [key]: input.checked };
      try { Object.assign(n, await api('PUT', `/bottles/${b.id}/notifications`, { json: next })); notice('Saved.'); }
      catch (e) { input.checked = !input.checked; chip.classList.toggle('on', input.checked); notice(errorText(e)); }
    });
    group.append(chip);
  }
  box.append(group);
  return box;
}

async function loadMine() {
  try {
    const [{ bottles }, watches] = await Promise.all([api('GET', '/my/bottles'), api('GET', '/my/watches')]);
    bottles.forEach(follow);
    $('mine-list').replaceChildren(...bottles.map((b) => {
      const editable = b.state === 'locked' || b.state === 'openable';
      const acts = editable ? [
        el('button', { type: 'button', onclick: () => startEdit(b) }, 'Edit'),
        el('button', { type: 'button', class: 'danger', onclick: () => retire(b) }, 'Retire'),
      ] : [];
      const card = bottleCard(b, acts);
      const text = (b.content && b.content.text) || (b.draft && b.draft.text);
      if (text) card.insertBefore(el('p', { class: 'message-text' }, text.length > 140 ? text.slice(0, 140) + '…' : text), card.children[1] || null);
      const choices = notificationChoices(b);
      if (choices) card.append(choices);
      return card;
    }));
    show($('mine-empty'), bottles.length === 0);
    $('watch-list').replaceChildren(...watches.bottles.map((b) => bottleCard(b, [
      el('button', { type: 'button', onclick: async () => { try { await api('DELETE', `/bottles/${b.id}/watch`); loadMine(); } catch (e) { notice(errorText(e)); } } }, 'Stop watching'),
    ])));
    show($('watch-empty'), watches.bottles.length === 0);
    setUnreadBadge(bottles.concat(watches.bottles).reduce((n, b) => n + (b.unreadLines || 0), 0));
  } catch (e) { if (e.code !== 'offline') notice(errorText(e)); }
}

async function retire(b) {
  if (!window.confirm(`Retire bottle ${b.shareCode || ''}? It is erased for good.`)) return;
  try { await api('DELETE', `/bottles/${b.id}`); notice('The bottle was retired and erased.'); loadMine(); }
  catch (e) { notice(errorText(e)); }
}

// ---------------------------------------------------------------- conditions form

const DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
const COND_KINDS = {
  password: { label: 'A password', fields: [['password', 'Password', 'password']] },
  timeOfDay: { label: 'A time of day', fields: [['start', 'From', 'time', '18:00'], ['end', 'Until', 'time', '23:00']] },
  daysOfWeek: { label: 'Days of the week', fields: [['days', 'Days', 'checks', DAYS]] },
  dateRange: { label: 'Dates', fields: [['from', 'From date', 'date'], ['through', 'Through date', 'date']] },
  solar: { label: 'Day, dusk, night or dawn', fields: [['phases', 'When', 'checks', ['day', 'civilDusk', 'night', 'civilDawn']]] },
  temperature: { label: 'Temperature', fields: [['min', 'At least °C', 'number'], ['max', 'At most °C', 'number']], range: [-60, 70] },
  humidity: { label: 'Humidity', fields: [['min', 'At least %', 'number'], ['max', 'At most %', 'number']], range: [0, 100] },
  pressure: { label: 'Air pressure', fields: [['min', 'At least hPa', 'number'], ['max', 'At most hPa', 'number']], range: [800, 1100] },
  pressureTrend: { label: 'Pressure rising or falling', fields: [['trend', 'Trend', 'select', ['rising', 'falling', 'steady']], ['hours', 'Over hours', 'int', '3']] },
  rain: { label: 'Rain', fields: [['withinMinutes', 'In the last minutes', 'int', '60'], ['minimumMillimetres', 'At least mm', 'number']] },
  presence: { label: 'Being at the box (press its button)', fields: [['withinSeconds', 'Pressed within seconds', 'int', '120']] },
  delay: { label: 'A wait', fields: [['seconds', 'Opens after minutes', 'minutes', '60']] },
  boxPosition: { label: 'Where the box is', fields: [['latitude', 'Latitude', 'number'], ['longitude', 'Longitude', 'number'], ['radiusMeters', 'Within metres', 'number', '500']] },
  distanceFromOrigin: { label: 'Distance from where it was dropped', fields: [['maximumKilometres', 'Within km', 'number', '10']] },
};
const TREND_WORDS = { rising: 'Rising', falling: 'Falling', steady: 'Steady' };
let condSeq = 0;

function addCondition(kind, values) {
  const spec = COND_KINDS[kind];
  if (!spec) return;
  const max = state.limits.maxConditions;
  if (max && $('cond-list').children.length >= max) { fieldError('cond-error', `A bottle has at most ${max} conditions.`, $('cond-kind')); return; }
  const n = ++condSeq;
  const v = values || {};
  const box = el('fieldset', { class: 'cond', 'data-kind': kind });
  box.append(el('legend', {}, spec.label));
  const grid = el('div', { class: 'grid' });
  for (const [name, label, type, extra] of spec.fields) {
    const id = `c${n}-${name}`;
    if (type === 'checks') {
      const words = name === 'days' ? null : SOLAR_WORDS;
      const group = el('div', { class: 'days', role: 'group', 'aria-label': label, id });
      for (const opt of extra) {
        const on = (v[name] || []).includes(opt);
        const input = el('input', { type: 'checkbox', id: `${id}-${opt}`, 'data-field': name, value: opt, checked: on });
        const chip = el('label', { class: `chip${on ? ' on' : ''}`, for: `${id}-${opt}` }, input, words ? words[opt] : opt[0].toUpperCase() + opt.slice(1, 3));
        input.addEventListener('change', () => chip.classList.toggle('on', input.checked));
        group.append(chip);
      }
      box.append(group);
      continue;
    }
    let input;
    if (type === 'select') {
      input = el('select', { id, 'data-field': name }, ...extra.map((o) => el('option', { value: o, selected: v[name] === o }, TREND_WORDS[o] || o)));
    } else {
      const htmlType = { password: 'text', time: 'time', date: 'date', number: 'number', int: 'number', minutes: 'number' }[type];
      let value = v[name];
      if (type === 'minutes' && value != null) value = Math.round(value / 60);
      if (value == null && kind === 'boxPosition' && state.box && state.box.position) value = state.box.position[name];
      if (value == null && extra && type !== 'password') value = extra;
      input = el('input', { id, type: htmlType, 'data-field': name, 'data-type': type, value: value ?? '', step: type === 'number' ? 'any' : null, inputmode: type === 'int' || type === 'minutes' ? 'numeric' : (type === 'number' ? 'decimal' : null), autocomplete: htmlType === 'text' ? 'off' : null });
      if (type === 'password' && state.editing) input.placeholder = 'Empty: keep the current one';
    }
    grid.append(el('div', {}, el('label', { for: id }, label), input));
  }
  box.append(grid);
  box.append(el('p', { class: 'error', id: `c${n}-error`, role: 'alert' }));
  const hid = `c${n}-hint`;
  box.append(el('div', { class: 'field' }, el('label', { for: hid }, 'Hint for this condition (optional)'),
    el('input', { id: hid, 'data-field': 'hint', value: v.hint || '', autocomplete: 'off', maxlength: state.limits.hintMaxLength || null })));
  box.append(el('button', { type: 'button', class: 'remove danger', onclick: () => box.remove() }, `Remove “${spec.label}”`));
  $('cond-list').append(box);
  const first = box.querySelector('input, select');
  if (first && !values) first.focus();
}

class FieldProblem extends Error {
  constructor(message, field, errorId) { super(message); this.field = field; this.errorId = errorId; }
}

/** Reads the conditions form into ConditionInput objects, checking each as the box would. */
function readConditions() {
  const out = [];
  for (const box of $('cond-list').children) {
    const kind = box.dataset.kind;
    const spec = COND_KINDS[kind];
    const errorId = box.querySelector('.error').id;
    const fail = (message, field) => { throw new FieldProblem(message, field || box.querySelector('input, select'), errorId); };
    const c = { kind };
    const fields = {};
    for (const input of box.querySelectorAll('[data-field]')) {
      const f = input.dataset.field;
      fields[f] = input;
      if (input.type === 'checkbox') { if (!c[f]) c[f] = []; if (input.checked) c[f].push(input.value); continue; }
      const raw = input.value.trim();
      if (raw === '') continue;
      const t = input.dataset.type;
      if (t === 'number' || t === 'int' || t === 'minutes') {
        const num = Number(raw);
        if (!Number.isFinite(num)) fail(`“${raw}” is not a number.`, input);
        c[f] = t === 'minutes' ? Math.round(num * 60) : (t === 'int' ? Math.round(num) : num);
      } else c[f] = raw;
    }
    const need = (f, words) => { if (c[f] == null) fail(`${words} is missing.`, fields[f]); };
    switch (kind) {
      case 'password': if (!c.password && !state.editing) fail('Type the password people will need.', fields.password); break;
      case 'timeOfDay': need('start', 'The start time'); need('end', 'The end time'); break;
      case 'daysOfWeek': if (!(c.days || []).length) fail('Pick at least one day.'); break;
      case 'solar': if (!(c.phases || []).length) fail('Pick at least one: day, dusk, night or dawn.'); break;
      case 'dateRange':
        if (!c.from && !c.through) fail('Give a first date, a last date, or both.', fields.from);
        if (c.from && c.through && c.from > c.through) fail('The first date is after the last one.', fields.through);
        break;
      case 'temperature': case 'humidity': case 'pressure': {
        const unit = spec.fields[0][1].split(' ').pop();
        if (c.min == null && c.max == null) fail(`Give a lowest or a highest ${spec.label.toLowerCase()} (or both).`, fields.min);
        for (const f of ['min', 'max']) {
          if (c[f] != null && (c[f] < spec.range[0] || c[f] > spec.range[1])) fail(`${spec.label} goes from ${spec.range[0]} to ${spec.range[1]} ${unit}.`, fields[f]);
        }
        if (c.min != null && c.max != null && c.min > c.max) fail('The lowest value is above the highest.', fields.max);
        break;
      }
      case 'pressureTrend': need('hours', 'The number of hours'); if (c.hours < 1 || c.hours > 24) fail('Over 1 to 24 hours.', fields.hours); break;
      case 'rain': need('withinMinutes', 'The number of minutes'); if (c.withinMinutes < 1) fail('At least 1 minute.', fields.withinMinutes); break;
      case 'presence': need('withinSeconds', 'The number of seconds'); if (c.withinSeconds < 10) fail('At least 10 seconds.', fields.withinSeconds); break;
      case 'delay': need('seconds', 'The wait'); if (c.seconds < 60) fail('Wait at least 1 minute.', fields.seconds); break;
      case 'boxPosition':
        need('latitude', 'The latitude'); need('longitude', 'The longitude');
        if (Math.abs(c.latitude) > 90) fail('A latitude is between -90 and 90.', fields.latitude);
        if (Math.abs(c.longitude) > 180) fail('A longitude is between -180 and 180.', fields.longitude);
        if (!(c.radiusMeters > 0)) fail('Give a distance in metres above 0.', fields.radiusMeters);
        break;
      case 'distanceFromOrigin': if (!(c.maximumKilometres > 0)) fail('Give a distance in km above 0.', fields.maximumKilometres); break;
      default: break;
    }
    out.push(c);
  }
  return out;
}

function resetDrop() {
  state.editing = null;
  $('drop-form').reset();
  for (const chip of $('drop-form').querySelectorAll('.chip.on')) chip.classList.remove('on');
  $('cond-list').replaceChildren();
  clearErrors($('drop-form'));
  clearPhoto(); clearWhisper();
  show($('drop-form'), true);
  show($('drop-result'), false);
  show($('drop-cancel-edit'), false);
  show($('photo-remove-box'), false);
  show($('whisper-remove-box'), false);
  $('photo-had').textContent = '';
  $('drop-title').textContent = 'Drop a bottle';
  $('drop-submit').textContent = 'Drop the bottle';
  applyLimits();
}

function applyLimits() {
  const l = state.limits;
  if (l.textMaxLength) $('drop-text').maxLength = l.textMaxLength;
  if (l.hintMaxLength) $('drop-hint').maxLength = l.hintMaxLength;
  if (l.chatTextMaxLength) $('chat-text').maxLength = l.chatTextMaxLength;
  if (l.maxLifetimeSeconds) $('drop-lifetime').max = Math.floor(l.maxLifetimeSeconds / 3600);
  if (!state.editing && !$('drop-lifetime').value && l.defaultLifetimeSeconds) $('drop-lifetime').value = Math.round(l.defaultLifetimeSeconds / 3600);
  countText();
}

function countText() {
  const max = state.limits.textMaxLength;
  const n = $('drop-text').value.length;
  $('drop-text-count').textContent = max && n > max * 0.8 ? `${n} of ${max} characters` : '';
}

function startEdit(b) {
  const d = b.draft || {};
  state.editing = b;
  go('drop');
  $('drop-form').reset();
  $('cond-list').replaceChildren();
  clearErrors($('drop-form'));
  clearPhoto(); clearWhisper();
  show($('drop-result'), false); show($('drop-form'), true);
  $('drop-title').textContent = `Edit bottle ${b.shareCode || ''}`;
  $('drop-submit').textContent = 'Save changes';
  show($('drop-cancel-edit'), true);
  $('drop-text').value = d.text || '';
  $('drop-hint').value = d.hint || '';
  $('drop-oneshot').checked = !!d.oneShot;
  $('drop-oneshot').parentElement.classList.toggle('on', !!d.oneShot);
  if (d.lifetimeSeconds) $('drop-lifetime').value = Math.round(d.lifetimeSeconds / 3600);
  for (const c of d.conditions || []) addCondition(c.kind, c);
  $('photo-had').textContent = b.hasImage ? 'This bottle has a photo; choose another to replace it.' : '';
  show($('photo-remove-box'), !!b.hasImage);
  show($('whisper-remove-box'), !!b.hasWhisper);
  applyLimits();
}

// ---------------------------------------------------------------- photo (resized in the browser)

let photoBlob = null;

function clearPhoto() {
  photoBlob = null;
  $('drop-photo').value = '';
  const img = $('drop-photo-preview');
  if (img.src) URL.revokeObjectURL(img.src);
  img.removeAttribute('src');
  show(img, false); show($('drop-photo-clear'), false);
  $('drop-photo-info').textContent = '';
}

function loadImage(file) {
  return new Promise((resolve, reject) => {
    const img = new Image();
    img.onload = () => resolve(img);
    img.onerror = () => reject(new Error('This photo cannot be read by the browser. Try a JPEG or PNG.'));
    img.src = URL.createObjectURL(file);
  });
}

/** Scales to at most `maxSide` px and re-encodes as WebP (or JPEG where WebP encoding is missing). */
async function resizePhoto(file) {
  const maxSide = Math.min(1600, state.limits.imageMaxSide || 1600);
  const img = await loadImage(file);
  URL.revokeObjectURL(img.src);
  const scale = Math.min(1, maxSide / Math.max(img.naturalWidth, img.naturalHeight));
  const w = Math.max(1, Math.round(img.naturalWidth * scale)), h = Math.max(1, Math.round(img.naturalHeight * scale));
  const canvas = document.createElement('canvas');
  canvas.width = w; canvas.height = h;
  canvas.getContext('2d').drawImage(img, 0, 0, w, h);
  const encode = (type, q) => new Promise((res) => canvas.toBlob(res, type, q));
  let blob = await encode('image/webp', 0.82);
  if (!blob || blob.type !== 'image/webp') blob = await encode('image/jpeg', 0.85);
  if (!blob) throw new Error('The photo could not be prepared.');
  const max = state.limits.imageMaxBytes;
  if (max && blob.size > max) throw new Error('The photo is too large even after resizing.');
  return { blob, width: w, height: h };
}

async function onPhotoChosen() {
  const file = $('drop-photo').files[0];
  if (!file) return;
  $('drop-photo-info').textContent = 'Preparing the photo…';
  try {
    const { blob, width, height } = await resizePhoto(file);
    photoBlob = blob;
    const img = $('drop-photo-preview');
    img.src = URL.createObjectURL(blob);
    show(img, true); show($('drop-photo-clear'), true);
    $('drop-photo-info').textContent = `${width}×${height}, ${Math.round(blob.size / 1024)} KB`;
  } catch (e) {
    clearPhoto();
    $('drop-photo-info').textContent = e.message;
  }
}

// ---------------------------------------------------------------- whisper

let whisperBlob = null, recorder = null, recordStart = 0, recordTimer = null;
const canRecord = () => window.isSecureContext && navigator.mediaDevices && navigator.mediaDevices.getUserMedia && 'MediaRecorder' in window;
const whisperMin = () => state.limits.whisperMinSeconds || 2;
const whisperMax = () => state.limits.whisperMaxSeconds || 5;
/** Why the page cannot record itself here (plain HTTP on the box's Wi-Fi). */
const WHY_NO_RECORDING = 'Your browser allows recording inside a page only over a secure connection, which the box’s Wi-Fi does not have; your phone’s own recorder opens instead.';

function clearWhisper() {
  whisperBlob = null;
  $('drop-whisper').value = '';
  const a = $('whisper-preview');
  if (a.src) URL.revokeObjectURL(a.src);
  a.removeAttribute('src');
  show(a, false); show($('whisper-clear'), false);
  $('whisper-info').textContent = '';
  $('whisper-timer').textContent = '';
}

function setWhisper(blob, seconds) {
  whisperBlob = blob;
  const a = $('whisper-preview');
  a.src = URL.createObjectURL(blob);
  show(a, true); show($('whisper-clear'), true);
  $('whisper-info').textContent = `${seconds ? seconds.toFixed(1) + ' s, ' : ''}${Math.round(blob.size / 1024)} KB`;
}

/** Records 2–5 s with MediaRecorder; calls `done(blob, seconds)` or `fail(message)`. */
async function record(button, timer, done, fail) {
  if (recorder && recorder.state === 'recording') { recorder.stop(); return; }
  let stream;
  try { stream = await navigator.mediaDevices.getUserMedia({ audio: true }); }
  catch (_) { fail('The microphone is not available (permission refused?). Choose a sound file instead.'); return; }
  const chunks = [];
  const label = button.innerHTML;
  recorder = new MediaRecorder(stream);
  recorder.ondataavailable = (e) => { if (e.data.size) chunks.push(e.data); };
  recorder.onstop = () => {
    clearInterval(recordTimer); clearTimeout(recorder.autoStop);
    stream.getTracks().forEach((t) => t.stop());
    button.innerHTML = label;
    button.setAttribute('aria-pressed', 'false');
    const secs = (performance.now() - recordStart) / 1000;
    if (secs < whisperMin()) { fail(`Too short (${secs.toFixed(1)} s). A whisper needs at least ${whisperMin()} s.`); return; }
    const type = (recorder.mimeType || 'audio/webm').split(';')[0];
    done(new Blob(chunks, { type }), Math.min(secs, whisperMax()));
  };
  recordStart = performance.now();
  recorder.start();
  button.textContent = 'Stop recording';
  button.setAttribute('aria-pressed', 'true');
  recordTimer = setInterval(() => { if (timer) timer.textContent = `${((performance.now() - recordStart) / 1000).toFixed(1)} s of ${whisperMax()} s`; }, 200);
  recorder.autoStop = setTimeout(() => { if (recorder.state === 'recording') recorder.stop(); }, whisperMax() * 1000);
}

function toggleRecording() {
  if (!(recorder && recorder.state === 'recording')) clearWhisper();
  record($('whisper-record'), $('whisper-timer'), setWhisper, (message) => {
    $('whisper-info').textContent = message;
    show($('whisper-file-box'), true);
  });
}

function audioDuration(blob) {
  return new Promise((resolve) => {
    const a = document.createElement('audio');
    a.preload = 'metadata';
    a.onloadedmetadata = () => { resolve(Number.isFinite(a.duration) ? a.duration : null); URL.revokeObjectURL(a.src); };
    a.onerror = () => resolve(null);
    a.src = URL.createObjectURL(blob);
  });
}

/** Checks a chosen sound file's size and length; returns a problem sentence or null. */
async function whisperProblem(file) {
  const max = state.limits.audioMaxBytes;
  if (max && file.size > max) return 'This sound file is too large.';
  const secs = await audioDuration(file);
  if (secs != null && (secs < whisperMin() - 0.05 || secs > whisperMax() + 0.25)) {
    return `A whisper is ${whisperMin()}–${whisperMax()} s long; this one is ${secs.toFixed(1)} s.`;
  }
  file.seconds = secs;
  return null;
}

async function onWhisperChosen() {
  const file = $('drop-whisper').files[0];
  if (!file) return;
  const problem = await whisperProblem(file);
  if (problem) { $('whisper-info').textContent = problem; $('drop-whisper').value = ''; return; }
  setWhisper(file, file.seconds);
}

function audioType(blob) {
  const t = (blob.type || '').split(';')[0].toLowerCase();
  return { 'audio/x-m4a': 'audio/mp4', 'audio/m4a': 'audio/mp4', 'audio/x-wav': 'audio/wav', 'audio/wave': 'audio/wav', 'audio/mp3': 'audio/mpeg', '': 'application/octet-stream' }[t] || t;
}

// ---------------------------------------------------------------- drop / edit submit

async function submitDrop(ev) {
  ev.preventDefault();
  clearErrors($('drop-form'));
  const text = $('drop-text').value;
  if (!text.trim()) { fieldError('drop-text-error', 'Write a message first; a photo or a whisper can go with it.', $('drop-text')); return; }
  let conditions;
  try { conditions = readConditions(); } catch (e) { fieldError(e.errorId || 'drop-error', e.message, e.field); return; }
  const hours = Number($('drop-lifetime').value);
  const maxHours = state.limits.maxLifetimeSeconds ? Math.floor(state.limits.maxLifetimeSeconds / 3600) : null;
  if ($('drop-lifetime').value && (!(hours > 0) || (maxHours && hours > maxHours))) {
    $('drop-lifetime').closest('details').open = true;
    fieldError('drop-lifetime-error', maxHours ? `Between 1 and ${maxHours} hours.` : 'At least 1 hour.', $('drop-lifetime'));
    return;
  }
  const where = state.editing ? 'nearby' : $('drop-where').value;
  const draft = { text, conditions, oneShot: $('drop-oneshot').checked, placement: where };
  if (where !== 'nearby') {
    if (photoBlob || whisperBlob) { fieldError('drop-error', 'Photos and whispers stay here: a bottle that travels carries text only. Remove them, or keep it here.', $('drop-where')); return; }
    if (where === 'manual') {
      if (!$('drop-to').value) { fieldError('drop-error', 'Choose the box it goes to.', $('drop-to')); return; }
      draft.to = $('drop-to').value;
    }
  }
  const hint = $('drop-hint').value.trim();
  draft.hint = hint || null;
  if (hours > 0) draft.lifetimeSeconds = Math.round(hours * 3600);
  const button = $('drop-submit');
  button.disabled = true;
  try {
    if (where !== 'nearby') {
      const sent = await api('POST', '/bottles', { json: draft });
      state.lastDropped = null;
      showDropped(sent.shareCode || sent.id, `Your bottle is travelling to ${sent.destination}.`, false);
      return;
    }
    let b = state.editing
      ? await api('PATCH', `/bottles/${state.editing.id}`, { json: draft })
      : await api('POST', '/bottles', { json: draft });
    if (state.editing && !photoBlob && $('photo-remove').checked && b.hasImage) b = await api('DELETE', `/bottles/${b.id}/image`);
    if (state.editing && !whisperBlob && $('whisper-remove').checked && b.hasWhisper) b = await api('DELETE', `/bottles/${b.id}/whisper`);
    if (photoBlob) b = await api('PUT', `/bottles/${b.id}/image`, { body: photoBlob, type: photoBlob.type });
    if (whisperBlob) b = await api('PUT', `/bottles/${b.id}/whisper`, { body: whisperBlob, type: audioType(whisperBlob) });
    const wasEditing = !!state.editing;
    state.editing = null;
    state.lastDropped = b;
    showDropped(b.shareCode || b.id, wasEditing ? 'Saved.' : 'Your bottle is in the water. Give the share code to whoever should find it.', true);
  } catch (e) {
    const field = e.details && String(e.details.field || '');
    const target = field.startsWith('text') ? ['drop-text-error', $('drop-text')] : (field.startsWith('hint') ? ['drop-error', $('drop-hint')] : ['drop-error', null]);
    fieldError(target[0], errorText(e), target[1]);
  } finally { button.disabled = false; }
}

function showDropped(code, text, viewable) {
  $('drop-code').textContent = code;
  $('drop-result-text').textContent = text;
  show($('drop-view'), viewable);
  show($('drop-share'), !!navigator.share);
  show($('drop-form'), false);
  show($('drop-result'), true);
  window.scrollTo(0, 0);
  (viewable ? $('drop-view') : $('drop-another')).focus();
}

async function copyCode() {
  const code = $('drop-code').textContent;
  notice(await copyText(code) ? `Share code ${code} copied.` : `Write it down: ${code}`);
}

async function shareCode() {
  const code = $('drop-code').textContent;
  try { await navigator.share({ title: 'A drift bottle', text: `Find my drift bottle at ${(state.box && state.box.name) || 'the Drift Box'}: share code ${code}` }); }
  catch (_) { /* cancelled */ }
}

// ---------------------------------------------------------------- bottle view

async function loadBottle(id, { quiet = false } = {}) {
  if (!quiet) {
    if (state.chat && state.chat.bottleId !== id) leaveChat();
    stopPresence();
    clearErrors($('open-form'));
    $('open-password').value = '';
    show($('presence-status'), false);
    if (!state.bottle || state.bottle.id !== id) {
      show($('bottle-body'), false);
      $('bottle-title').textContent = 'Bottle';
      $('bottle-state').textContent = '';
      $('bottle-meta').textContent = 'Loading…';
    }
  }
  try {
    const b = await api('GET', `/bottles/${encodeURIComponent(id)}`);
    if (state.view !== 'bottle') return;
    renderBottle(b);
  } catch (e) {
    if (e.code === 'not_found') bottleGone(id);
    else fieldError('open-error', errorText(e));
  }
}

function conditionItem(c) {
  return el('li', { class: c.status, 'data-kind': c.kind },
    el('span', { class: 'status' }, `${STATUS_WORDS[c.status] || c.status}: `), cap(c.summary),
    c.reason && c.status === 'notSatisfied' && c.kind !== 'password' ? el('div', { class: 'reason' }, `Now: ${c.reason}.`) : null,
    c.hint ? el('div', { class: 'hint' }, `Hint: ${c.hint}`) : null,
    c.changesAt ? el('div', { class: 'muted small' }, `Changes ${boxTime(c.changesAt)}`) : null);
}

function renderConditions(b, conditions) {
  const list = (conditions || b.conditions || []).filter((c) => c.kind !== 'expiry');
  const opened = b.state === 'active' || b.state === 'dying';
  $('bottle-conditions').replaceChildren(...list.map(conditionItem));
  let summary;
  if (opened && (b.hasOpened || b.isMine)) summary = list.length ? 'Opened: its conditions held' : 'Opened';
  else if (!list.length) summary = 'No conditions: anyone here can open it';
  else {
    const notMet = list.filter((c) => c.status === 'notSatisfied').length;
    summary = `How it opens: ${plural(list.length, 'condition')}${notMet ? `, ${notMet} not met right now` : ''}`;
  }
  $('cond-summary').textContent = summary;
  show($('cond-box'), true);
  $('cond-box').open = !opened || !(b.hasOpened || b.isMine);
  if (!list.length) show($('cond-box'), !opened);
}

/** Facts under the title: who, when it disappears, how far it came. */
function metaText(b) {
  const meta = [];
  if (b.isMine) meta.push('you dropped it');
  if (b.oneShot) meta.push('one-shot: one person may open it');
  if (b.expiresAt) meta.push(`disappears in ${fmtDuration(Date.parse(b.expiresAt) - boxNow())} at the latest`);
  const km = b.distanceTravelledMeters;
  if (km && km >= 50) meta.push(`came ${fmtDistance(km)} to get here`);
  return cap(meta.join(' · '));
}

function renderBottle(b) {
  const previous = state.bottle;
  state.bottle = b;
  follow(b);
  $('bottle-title').textContent = `Bottle ${b.shareCode || ''}`.trim();
  const badge = $('bottle-state');
  badge.textContent = STATE_WORDS[b.state] || b.state;
  badge.className = `badge ${b.state}`;
  $('bottle-meta').textContent = metaText(b);
  $('bottle-hint').textContent = b.hint ? `“${b.hint}”` : '';
  show($('bottle-hint'), !!b.hint);
  renderConditions(b);
  // After the first open the box lists only what a newcomer must still prove; the creator's draft still names the proofs.
  const kinds = (b.conditions || []).concat((b.draft && b.draft.conditions) || []).map((c) => c.kind);
  const canJoin = !!b.chat && !(state.chat && state.chat.bottleId === b.id);
  show($('open-password-box'), kinds.includes('password') && !b.hasOpened && !b.isMine);
  show($('presence-start'), kinds.includes('presence') && !b.hasOpened && (!state.box || state.box.hasPresenceButton !== false));
  $('open-submit').textContent = b.hasOpened ? 'Go back into the chat' : (b.state === 'locked' ? 'Try to open it' : 'Open the bottle');
  show($('open-submit'), !b.hasOpened || canJoin);
  $('watch-toggle').textContent = b.isWatched ? 'Stop watching' : 'Tell me when it opens';
  $('watch-toggle').setAttribute('aria-pressed', b.isWatched ? 'true' : 'false');
  show($('watch-toggle'), !b.hasOpened && !b.isMine && b.state === 'locked');
  show($('open-form'), true);
  show($('bottle-gone'), false);
  show($('bottle-body'), true);
  renderContent(b, previous);
  renderChatSummary(b);
}

async function renderContent(b, previous) {
  const c = b.content;
  show($('bottle-content'), !!c);
  if (!c) return;
  $('content-text').textContent = c.text || '';
  const same = previous && previous.id === b.id;
  const img = $('content-image');
  if (c.image && c.image.url) {
    if (!(same && img.dataset.src === c.image.url)) {
      img.dataset.src = c.image.url;
      try { img.src = await mediaURL(c.image.url); show(img, true); } catch (_) { show(img, false); }
    }
  } else { show(img, false); img.removeAttribute('src'); delete img.dataset.src; }
  const audio = $('content-whisper');
  if (c.whisper && c.whisper.url) {
    if (!(same && audio.dataset.src === c.whisper.url)) {
      audio.dataset.src = c.whisper.url;
      try { audio.src = await mediaURL(c.whisper.url); show($('content-whisper-box'), true); } catch (_) { show($('content-whisper-box'), false); }
    }
  } else { show($('content-whisper-box'), false); delete audio.dataset.src; }
}

/** The chat panel from the bottle's `chat` while not connected (who is there, the keeper). */
function renderChatSummary(b) {
  const live = state.chat && state.chat.bottleId === b.id;
  if (live) return;
  show($('chat'), !!b.chat && (!!b.hasOpened || b.isMine));
  show($('chat-form'), false);
  show($('chat-leave'), false);
  document.body.classList.remove('in-chat'); document.documentElement.classList.remove('in-chat');
  if (!b.chat || !(b.hasOpened || b.isMine)) return;
  $('chat-messages').replaceChildren();
  show($('chat-older'), false);
  show($('chat-empty'), false);
  $('chat-typing').textContent = '';
  renderPresent(b.chat.present || []);
  renderKeeper(b.chat.keeper);
}

function bottleGone(id) {
  if (state.chat) { state.chat.ended = true; leaveChat(); }
  stopPresence();
  if (state.bottle && (!id || state.bottle.id === id || state.bottle.shareCode === id)) state.bottle = { ...state.bottle, state: 'expired', gone: true };
  else state.bottle = { id, gone: true };
  state.followed.delete(state.bottle.id);
  renderDying();
  $('bottle-title').textContent = state.bottle.shareCode ? `Bottle ${state.bottle.shareCode}` : 'Bottle';
  const badge = $('bottle-state');
  badge.textContent = STATE_WORDS.expired; badge.className = 'badge';
  $('bottle-meta').textContent = '';
  show($('bottle-body'), false);
  show($('chat-form'), false);
  show($('chat-leave'), false);
  document.body.classList.remove('in-chat'); document.documentElement.classList.remove('in-chat');
  $('content-text').textContent = '';
  const img = $('content-image'); img.removeAttribute('src'); delete img.dataset.src;
  $('chat-messages').replaceChildren();
  show($('bottle-gone'), true);
}

/** Why an open was refused, as one sentence; the list below says it per condition. */
function lockedText(conditions) {
  const list = (conditions || []).filter((c) => c.kind !== 'expiry');
  const wrongPassword = list.find((c) => c.kind === 'password' && c.status === 'notSatisfied');
  const others = list.filter((c) => c.status === 'notSatisfied' && c.kind !== 'password');
  if (wrongPassword && !others.length) {
    if (/attempts/.test(wrongPassword.reason || '')) return `Too many wrong passwords: ${wrongPassword.reason.replace(/^too many attempts; /, '')}.`;
    return $('open-password').value ? 'That password is not right.' : 'This bottle needs its password.';
  }
  if (!others.length) return 'Not open yet. Try again in a moment.';
  const first = others[0];
  const why = `${cap(first.summary)}${first.reason ? ` — now ${first.reason.replace(/^it is /, '')}` : ''}.`;
  return others.length === 1 ? `Not yet. ${why}` : `Not yet: ${others.length} conditions are not met. ${why}`;
}

async function openBottle(ev) {
  if (ev) ev.preventDefault();
  const b = state.bottle;
  if (!b || b.gone) return;
  clearErrors($('open-form'));
  const password = $('open-password').value;
  const btn = $('open-submit');
  btn.disabled = true;
  try {
    const opened = await api('POST', `/bottles/${b.id}/open`, { json: password ? { password } : {} });
    show($('presence-status'), false);
    renderBottle(opened);
    if (opened.chat) await enterChat(opened, !b.hasOpened);
  } catch (e) {
    if (e.code === 'locked') {
      const d = e.details || {};
      if (d.conditions) renderConditions(b, d.conditions);
      const needsPassword = (d.conditions || []).some((c) => c.kind === 'password' && c.status !== 'satisfied');
      if (needsPassword) show($('open-password-box'), true);
      if ((d.conditions || []).some((c) => c.kind === 'presence' && c.status !== 'satisfied')) show($('presence-start'), true);
      fieldError('open-error', lockedText(d.conditions), needsPassword ? $('open-password') : null);
    } else if (e.code === 'not_found') bottleGone(b.id);
    else fieldError('open-error', errorText(e));
  } finally { btn.disabled = false; }
}

async function toggleWatch() {
  const b = state.bottle;
  if (!b) return;
  try {
    const nb = await api(b.isWatched ? 'DELETE' : 'PUT', `/bottles/${b.id}/watch`);
    if (nb && nb.id) renderBottle(nb); else loadBottle(b.id, { quiet: true });
    notice(nb && nb.isWatched ? 'Watching: you will hear here when it can be opened.' : 'No longer watching.');
  } catch (e) { fieldError('open-error', errorText(e)); }
}

// ---------------------------------------------------------------- presence proof

async function startPresence() {
  const b = state.bottle;
  if (!b) return;
  stopPresence();
  clearErrors($('open-form'));   // a stale "not yet" must not sit beside "press now"
  const status = $('presence-status');
  try {
    const req = await api('POST', '/presence-requests', { json: { bottle: b.id } });
    const until = Date.parse(req.expiresAt);
    // The press count is this visitor's own: nobody who asked from elsewhere can take it.
    const presses = req.presses || 2;
    state.presence = { bottle: req.bottle || b.id, expiresAt: until, timer: 0 };
    const tick = () => {
      const left = until - boxNow();
      if (left <= 0) { stopPresence(); status.textContent = 'Time is up. Press “Prove I am here” to try again.'; show(status, true); return; }
      status.textContent = `Press the button on the box ${presses} times now (${fmtDuration(left)} left).`;
    };
    show(status, true);
    tick();
    state.presence.timer = setInterval(tick, 1000);
    status.scrollIntoView({ block: 'center' });
  } catch (e) {
    status.textContent = e.code === 'invalid' ? 'This box has no presence button.' : errorText(e);
    show(status, true);
  }
}

function stopPresence() {
  if (state.presence) clearInterval(state.presence.timer);
  state.presence = null;
}

// ---------------------------------------------------------------- live chat

/** Joins the live chat of an opened bottle: history, socket, the message bar. */
async function enterChat(b, firstOpen) {
  if (state.chat && state.chat.bottleId === b.id && state.chat.socket) return;
  leaveChat();
  const chat = { bottleId: b.id, me: b.chat && b.chat.me, seen: new Set(), older: null, socket: null, typingSentAt: 0, typingStop: 0, ended: false, present: new Map() };
  state.chat = chat;
  show($('chat'), true);
  show($('chat-form'), true);
  show($('chat-leave'), true);
  show($('open-submit'), false);
  document.body.classList.add('in-chat'); document.documentElement.classList.add('in-chat');
  // Coming back to a chat, the content folds away: the chat is what fills the screen. Just
  // opened, it stays open to be read first.
  $('bottle-content').open = !!firstOpen;
  $('chat-messages').replaceChildren();
  $('chat-typing').textContent = '';
  $('chat-error').textContent = '';
  if (b.chat) { renderPresent(b.chat.present || []); renderKeeper(b.chat.keeper); }
  renderDying();
  connectChat(chat);
  try {
    const page = await api('GET', `/bottles/${b.id}/messages?limit=50`);
    if (state.chat !== chat) return;
    for (const m of oldestFirst(page.messages)) addMessage(m, 'append');
    chat.older = page.older || null;
    show($('chat-older'), !!chat.older);
    show($('chat-empty'), !page.messages.length);
    scrollToEnd();
    markRead(chat);
  } catch (e) { $('chat-error').textContent = errorText(e); }
}

function connectChat(chat) {
  const ws = new WebSocket(wsURL(`/bottles/${chat.bottleId}/live`));
  chat.socket = ws;
  ws.onmessage = (m) => { let e; try { e = JSON.parse(m.data); } catch (_) { return; } if (state.chat === chat) onChatEvent(chat, e); };
  ws.onclose = () => {
    if (state.chat !== chat || chat.socket !== ws) return;
    chat.socket = null;
    if (chat.ended || chat.left) return;
    // Lost connection: check whether the bottle still exists, then reconnect.
    setTimeout(async () => {
      if (state.chat !== chat || chat.left) return;
      try { await api('GET', `/bottles/${chat.bottleId}`); if (state.chat === chat && !chat.left) connectChat(chat); }
      catch (e) { if (e.code === 'not_found') bottleGone(chat.bottleId); else setTimeout(() => state.chat === chat && !chat.left && connectChat(chat), 3000); }
    }, 1500);
  };
}

function onChatEvent(chat, e) {
  switch (e.type) {
    case 'hello':
      if (e.me) chat.me = e.me;
      renderPresent(e.present || []);
      renderKeeper(e.keeper);
      break;
    case 'message': if (e.message) { addMessage(e.message, 'append'); markRead(chat); } break;
    case 'presence': {
      const p = e.participant;
      if (!p) break;
      if (e.event === 'join') chat.present.set(p.id, p); else chat.present.delete(p.id);
      renderPresent([...chat.present.values()]);
      break;
    }
    case 'typing': renderTyping(chat, e.participants || []); break;
    case 'keeper': renderKeeper(e.participant); break;
    case 'lifecycle':
      if (e.state === 'expired') { chat.ended = true; bottleGone(chat.bottleId); }
      break;
    default: break;
  }
}

/** Tells the box this visitor has seen the chat (unread counts), at most once a second. */
function markRead(chat) {
  clearTimeout(chat.readTimer);
  chat.readTimer = setTimeout(() => {
    if (state.chat === chat && !chat.left && document.visibilityState !== 'hidden') api('POST', `/bottles/${chat.bottleId}/read`).catch(() => {});
  }, 1000);
}

function isMe(p) {
  if (!p) return false;
  if (p.isMe) return true;
  const me = state.chat && state.chat.me;
  return !!(me && me.id === p.id);
}

function nearEnd() { return innerHeight + scrollY >= document.body.scrollHeight - 200; }
function scrollToEnd() { window.scrollTo(0, document.body.scrollHeight); }

function addMessage(m, where) {
  const chat = state.chat;
  if (!chat || chat.seen.has(m.id)) return;
  chat.seen.add(m.id);
  show($('chat-empty'), false);
  const stick = where === 'append' && nearEnd();
  const mine = isMe(m.participant);
  const when = new Date(m.sentAt);
  const bubble = el('div', { class: 'bubble' },
    el('span', { class: 'who' }, `${whoText({ ...m.participant, isMe: mine })} · `, el('time', { datetime: m.sentAt }, Number.isNaN(when.getTime()) ? '' : clockTime(when))),
    el('span', { class: 'message-text', lang: m.language || null }, m.text));
  const li = el('li', { class: mine ? 'me' : '', 'data-message': m.id }, avatar(m.participant), bubble);
  if (m.attachment && m.attachment.url) attachMedia(bubble, m.attachment);
  const list = $('chat-messages');
  if (where === 'prepend') list.prepend(li); else list.append(li);
  if (!mine) translateInto(bubble, m);
  if (stick || mine) scrollToEnd();
}

async function attachMedia(bubble, a) {
  try {
    const url = await mediaURL(a.url);
    if (a.kind === 'audio' || (a.contentType || '').startsWith('audio/')) bubble.append(el('audio', { controls: true, src: url, 'aria-label': 'Sound attachment' }));
    else bubble.append(el('img', { src: url, alt: 'Photo attachment', class: 'content-image' }));
  } catch (_) { /* the line still shows */ }
}

/** On-device translation with the browser's Translator API, when present and languages differ. */
async function translateInto(bubble, m) {
  if (!('Translator' in self) || !m.text || !m.language) return;
  const target = (navigator.language || 'en').split('-')[0];
  const source = m.language.split('-')[0];
  if (!source || source === target) return;
  const key = `${source}>${target}`;
  try {
    let t = state.translators.get(key);
    if (!t) {
      const availability = await self.Translator.availability({ sourceLanguage: source, targetLanguage: target });
      if (availability === 'unavailable') return;
      t = self.Translator.create({ sourceLanguage: source, targetLanguage: target });
      state.translators.set(key, t);
    }
    const out = await (await t).translate(m.text);
    if (out && out !== m.text) bubble.append(el('span', { class: 'translated', lang: target }, `Translated on this device: ${out}`));
  } catch (_) { state.translators.delete(key); }
}

/** A page of lines, oldest first (the spec says pages come newest first; accept either). */
function oldestFirst(list) {
  const copy = list.slice();
  return copy.length > 1 && Date.parse(copy[0].sentAt) > Date.parse(copy[copy.length - 1].sentAt) ? copy.reverse() : copy;
}

async function loadOlder() {
  const chat = state.chat;
  if (!chat || !chat.older) return;
  try {
    const page = await api('GET', `/bottles/${chat.bottleId}/messages?limit=50&before=${encodeURIComponent(chat.older)}`);
    for (const m of oldestFirst(page.messages).reverse()) addMessage(m, 'prepend');
    chat.older = page.older || null;
    show($('chat-older'), !!chat.older);
  } catch (e) { $('chat-error').textContent = errorText(e); }
}

function renderPresent(list) {
  if (state.chat) { state.chat.present = new Map(list.map((p) => [p.id, p])); }
  $('chat-present').replaceChildren(...list.map((p) => el('li', {}, avatar(p, 22), el('span', {}, whoText({ ...p, isMe: isMe(p) })))));
  if (!list.length) $('chat-present').append(el('li', { class: 'muted' }, 'nobody'));
}

function renderKeeper(p) {
  $('chat-keeper').textContent = p ? `Keeper: ${whoText({ ...p, isMe: isMe(p) })} (keeps this chat alive for a while when everyone has left).` : '';
}

function renderTyping(chat, participants) {
  const others = participants.filter((p) => !isMe(p));
  clearTimeout(chat.typingClear);
  $('chat-typing').textContent = others.length === 0 ? '' : others.length === 1 ? `${whoText(others[0])} is typing…` : `${others.length} people are typing…`;
  if (others.length) chat.typingClear = setTimeout(() => { $('chat-typing').textContent = ''; }, 6000);
}

function sendTyping(kind) {
  const chat = state.chat;
  if (!chat || !chat.socket || chat.socket.readyState !== WebSocket.OPEN) return;
  chat.socket.send(JSON.stringify({ type: kind }));
}

function onComposerInput() {
  const chat = state.chat;
  if (!chat) return;
  $('chat-error').textContent = '';
  const now = Date.now();
  if ($('chat-text').value && now - chat.typingSentAt > 3000) { chat.typingSentAt = now; sendTyping('typing'); }
  clearTimeout(chat.typingStop);
  chat.typingStop = setTimeout(() => { chat.typingSentAt = 0; sendTyping('stopTyping'); }, 4000);
  if (!$('chat-text').value) { clearTimeout(chat.typingStop); chat.typingSentAt = 0; sendTyping('stopTyping'); }
}

/** The language lines are written in: the phone's own (for translation on other phones). */
const myLanguage = () => navigator.language || 'und';

async function sendMessage(ev) {
  ev.preventDefault();
  const chat = state.chat;
  if (!chat) return;
  const input = $('chat-text');
  const text = input.value.trim();
  $('chat-error').textContent = '';
  if (!text) { fieldError('chat-error', 'Type a message first.', input); return; }
  $('chat-send').disabled = true;
  try {
    const m = await api('POST', `/bottles/${chat.bottleId}/messages`, { json: { text, language: myLanguage() } });
    input.value = '';
    clearTimeout(chat.typingStop); chat.typingSentAt = 0; sendTyping('stopTyping');
    if (m && m.id) addMessage(m, 'append');
    markRead(chat);
  } catch (e) {
    if (e.code === 'conflict') { chat.ended = true; bottleGone(chat.bottleId); }
    else fieldError('chat-error', errorText(e), input);
  } finally { $('chat-send').disabled = false; input.focus(); }
}

/** Uploads `blob` as a chat attachment and posts it as a line with the composer's text. */
async function sendAttachment(blob, type) {
  const chat = state.chat;
  const staged = await api('POST', `/bottles/${chat.bottleId}/attachments`, { body: blob, type });
  const m = await api('POST', `/bottles/${chat.bottleId}/messages`, { json: { text: $('chat-text').value.trim(), language: myLanguage(), attachment: staged.attachment } });
  $('chat-text').value = '';
  if (m && m.id) addMessage(m, 'append');
}

/** A photo in the chat: resized like the bottle's, uploaded, then posted with the composer's text. */
async function sendPhoto() {
  const input = $('chat-photo');
  const file = input.files[0];
  if (!state.chat || !file) return;
  $('chat-error').textContent = '';
  try {
    const { blob } = await resizePhoto(file);
    await sendAttachment(blob, blob.type);
  } catch (e) {
    fieldError('chat-error', e instanceof ApiError ? errorText(e) : (e.message || 'The photo could not be sent.'));
  } finally { input.value = ''; }
}

/** A whisper in the chat: recorded in the page where the browser allows it, else the phone's recorder. */
function chatWhisper() {
  if (!state.chat) return;
  if (!canRecord()) { notice(WHY_NO_RECORDING); $('chat-whisper-file').click(); return; }
  record($('chat-whisper'), null, async (blob) => {
    try { await sendAttachment(blob, audioType(blob)); } catch (e) { fieldError('chat-error', errorText(e)); }
  }, (message) => fieldError('chat-error', message));
}

async function sendWhisperFile() {
  const input = $('chat-whisper-file');
  const file = input.files[0];
  if (!state.chat || !file) return;
  const problem = await whisperProblem(file);
  if (problem) { fieldError('chat-error', problem); input.value = ''; return; }
  try { await sendAttachment(file, audioType(file)); } catch (e) { fieldError('chat-error', errorText(e)); }
  input.value = '';
}

/** Closes the chat socket: the box counts this visitor as gone (the countdown may start). */
function leaveChat() {
  const chat = state.chat;
  if (!chat) return;
  chat.left = true;
  clearTimeout(chat.typingStop); clearTimeout(chat.typingClear); clearTimeout(chat.readTimer);
  state.chat = null;
  if (chat.socket) { try { chat.socket.close(1000, 'left'); } catch (_) { /* already closed */ } }
  show($('chat-form'), false);
  show($('chat-leave'), false);
  document.body.classList.remove('in-chat'); document.documentElement.classList.remove('in-chat');
  renderDying();
}

// ---------------------------------------------------------------- recovery code

function renderRecovery() {
  $('recovery-code').value = state.token || '';
}

async function copyRecovery() {
  notice(await copyText($('recovery-code').value, $('recovery-code')) ? 'Recovery code copied.' : 'Select the code and copy it by hand.');
}

async function restore(ev) {
  ev.preventDefault();
  const input = $('restore-code');
  const code = input.value.replace(/\s+/g, '');
  clearErrors($('restore-form'));
  if (!/^[A-Za-z0-9_-]{43}$/.test(code)) { fieldError('restore-error', `A recovery code is 43 letters, digits, “-” or “_”; this one has ${code.length} characters.`, input); return; }
  try {
    const mine = await api('GET', '/my/bottles', { token: code, retry: false });
    state.token = code;
    store.set(TOKEN_KEY, code);
    renderRecovery();
    input.value = '';
    if (liveSocket) { liveSocket.onclose = null; liveSocket.close(); setTimeout(connectLive, 100); }
    notice(`Restored. ${plural(mine.bottles.length, 'bottle')} found.`);
    go('mine');
  } catch (e) {
    fieldError('restore-error', e.status === 401 ? 'This box does not know that code.' : errorText(e), input);
  }
}

// ---------------------------------------------------------------- start

function wire() {
  for (const b of document.querySelectorAll('.tabs button')) b.addEventListener('click', () => { if (b.dataset.view === 'drop') state.editing = null; go(b.dataset.view); });
  $('code-form').addEventListener('submit', findByCode);
  $('cond-kind').replaceChildren(el('option', { value: '' }, 'Add a condition…'), ...Object.entries(COND_KINDS).map(([k, v]) => el('option', { value: k }, v.label)));
  $('cond-add').addEventListener('click', () => {
    $('cond-error').textContent = '';
    if (!$('cond-kind').value) { fieldError('cond-error', 'Choose which condition to add.', $('cond-kind')); return; }
    addCondition($('cond-kind').value);
    $('cond-kind').value = '';
  });
  $('drop-form').addEventListener('submit', submitDrop);
  $('drop-text').addEventListener('input', () => { countText(); $('drop-text-error').textContent = ''; });
  $('drop-photo').addEventListener('change', onPhotoChosen);
  $('drop-photo-clear').addEventListener('click', clearPhoto);
  $('drop-whisper').addEventListener('change', onWhisperChosen);
  $('whisper-clear').addEventListener('click', clearWhisper);
  $('whisper-record').addEventListener('click', toggleRecording);
  for (const id of ['drop-oneshot', 'photo-remove', 'whisper-remove']) $(id).addEventListener('change', () => $(id).parentElement.classList.toggle('on', $(id).checked));
  $('drop-cancel-edit').addEventListener('click', () => { state.editing = null; go('mine'); });
  $('drop-view').addEventListener('click', () => state.lastDropped && go(`b/${state.lastDropped.id}`));
  $('drop-another').addEventListener('click', resetDrop);
  $('drop-copy').addEventListener('click', copyCode);
  $('drop-share').addEventListener('click', shareCode);
  $('open-form').addEventListener('submit', openBottle);
  $('presence-start').addEventListener('click', startPresence);
  $('watch-toggle').addEventListener('click', toggleWatch);
  $('bottle-back').addEventListener('click', () => (history.length > 1 ? history.back() : go('home')));
  $('chat-form').addEventListener('submit', sendMessage);
  $('chat-text').addEventListener('input', onComposerInput);
  $('chat-older').addEventListener('click', loadOlder);
  $('chat-photo').addEventListener('change', sendPhoto);
  $('chat-whisper').addEventListener('click', chatWhisper);
  $('chat-whisper-file').addEventListener('change', sendWhisperFile);
  $('chat-keepalive').addEventListener('click', keepAlive);
  $('chat-leave').addEventListener('click', () => { leaveChat(); go('home'); });
  $('drop-where').addEventListener('change', () => show($('drop-to-box'), $('drop-where').value === 'manual'));
  $('remote-form').addEventListener('submit', sendRemote);
  $('remote-leave').addEventListener('click', () => leaveRemote(false));
  $('recovery-copy').addEventListener('click', copyRecovery);
  $('restore-form').addEventListener('submit', restore);
  window.addEventListener('hashchange', route);
  // A field marked wrong is unmarked as soon as it changes.
  document.addEventListener('input', (e) => { if (e.target.removeAttribute) e.target.removeAttribute('aria-invalid'); });
  document.addEventListener('visibilitychange', () => { if (document.visibilityState === 'visible' && state.chat) markRead(state.chat); });
  if (canRecord()) { show($('whisper-recorder'), true); show($('whisper-file-box'), false); }
  else $('whisper-why').textContent = WHY_NO_RECORDING;
  // Captive-portal windows: iOS's keeps no storage between visits (its agent says
  // CaptiveNetworkSupport or lacks "Safari/"), Android's is a WebView ("; wv)").
  const ua = navigator.userAgent || '';
  const captive = /CaptiveNetworkSupport/i.test(ua) || (/iPhone|iPad/.test(ua) && !/Safari\//.test(ua)) || /; wv\)/.test(ua);
  if (!store.persistent || captive) {
    $('storage-url').href = location.origin + '/';
    $('storage-url').textContent = location.origin + '/';
    show($('storage-warning'), true);
  }
}

async function start() {
  wire();
  try { if (!state.token) await register(); } catch (_) { /* the offline banner says it */ }
  renderRecovery();
  await loadBox();
  setInterval(tickClock, 15000);
  connectLive();
  route();
  refreshUnread();
}

document.addEventListener('DOMContentLoaded', start);

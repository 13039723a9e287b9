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

const STATE_WORDS = { locked: 'Locked', openable: 'Openable', active: 'Open, chat alive', dying: 'Chat dying', expired: 'Gone' };
const STATUS_WORDS = { satisfied: 'Met', notSatisfied: 'Not met', unknown: 'Unknown' };
const LABEL_WORDS = { local: 'Local', nearby: 'Nearby', sameCountry: 'Same country', sameContinent: 'Same continent', global: 'Global' };
const SOLAR_WORDS = { day: 'Day', civilDusk: 'Dusk', night: 'Night', civilDawn: 'Dawn' };

function fmtDuration(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60), r = s % 60;
  if (m < 60) return `${m} min ${String(r).padStart(2, '0')} s`;
  const h = Math.floor(m / 60);
  return h < 48 ? `${h} h ${m % 60} min` : `${Math.floor(h / 24)} days`;
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
  chat: null,              // live chat state (see Chat)
  presence: null,          // {bottle, expiresAt, timer}
  editing: null,           // bottle being edited (PATCH) or null
  translators: new Map(),
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
      const r = await fetch(`${API}/visitors`, { method: 'POST', headers: { Accept: 'application/json' } });
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
  catch (_) { throw new ApiError(0, 'offline', 'Cannot reach the box. Are you still on its Wi-Fi?', null); }
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

function errorText(e) {
  if (!(e instanceof ApiError)) return 'Something went wrong. Please try again.';
  let text = e.message;
  if (e.code === 'rate_limited' && e.details && e.details.retryAfterSeconds) text += ` Try again in ${fmtDuration(e.details.retryAfterSeconds * 1000)}.`;
  if (e.code === 'invalid' && e.details && e.details.field && !text.includes(e.details.field)) text += ` (${e.details.field}${e.details.problem ? ': ' + e.details.problem : ''})`;
  return text;
}

function wsURL(path) {
  const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${proto}//${location.host}${API}${path}${path.includes('?') ? '&' : '?'}token=${encodeURIComponent(state.token)}`;
}

// ---------------------------------------------------------------- notices

function notice(text, action) {
  const p = el('p', {}, el('span', {}, text));
  if (action) p.append(el('button', { type: 'button', onclick: () => { p.remove(); action.run(); } }, action.label));
  p.append(el('button', { type: 'button', 'aria-label': 'Dismiss', onclick: () => p.remove() }, '×'));
  $('notices').append(p);
  setTimeout(() => p.remove(), action ? 30000 : 8000);
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
  } catch (e) {
    $('box-time').textContent = errorText(e);
  }
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

/** A date-time as the box's wall clock shows it (the box's time zone). */
function boxTime(iso) {
  const date = new Date(iso);
  try { return new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short', timeZone: state.box && state.box.timezone }).format(date); }
  catch (_) { return date.toLocaleString(); }
}

/** Hours and minutes on the box's clock. */
function clockTime(date) {
  try { return new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', timeZone: state.box && state.box.timezone }).format(date); }
  catch (_) { return date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }); }
}

function tickClock() {
  if (!state.box) return;
  let text;
  try {
    text = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', weekday: 'short', timeZone: state.box.timezone }).format(new Date(boxNow()));
  } catch (_) { text = new Date(boxNow()).toLocaleTimeString(); }
  $('box-time').textContent = text;
}

// ---------------------------------------------------------------- box events (/api/v1/live)

let liveSocket = null, liveRetry = 1000;
function connectLive() {
  if (!state.token) return;
  let opened = false;
  try { liveSocket = new WebSocket(wsURL('/live')); } catch (_) { return; }
  liveSocket.onopen = () => { opened = true; liveRetry = 1000; $('conn-state').textContent = 'Live: connected to the box'; };
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
      } catch (_) { /* unreachable: retry as before */ }
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
    case 'bottle':
      if (state.view === 'home') loadList();
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
      if (state.presence && (state.presence.bottle === bid || (state.bottle && (state.bottle.id === bid || state.bottle.shareCode === bid)))) {
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
      break;
    }
    default: break;
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
  if (view !== 'bottle') stopPresence();
  state.view = view;
  for (const v of VIEWS) show($(`view-${v}`), v === view);
  for (const b of document.querySelectorAll('.tabs button')) {
    if (b.dataset.view === view) b.setAttribute('aria-current', 'page'); else b.removeAttribute('aria-current');
  }
  // Screen readers: a new view announces itself by its heading (not on the first load).
  if (event && event.type === 'hashchange') {
    const heading = $(`view-${view}`).querySelector('h2');
    heading.tabIndex = -1;
    heading.focus();
  }
  if (view === 'home') loadList();
  if (view === 'mine') { loadMine(); loadSent(); }
  if (view !== 'home' && state.remote) leaveRemote(false);
  if (view === 'home') { loadList(); loadCamps(); }
  if (view === 'mine') loadMine();
  if (view === 'recovery') renderRecovery();
  if (view === 'drop' && !state.editing) { resetDrop(); loadBoxes(); }
  if (view === 'bottle') loadBottle(arg);
}

// ---------------------------------------------------------------- bottle lists

function bottleCard(b, extraActions) {
  const li = el('li', { 'data-bottle': b.id });
  li.append(el('div', {},
    el('span', { class: `badge ${b.state}` }, STATE_WORDS[b.state] || b.state), ' ',
    b.shareCode ? el('span', { class: 'code' }, b.shareCode) : null,
    b.isMine ? el('span', { class: 'muted' }, ' · yours') : null,
    b.hasImage ? el('span', { class: 'muted' }, ' · photo') : null,
    b.hasWhisper ? el('span', { class: 'muted' }, ' · whisper') : null));
  if (b.hint) li.append(el('p', { class: 'hint' }, b.hint));
  const locked = (b.conditions || []).filter((c) => c.status !== 'satisfied').length;
  if (b.conditions && b.conditions.length) li.append(el('p', { class: 'muted' }, `${b.conditions.length} condition${b.conditions.length === 1 ? '' : 's'}${locked ? `, ${locked} not met now` : ''}`));
  const actions = el('div', { class: 'actions' },
    el('button', { type: 'button', onclick: () => go(`b/${b.id}`) }, b.shareCode ? `View ${b.shareCode}` : 'View'));
  for (const a of extraActions || []) actions.append(a);
  li.append(actions);
  return li;
}

async function loadList() {
  try {
    const { bottles } = await api('GET', '/bottles');
    const list = $('bottle-list');
    list.replaceChildren(...bottles.map((b) => bottleCard(b)));
    show($('bottle-empty'), bottles.length === 0);
  } catch (e) { $('code-error').textContent = errorText(e); }
  loadRemoteChats();
}

// ---------------------------------------------------------------- the mesh: other boxes

/** Other boxes for "where it goes"; the choice stays hidden on a box without a mesh. */
async function loadBoxes() {
  let boxes = [];
  try { boxes = (await api('GET', '/mesh/boxes')).boxes; } catch (_) { boxes = []; }
  state.meshBoxes = boxes;
  const km = (m) => (m == null ? '' : ` (${m < 1000 ? Math.round(m) + ' m' : (m / 1000).toFixed(1) + ' km'})`);
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
      ? el('input', { type: 'password', id: `remote-password-${c.bottle}`, autocomplete: 'off', 'aria-label': `Password for the chat at ${c.host}` })
      : null;
    return el('li', { 'data-remote': c.bottle },
      el('div', {}, el('span', { class: 'badge active' }, 'Open chat'), ' ', el('span', { class: 'muted' }, `at ${c.host}`)),
      c.hint ? el('p', { class: 'hint' }, c.hint) : null,
      c.needsPassword ? el('label', { for: `remote-password-${c.bottle}` }, 'This chat needs the bottle’s password') : null,
      field,
      el('div', { class: 'actions' }, el('button', { type: 'button', onclick: () => joinRemote(c, field ? field.value : null) }, 'Join the chat')));
  }));
  show($('remote-box'), chats.length > 0);
}

async function joinRemote(c, password) {
  $('remote-error').textContent = '';
  try {
    await api('POST', `/mesh/chats/${c.bottle}/join`, password ? { json: { password } } : {});
  } catch (e) { $('remote-error').textContent = errorText(e); return; }
  state.remote = { bottle: c.bottle, timer: null };
  $('remote-chat-title').textContent = `Chat at ${c.host}`;
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
    $('remote-error').textContent = '';
    $('remote-lines').replaceChildren(...lines.map((l) => el('li', { class: l.isMe ? 'me' : '' },
      el('span', { class: 'muted' }, `${l.isMe ? 'You' : LABEL_WORDS[l.label] || l.label} · ${clockTime(new Date(l.sentAt))} `), l.text)));
  } catch (e) {
    if (e.code === 'not_found') { leaveRemote(true); notice('That chat is gone.'); return; }
    // Lines are shown only once the host admitted us; until then `details.admission` says why
    // not (pending, refused with the reason, or none: this box restarted and forgot the join —
    // the host still knows us through this box, so joining again needs no password).
    const admission = e.code === 'not_admitted' && e.details ? e.details.admission : null;
    $('remote-error').textContent = admission && admission.state === 'refused' ? `The box that hosts it said no: ${admission.reason}.` : '';
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
  const text = $('remote-text').value.trim();
  if (!r || !text) return;
  try {
    await api('POST', `/mesh/chats/${r.bottle}/lines`, { json: { text } });
    $('remote-text').value = '';
    notice('Sent over the mesh; it shows up once the box that hosts the chat has it.');
  } catch (e) { $('remote-error').textContent = errorText(e); }
}

async function leaveRemote(gone) {
  const r = state.remote;
  state.remote = null;
  if (r) clearTimeout(r.timer);
  show($('remote-chat'), false);
  if (r && !gone) { try { await api('POST', `/mesh/chats/${r.bottle}/leave`); } catch (_) { /* the host times us out */ } }
  loadRemoteChats();
}

async function loadSent() {
  let bottles = [];
  try { bottles = (await api('GET', '/mesh/sent')).bottles; } catch (_) { bottles = []; }
  $('sent-list').replaceChildren(...bottles.map((b) => el('li', {},
    el('div', {}, el('span', { class: `badge ${b.state === 'delivered' ? 'active' : 'locked'}` }, b.state === 'delivered' ? 'Delivered' : 'Travelling'),
      ' ', el('span', { class: 'muted' }, `to ${b.destination}${b.placement === 'drift' ? ' (drifted)' : ''}`)),
    el('p', { class: 'muted' }, `Sent ${clockTime(new Date(b.sentAt))}, gone at ${clockTime(new Date(b.expiresAt))}`))));
  show($('sent-box'), bottles.length > 0);
}

/** Distance in words: metres below 1 km, else kilometres. */
function fmtDistance(m) { return m < 1000 ? `${Math.round(m)} m` : `${(m / 1000).toFixed(1)} km`; }

/**
 * The "Camps nearby" section: camps heard over the mesh (GET /camps, public) and their
 * recent messages; emergencies first and highlighted. Hidden while there is nothing.
 */
async function loadCamps() {
  let data;
  try {
    const r = await fetch(`${API}/camps`, { headers: { Accept: 'application/json' } });
    if (!r.ok) return;
    data = await r.json();
  } catch (_) { return; }
  const camps = data.camps || [], messages = data.messages || [];
  const alerts = messages.filter((m) => m.kind === 'emergency');
  const others = messages.filter((m) => m.kind !== 'emergency').slice(0, 10);
  $('camp-alerts').replaceChildren(...alerts.map((m) => el('li', { class: 'banner gone camp-emergency' },
    `Emergency (${m.detail}) from ${m.camp || m.node}: ${m.text}`)));
  $('camp-list').replaceChildren(...camps.map((c) => {
    const facts = [`${c.members} ${c.members === 1 ? 'person' : 'people'}`];
    if (c.distanceMeters != null) facts.push(fmtDistance(c.distanceMeters) + ' away');
    facts.push(`heard ${fmtDuration(Math.max(0, Date.now() - Date.parse(c.lastSeen)))} ago`);
    return el('li', { class: 'card camp' }, el('strong', {}, c.name), ' ', el('span', { class: 'muted' }, facts.join(' · ')),
      c.note ? el('p', {}, c.note) : '');
  }));
  $('camp-messages').replaceChildren(...others.map((m) => el('li', { class: `camp-${m.kind}` },
    `${m.camp || m.node}${m.kind === 'chat' ? '' : ` (${m.kind}${m.detail ? `: ${m.detail}` : ''})`}: ${m.text}`)));
  show($('camps'), camps.length + alerts.length + others.length > 0);
}

async function findByCode(ev) {
  ev.preventDefault();
  const code = $('share-code').value.trim();
  $('code-error').textContent = '';
  if (!code) { $('code-error').textContent = 'Type a share code first.'; $('share-code').focus(); return; }
  try {
    const b = await api('GET', `/bottles/${encodeURIComponent(code)}`);
    go(`b/${b.id}`);
  } catch (e) {
    if (e.code !== 'not_found') { $('code-error').textContent = errorText(e); return; }
    // A bottle that left this box for another one: say where, and offer to watch it from here.
    let travelled = null;
    try { travelled = await api('GET', `/mesh/travelled/${encodeURIComponent(code)}`); } catch (_) { travelled = null; }
    if (!travelled) { $('code-error').textContent = 'No bottle with that code here. It may be gone.'; return; }
    $('code-error').replaceChildren(
      `This bottle travelled to ${travelled.destination}. `,
      el('button', { type: 'button', id: 'watch-travelled', onclick: async () => {
        try {
          await api('PUT', `/mesh/watches/${encodeURIComponent(code)}`);
          $('code-error').textContent = `Watching: you will hear here when it can be opened at ${travelled.destination}.`;
        } catch (err) { $('code-error').textContent = errorText(err); }
      } }, 'Tell me when it can be opened'));
  }
}

async function loadMine() {
  try {
    const [{ bottles }, watches] = await Promise.all([api('GET', '/my/bottles'), api('GET', '/my/watches')]);
    $('mine-list').replaceChildren(...bottles.map((b) => {
      const editable = b.state === 'locked' || b.state === 'openable';
      const acts = editable ? [
        el('button', { type: 'button', onclick: () => startEdit(b) }, 'Edit'),
        el('button', { type: 'button', class: 'danger', onclick: () => retire(b) }, 'Retire'),
      ] : [];
      const card = bottleCard(b, acts);
      const text = (b.content && b.content.text) || (b.draft && b.draft.text);
      if (text) card.insertBefore(el('p', { class: 'message-text' }, text.length > 140 ? text.slice(0, 140) + '…' : text), card.lastChild);
      return card;
    }));
    show($('mine-empty'), bottles.length === 0);
    $('watch-list').replaceChildren(...watches.bottles.map((b) => bottleCard(b, [
      el('button', { type: 'button', onclick: async () => { try { await api('DELETE', `/bottles/${b.id}/watch`); loadMine(); } catch (e) { notice(errorText(e)); } } }, 'Stop watching'),
    ])));
    show($('watch-empty'), watches.bottles.length === 0);
  } catch (e) { notice(errorText(e)); }
}

async function retire(b) {
  if (!window.confirm(`Retire bottle ${b.shareCode || ''}? It is erased for good.`)) return;
  try { await api('DELETE', `/bottles/${b.id}`); notice('The bottle was retired and erased.'); loadMine(); }
  catch (e) { notice(errorText(e)); }
}

// ---------------------------------------------------------------- conditions form

const DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
const COND_KINDS = {
  password: { label: 'Password', fields: [['password', 'Password', 'password']] },
  timeOfDay: { label: 'Time of day (box time)', fields: [['start', 'From', 'time', '18:00'], ['end', 'Until', 'time', '23:00']] },
  daysOfWeek: { label: 'Days of the week', fields: [['days', 'Days', 'checks', DAYS]] },
  dateRange: { label: 'Dates', fields: [['from', 'From date', 'date'], ['through', 'Through date', 'date']] },
  solar: { label: 'Sun (day, dusk, night, dawn)', fields: [['phases', 'Phases', 'checks', ['day', 'civilDusk', 'night', 'civilDawn']]] },
  temperature: { label: 'Temperature (°C)', fields: [['min', 'Minimum °C', 'number'], ['max', 'Maximum °C', 'number']] },
  humidity: { label: 'Humidity (%)', fields: [['min', 'Minimum %', 'number'], ['max', 'Maximum %', 'number']] },
  pressure: { label: 'Air pressure (hPa)', fields: [['min', 'Minimum hPa', 'number'], ['max', 'Maximum hPa', 'number']] },
  pressureTrend: { label: 'Pressure trend', fields: [['trend', 'Trend', 'select', ['rising', 'falling', 'steady']], ['hours', 'Over hours', 'int', '3']] },
  rain: { label: 'Rain', fields: [['withinMinutes', 'Within the last minutes', 'int', '60'], ['minimumMillimetres', 'At least mm', 'number']] },
  presence: { label: 'Presence (press the box button)', fields: [['withinSeconds', 'Pressed within seconds', 'int', '120']] },
  delay: { label: 'Delay', fields: [['seconds', 'Opens after minutes', 'minutes', '60']] },
  boxPosition: { label: 'Box position', fields: [['latitude', 'Latitude', 'number'], ['longitude', 'Longitude', 'number'], ['radiusMeters', 'Radius m', 'number', '500']] },
  distanceFromOrigin: { label: 'Distance from where it was dropped', fields: [['maximumKilometres', 'Within km', 'number', '10']] },
};
let condSeq = 0;

function addCondition(kind, values) {
  const spec = COND_KINDS[kind];
  if (!spec) return;
  const max = state.limits.maxConditions;
  if (max && $('cond-list').children.length >= max) { $('drop-error').textContent = `At most ${max} conditions.`; return; }
  const n = ++condSeq;
  const v = values || {};
  const box = el('fieldset', { class: 'cond', 'data-kind': kind });
  box.append(el('legend', {}, spec.label));
  const grid = el('div', { class: 'grid' });
  for (const [name, label, type, extra] of spec.fields) {
    const id = `c${n}-${name}`;
    if (type === 'checks') {
      const words = name === 'days' ? null : SOLAR_WORDS;
      const group = el('div', { class: 'days', role: 'group', 'aria-label': label });
      for (const opt of extra) {
        const cid = `${id}-${opt}`;
        group.append(el('span', { class: 'check' },
          el('input', { type: 'checkbox', id: cid, 'data-field': name, value: opt, checked: (v[name] || []).includes(opt) }),
          el('label', { for: cid }, words ? words[opt] : opt[0].toUpperCase() + opt.slice(1, 3))));
      }
      box.append(group);
      continue;
    }
    let input;
    if (type === 'select') {
      input = el('select', { id, 'data-field': name }, ...extra.map((o) => el('option', { value: o, selected: v[name] === o }, o)));
    } else {
      const htmlType = { password: 'text', time: 'time', date: 'date', number: 'number', int: 'number', minutes: 'number' }[type];
      let value = v[name];
      if (type === 'minutes' && value != null) value = Math.round(value / 60);
      if (value == null && kind === 'boxPosition' && state.box && state.box.position) value = state.box.position[name];
      if (value == null && extra && type !== 'password') value = extra;
      input = el('input', { id, type: htmlType, 'data-field': name, 'data-type': type, value: value ?? '', step: type === 'number' ? 'any' : null, inputmode: type === 'int' || type === 'minutes' ? 'numeric' : (type === 'number' ? 'decimal' : null), autocomplete: 'off' });
      if (type === 'password' && state.editing) input.placeholder = 'Leave empty to keep the current one';
    }
    grid.append(el('div', {}, el('label', { for: id }, label), input));
  }
  box.append(grid);
  const hid = `c${n}-hint`;
  box.append(el('div', { class: 'field' }, el('label', { for: hid }, 'Hint for this condition (optional)'),
    el('input', { id: hid, 'data-field': 'hint', value: v.hint || '', autocomplete: 'off', maxlength: state.limits.hintMaxLength || null })));
  box.append(el('button', { type: 'button', class: 'remove danger', onclick: () => box.remove() }, `Remove “${spec.label}”`));
  $('cond-list').append(box);
  const first = box.querySelector('input, select');
  if (first && !values) first.focus();
}

/** Reads the conditions form into ConditionInput objects; throws a message on a bad field. */
function readConditions() {
  const out = [];
  for (const box of $('cond-list').children) {
    const kind = box.dataset.kind;
    const c = { kind };
    for (const input of box.querySelectorAll('[data-field]')) {
      const f = input.dataset.field;
      if (input.type === 'checkbox') { if (!c[f]) c[f] = []; if (input.checked) c[f].push(input.value); continue; }
      const raw = input.value.trim();
      if (raw === '') continue;
      const t = input.dataset.type;
      if (t === 'number' || t === 'int' || t === 'minutes') {
        const num = Number(raw);
        if (!Number.isFinite(num)) throw new Error(`“${raw}” is not a number (${COND_KINDS[kind].label}).`);
        c[f] = t === 'minutes' ? Math.round(num * 60) : (t === 'int' ? Math.round(num) : num);
      } else c[f] = raw;
    }
    if (kind === 'password' && !c.password && !state.editing) throw new Error('Type the password for the password condition.');
    if ((kind === 'daysOfWeek' && !(c.days || []).length) || (kind === 'solar' && !(c.phases || []).length)) throw new Error(`Pick at least one option for “${COND_KINDS[kind].label}”.`);
    out.push(c);
  }
  return out;
}

function resetDrop() {
  state.editing = null;
  $('drop-form').reset();
  $('cond-list').replaceChildren();
  $('drop-error').textContent = '';
  clearPhoto(); clearWhisper();
  show($('drop-form'), true);
  show($('drop-result'), false);
  show($('drop-cancel-edit'), false);
  show($('photo-remove-box'), false);
  show($('whisper-remove-box'), false);
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
  $('drop-text-count').textContent = max ? `${n} / ${max}` : '';
}

function startEdit(b) {
  const d = b.draft || {};
  state.editing = b;
  go('drop');
  $('drop-form').reset();
  $('cond-list').replaceChildren();
  clearPhoto(); clearWhisper();
  show($('drop-result'), false); show($('drop-form'), true);
  $('drop-title').textContent = `Edit bottle ${b.shareCode || ''}`;
  $('drop-submit').textContent = 'Save changes';
  show($('drop-cancel-edit'), true);
  $('drop-text').value = d.text || '';
  $('drop-hint').value = d.hint || '';
  $('drop-oneshot').checked = !!d.oneShot;
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
  return { blob, width: w, height: h };
}

async function onPhotoChosen() {
  const file = $('drop-photo').files[0];
  if (!file) return;
  $('drop-photo-info').textContent = 'Preparing the photo…';
  try {
    const { blob, width, height } = await resizePhoto(file);
    const max = state.limits.imageMaxBytes;
    if (max && blob.size > max) throw new Error('The photo is too large even after resizing.');
    photoBlob = blob;
    const img = $('drop-photo-preview');
    img.src = URL.createObjectURL(blob);
    show(img, true); show($('drop-photo-clear'), true);
    $('drop-photo-info').textContent = `${width}×${height}, ${Math.round(blob.size / 1024)} KB (${blob.type.replace('image/', '')})`;
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

async function toggleRecording() {
  if (recorder && recorder.state === 'recording') { recorder.stop(); return; }
  let stream;
  try { stream = await navigator.mediaDevices.getUserMedia({ audio: true }); }
  catch (_) { $('whisper-info').textContent = 'The microphone is not available. Use the file picker instead.'; show($('whisper-file-box'), true); return; }
  const chunks = [];
  recorder = new MediaRecorder(stream);
  recorder.ondataavailable = (e) => { if (e.data.size) chunks.push(e.data); };
  recorder.onstop = () => {
    clearInterval(recordTimer); clearTimeout(recorder.autoStop);
    stream.getTracks().forEach((t) => t.stop());
    $('whisper-record').textContent = 'Record again';
    const secs = (performance.now() - recordStart) / 1000;
    if (secs < whisperMin()) { $('whisper-info').textContent = `Too short (${secs.toFixed(1)} s). A whisper needs at least ${whisperMin()} s.`; return; }
    const type = (recorder.mimeType || 'audio/webm').split(';')[0];
    setWhisper(new Blob(chunks, { type }), Math.min(secs, whisperMax()));
  };
  clearWhisper();
  recordStart = performance.now();
  recorder.start();
  $('whisper-record').textContent = 'Stop recording';
  recordTimer = setInterval(() => { $('whisper-timer').textContent = `${((performance.now() - recordStart) / 1000).toFixed(1)} s of ${whisperMax()} s`; }, 200);
  recorder.autoStop = setTimeout(() => { if (recorder.state === 'recording') recorder.stop(); }, whisperMax() * 1000);
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

async function onWhisperChosen() {
  const file = $('drop-whisper').files[0];
  if (!file) return;
  const max = state.limits.audioMaxBytes;
  if (max && file.size > max) { $('whisper-info').textContent = 'This sound file is too large.'; $('drop-whisper').value = ''; return; }
  const secs = await audioDuration(file);
  if (secs != null && (secs < whisperMin() - 0.05 || secs > whisperMax() + 0.25)) {
    $('whisper-info').textContent = `A whisper is ${whisperMin()}–${whisperMax()} s long; this one is ${secs.toFixed(1)} s.`;
    $('drop-whisper').value = '';
    return;
  }
  setWhisper(file, secs);
}

function audioType(blob) {
  const t = (blob.type || '').split(';')[0].toLowerCase();
  return { 'audio/x-m4a': 'audio/mp4', 'audio/m4a': 'audio/mp4', 'audio/x-wav': 'audio/wav', 'audio/wave': 'audio/wav', 'audio/mp3': 'audio/mpeg', '': 'application/octet-stream' }[t] || t;
}

// ---------------------------------------------------------------- drop / edit submit

async function submitDrop(ev) {
  ev.preventDefault();
  const err = $('drop-error');
  err.textContent = '';
  const text = $('drop-text').value;
  if (!text.trim() && !photoBlob && !whisperBlob && !(state.editing && (state.editing.hasImage || state.editing.hasWhisper))) {
    err.textContent = 'Write a message first.'; $('drop-text').focus(); return;
  }
  if (!text.trim() && !state.editing) { err.textContent = 'Write a message first; a photo or whisper goes with it.'; $('drop-text').focus(); return; }
  let conditions;
  try { conditions = readConditions(); } catch (e) { err.textContent = e.message; return; }
  const where = state.editing ? 'nearby' : $('drop-where').value;
  const draft = { text, conditions, oneShot: $('drop-oneshot').checked, placement: where };
  if (where !== 'nearby') {
    if (photoBlob || whisperBlob) { err.textContent = 'Photos and whispers stay here: a bottle that travels carries text only.'; return; }
    if (where === 'manual') {
      if (!$('drop-to').value) { err.textContent = 'Choose the box it goes to.'; $('drop-to').focus(); return; }
      draft.to = $('drop-to').value;
    }
  }
  const hint = $('drop-hint').value.trim();
  draft.hint = hint || null;
  const hours = Number($('drop-lifetime').value);
  if (hours > 0) draft.lifetimeSeconds = Math.round(hours * 3600);
  const button = $('drop-submit');
  button.disabled = true;
  try {
    if (where !== 'nearby') {
      const sent = await api('POST', '/bottles', { json: draft });
      state.lastDropped = null;
      $('drop-code').textContent = sent.shareCode || sent.id;
      $('drop-result').querySelector('p').firstChild.textContent = `Your bottle is travelling to ${sent.destination}. Share code: `;
      show($('drop-view'), false);
      show($('drop-form'), false);
      show($('drop-result'), true);
      $('drop-another').focus();
      return;
    }
    show($('drop-view'), true);
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
    $('drop-code').textContent = b.shareCode || b.id;
    $('drop-result').querySelector('p').firstChild.textContent = wasEditing ? 'Saved. Share code: ' : 'Your bottle is in the water. Share code: ';
    show($('drop-form'), false);
    show($('drop-result'), true);
    $('drop-view').focus();
  } catch (e) {
    err.textContent = e instanceof ApiError ? errorText(e) : (e.message || 'Something went wrong.');
  } finally { button.disabled = false; }
}

// ---------------------------------------------------------------- bottle view

async function loadBottle(id, { quiet = false } = {}) {
  if (!quiet) {
    if (state.chat && state.chat.bottleId !== id) leaveChat();
    stopPresence();
    $('open-error').textContent = '';
    $('open-password').value = '';
    show($('presence-status'), false);
  }
  try {
    const b = await api('GET', `/bottles/${encodeURIComponent(id)}`);
    renderBottle(b);
  } catch (e) {
    if (e.code === 'not_found') bottleGone(id);
    else $('open-error').textContent = errorText(e);
  }
}

function renderConditions(conditions) {
  $('bottle-conditions').replaceChildren(...(conditions || []).map((c) => el('li', { class: c.status, 'data-kind': c.kind },
    el('span', { class: 'status' }, `${STATUS_WORDS[c.status] || c.status}: `), c.summary,
    c.reason && c.status !== 'satisfied' ? el('div', { class: 'reason' }, `Why: ${c.reason}`) : null,
    c.hint ? el('div', { class: 'hint' }, `Hint: ${c.hint}`) : null,
    c.changesAt && c.kind !== 'expiry' ? el('div', { class: 'muted' }, `Changes at ${boxTime(c.changesAt)}`) : null)));
  if (!conditions || !conditions.length) $('bottle-conditions').append(el('li', {}, 'No conditions: anyone here may open it.'));
}

function renderBottle(b) {
  const previous = state.bottle;
  state.bottle = b;
  $('bottle-title').textContent = `Bottle ${b.shareCode || ''}`.trim();
  const badge = $('bottle-state');
  badge.textContent = STATE_WORDS[b.state] || b.state;
  badge.className = `badge ${b.state}`;
  const meta = [];
  if (b.isMine) meta.push('you dropped it');
  if (b.oneShot) meta.push('one-shot');
  if (b.expiresAt) meta.push(`expires in ${fmtDuration(Date.parse(b.expiresAt) - boxNow())}`);
  if (b.distanceTravelledMeters) meta.push(`travelled ${(b.distanceTravelledMeters / 1000).toFixed(1)} km`);
  $('bottle-meta').textContent = meta.join(' · ');
  $('bottle-hint').textContent = b.hint ? `Hint: ${b.hint}` : '';
  show($('bottle-hint'), !!b.hint);
  renderConditions(b.conditions);
  // After the first open the box lists only the expiry; the creator's draft still names the proofs.
  const kinds = (b.conditions || []).concat((b.draft && b.draft.conditions) || []).map((c) => c.kind);
  show($('open-password-box'), kinds.includes('password') && !b.hasOpened);
  show($('presence-start'), kinds.includes('presence') && !b.hasOpened && (!state.box || state.box.hasPresenceButton !== false));
  show($('open-form'), true);
  $('open-submit').textContent = b.hasOpened ? 'Join the chat' : 'Open the bottle';
  show($('open-submit'), !b.hasOpened || (b.chat && !(state.chat && state.chat.bottleId === b.id)));
  $('watch-toggle').textContent = b.isWatched ? 'Stop watching' : 'Watch';
  $('watch-toggle').setAttribute('aria-pressed', b.isWatched ? 'true' : 'false');
  show($('watch-toggle'), !b.hasOpened && !b.isMine);
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

/** Shows the chat panel from the bottle's `chat` when not connected (e.g. a dying countdown). */
function renderChatSummary(b) {
  const live = state.chat && state.chat.bottleId === b.id;
  if (live) return;
  const dyingWithoutChat = !b.chat && b.state === 'dying';
  show($('chat'), (!!b.chat && !!b.hasOpened) || dyingWithoutChat);
  if (dyingWithoutChat) {
    for (const id of ['chat-older', 'chat-form', 'chat-leave', 'chat-keepalive']) show($(id), false);
    $('chat-messages').replaceChildren();
    $('chat-dying').textContent = 'Everyone has left this chat. It disappears soon unless someone comes back.';
    show($('chat-dying'), true);
    return;
  }
  if (!b.chat || !b.hasOpened) return;
  // Not connected, so no chat events: look again now and then (the chat may start dying).
  clearTimeout(state.summaryRefresh);
  state.summaryRefresh = setTimeout(() => {
    if (state.view === 'bottle' && state.bottle && state.bottle.id === b.id && !state.bottle.gone && !(state.chat && state.chat.bottleId === b.id)) {
      loadBottle(b.id, { quiet: true });
    }
  }, b.chat.state === 'dying' ? 5000 : 3000);
  $('chat-messages').replaceChildren();
  show($('chat-older'), false);
  show($('chat-form'), false);
  show($('chat-leave'), false);
  show($('chat-keepalive'), !b.oneShot);
  $('chat-typing').textContent = '';
  renderPresent(b.chat.present || []);
  renderKeeper(b.chat.keeper);
  setLifecycle(b.chat.state, b.chat.deadline);
}

function bottleGone(id) {
  if (state.chat) { state.chat.ended = true; leaveChat(); }
  stopPresence();
  stopDyingTimer();
  if (state.bottle && (!id || state.bottle.id === id || state.bottle.shareCode === id)) state.bottle = { ...state.bottle, state: 'expired', gone: true };
  else state.bottle = { id, gone: true };
  $('bottle-title').textContent = state.bottle.shareCode ? `Bottle ${state.bottle.shareCode}` : 'Bottle';
  const badge = $('bottle-state');
  badge.textContent = STATE_WORDS.expired; badge.className = 'badge';
  $('bottle-meta').textContent = '';
  show($('bottle-body'), false);
  $('content-text').textContent = '';
  const img = $('content-image'); img.removeAttribute('src'); delete img.dataset.src;
  $('chat-messages').replaceChildren();
  show($('bottle-gone'), true);
}

async function openBottle(ev) {
  if (ev) ev.preventDefault();
  const b = state.bottle;
  if (!b || b.gone) return;
  $('open-error').textContent = '';
  const password = $('open-password').value;
  const btn = $('open-submit');
  btn.disabled = true;
  try {
    const opened = await api('POST', `/bottles/${b.id}/open`, { json: password ? { password } : {} });
    show($('presence-status'), false);
    renderBottle(opened);
    if (opened.chat) await enterChat(opened);
  } catch (e) {
    if (e.code === 'locked') {
      const d = e.details || {};
      if (d.conditions) renderConditions(d.conditions);
      const reasons = Array.isArray(d.reasons) && d.reasons.length ? d.reasons.join(' ') : '';
      $('open-error').textContent = `Still locked. ${reasons || e.message}`;
      if ((d.conditions || []).some((c) => c.kind === 'password' && c.status !== 'satisfied')) {
        show($('open-password-box'), true);
        $('open-password').focus();
      }
      if ((d.conditions || []).some((c) => c.kind === 'presence' && c.status !== 'satisfied')) show($('presence-start'), true);
    } else if (e.code === 'not_found') bottleGone(b.id);
    else $('open-error').textContent = errorText(e);
  } finally { btn.disabled = false; }
}

async function toggleWatch() {
  const b = state.bottle;
  if (!b) return;
  try {
    const nb = await api(b.isWatched ? 'DELETE' : 'PUT', `/bottles/${b.id}/watch`);
    if (nb && nb.id) renderBottle(nb); else loadBottle(b.id, { quiet: true });
    notice(nb && nb.isWatched ? 'Watching: you will hear here when it can be opened.' : 'No longer watching.');
  } catch (e) { $('open-error').textContent = errorText(e); }
}

// ---------------------------------------------------------------- presence proof

async function startPresence() {
  const b = state.bottle;
  if (!b) return;
  stopPresence();
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

/** Joins the live chat of an opened bottle: history, socket, composer. */
async function enterChat(b) {
  if (state.chat && state.chat.bottleId === b.id && state.chat.socket) return;
  leaveChat();
  const chat = { bottleId: b.id, me: b.chat && b.chat.me, seen: new Set(), older: null, socket: null, typingSentAt: 0, typingStop: 0, ended: false, present: new Map() };
  state.chat = chat;
  show($('chat'), true);
  show($('chat-form'), true);
  show($('chat-leave'), true);
  show($('chat-keepalive'), !b.oneShot);
  show($('open-submit'), false);
  $('chat-messages').replaceChildren();
  $('chat-typing').textContent = '';
  $('chat-error').textContent = '';
  if (!$('chat-lang').value) $('chat-lang').value = (navigator.language || 'en');
  if (b.chat) { renderPresent(b.chat.present || []); renderKeeper(b.chat.keeper); setLifecycle(b.chat.state, b.chat.deadline); }
  connectChat(chat);
  try {
    const page = await api('GET', `/bottles/${b.id}/messages?limit=50`);
    if (state.chat !== chat) return;
    for (const m of oldestFirst(page.messages)) addMessage(m, 'append');
    chat.older = page.older || null;
    show($('chat-older'), !!chat.older);
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
      setLifecycle(e.state, e.deadline);
      break;
    case 'message': if (e.message) addMessage(e.message, 'append'); break;
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
      else setLifecycle(e.state, e.deadline);
      break;
    default: break;
  }
}

function isMe(p) {
  if (!p) return false;
  if (p.isMe) return true;
  const me = state.chat && state.chat.me;
  return !!(me && me.id === p.id);
}

function addMessage(m, where) {
  const chat = state.chat;
  if (!chat || chat.seen.has(m.id)) return;
  chat.seen.add(m.id);
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
  if (where === 'append') li.scrollIntoView({ block: 'nearest' });
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
  $('chat-present').replaceChildren(...list.map((p) => el('li', { title: whoText({ ...p, isMe: isMe(p) }) }, avatar(p, 22), el('span', {}, whoText({ ...p, isMe: isMe(p) })))));
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

let dyingTimer = 0;
function stopDyingTimer() { clearInterval(dyingTimer); dyingTimer = 0; }

/** Shows the chat's phase; `dying` shows a live countdown to `deadline`. */
function setLifecycle(phase, deadline) {
  stopDyingTimer();
  const banner = $('chat-dying');
  if (phase !== 'dying' || !deadline) { show(banner, false); return; }
  const end = Date.parse(deadline);
  const tick = () => {
    const left = end - boxNow();
    if (left <= 0) {
      banner.textContent = 'The chat is ending…';
      stopDyingTimer();
      // Confirm with the box: gone (404) or rescued.
      const id = state.bottle && state.bottle.id;
      const check = (n) => setTimeout(async () => {
        if (!state.bottle || state.bottle.id !== id || state.bottle.gone) return;
        try { const b = await api('GET', `/bottles/${id}`); if (b.chat && b.chat.state === 'dying' && n < 20) check(n + 1); else renderBottle(b); }
        catch (e) { if (e.code === 'not_found') bottleGone(id); }
      }, 1000);
      check(0);
      return;
    }
    banner.textContent = `Everyone has left. This bottle disappears in ${fmtDuration(left)} unless someone comes back or presses Keep alive.`;
  };
  show(banner, true);
  tick();
  dyingTimer = setInterval(tick, 1000);
}

function sendTyping(kind) {
  const chat = state.chat;
  if (!chat || !chat.socket || chat.socket.readyState !== WebSocket.OPEN) return;
  chat.socket.send(JSON.stringify({ type: kind }));
}

function onComposerInput() {
  const chat = state.chat;
  if (!chat) return;
  const now = Date.now();
  if ($('chat-text').value && now - chat.typingSentAt > 3000) { chat.typingSentAt = now; sendTyping('typing'); }
  clearTimeout(chat.typingStop);
  chat.typingStop = setTimeout(() => { chat.typingSentAt = 0; sendTyping('stopTyping'); }, 4000);
  if (!$('chat-text').value) { clearTimeout(chat.typingStop); chat.typingSentAt = 0; sendTyping('stopTyping'); }
}

async function sendMessage(ev) {
  ev.preventDefault();
  const chat = state.chat;
  if (!chat) return;
  const input = $('chat-text');
  const text = input.value.trim();
  $('chat-error').textContent = '';
  if (!text) { $('chat-error').textContent = 'Type a message first.'; input.focus(); return; }
  const language = $('chat-lang').value.trim() || navigator.language || 'en';
  $('chat-send').disabled = true;
  try {
    const m = await api('POST', `/bottles/${chat.bottleId}/messages`, { json: { text, language } });
    input.value = '';
    clearTimeout(chat.typingStop); chat.typingSentAt = 0; sendTyping('stopTyping');
    if (m && m.id) addMessage(m, 'append');
  } catch (e) {
    if (e.code === 'conflict') { chat.ended = true; bottleGone(chat.bottleId); }
    else $('chat-error').textContent = errorText(e);
  } finally { $('chat-send').disabled = false; input.focus(); }
}

/** A photo in the chat: resized like the bottle's, uploaded, then posted with the composer's text. */
async function sendPhoto() {
  const chat = state.chat;
  const input = $('chat-photo');
  const file = input.files[0];
  if (!chat || !file) return;
  $('chat-error').textContent = '';
  input.disabled = true;
  try {
    const { blob } = await resizePhoto(file);
    const staged = await api('POST', `/bottles/${chat.bottleId}/attachments`, { body: blob, type: blob.type });
    const language = $('chat-lang').value.trim() || navigator.language || 'en';
    const m = await api('POST', `/bottles/${chat.bottleId}/messages`, { json: { text: $('chat-text').value.trim(), language, attachment: staged.attachment } });
    $('chat-text').value = '';
    if (m && m.id) addMessage(m, 'append');
  } catch (e) {
    $('chat-error').textContent = e instanceof ApiError ? errorText(e) : (e.message || 'The photo could not be sent.');
  } finally { input.disabled = false; input.value = ''; }
}

async function keepAlive() {
  const b = state.bottle;
  if (!b) return;
  try {
    const r = await api('POST', `/bottles/${b.id}/keep-alive`);
    if (r && r.keeper) renderKeeper({ ...r.keeper, isMe: true });
    setLifecycle(r && r.state === 'dying' ? 'dying' : 'active', null);
    notice('You keep this chat alive now.');
  } catch (e) {
    if (e.code === 'not_found') bottleGone(b.id); else $('chat-error').textContent = errorText(e);
  }
}

/** Closes the chat socket: the box counts this visitor as gone. */
function leaveChat() {
  const chat = state.chat;
  if (!chat) return;
  chat.left = true;
  clearTimeout(chat.typingStop); clearTimeout(chat.typingClear);
  state.chat = null;
  if (chat.socket) { try { chat.socket.close(1000, 'left'); } catch (_) { /* already closed */ } }
  stopDyingTimer();
}

// ---------------------------------------------------------------- recovery code

function renderRecovery() {
  $('recovery-code').value = state.token || '';
}

async function copyRecovery() {
  const input = $('recovery-code');
  input.focus(); input.select();
  let ok = false;
  try { if (navigator.clipboard && window.isSecureContext) { await navigator.clipboard.writeText(input.value); ok = true; } } catch (_) { ok = false; }
  if (!ok) { try { ok = document.execCommand('copy'); } catch (_) { ok = false; } }
  notice(ok ? 'Recovery code copied.' : 'Select the code and copy it by hand.');
}

async function restore(ev) {
  ev.preventDefault();
  const code = $('restore-code').value.trim();
  const err = $('restore-error');
  err.textContent = '';
  if (!/^[A-Za-z0-9_-]{43}$/.test(code)) { err.textContent = 'A recovery code is 43 letters, digits, “-” or “_”.'; return; }
  try {
    const mine = await api('GET', '/my/bottles', { token: code, retry: false });
    state.token = code;
    store.set(TOKEN_KEY, code);
    renderRecovery();
    $('restore-code').value = '';
    if (liveSocket) { liveSocket.onclose = null; liveSocket.close(); setTimeout(connectLive, 100); }
    notice(`Restored. ${mine.bottles.length} bottle${mine.bottles.length === 1 ? '' : 's'} found.`);
    go('mine');
  } catch (e) {
    err.textContent = e.status === 401 ? 'This box does not know that code.' : errorText(e);
  }
}

// ---------------------------------------------------------------- start

function wire() {
  for (const b of document.querySelectorAll('.tabs button')) b.addEventListener('click', () => { if (b.dataset.view === 'drop') state.editing = null; go(b.dataset.view); });
  $('code-form').addEventListener('submit', findByCode);
  $('cond-kind').replaceChildren(...Object.entries(COND_KINDS).map(([k, v]) => el('option', { value: k }, v.label)));
  $('cond-add').addEventListener('click', () => { $('drop-error').textContent = ''; addCondition($('cond-kind').value); });
  $('drop-form').addEventListener('submit', submitDrop);
  $('drop-text').addEventListener('input', countText);
  $('drop-photo').addEventListener('change', onPhotoChosen);
  $('drop-photo-clear').addEventListener('click', clearPhoto);
  $('drop-whisper').addEventListener('change', onWhisperChosen);
  $('whisper-clear').addEventListener('click', clearWhisper);
  $('whisper-record').addEventListener('click', toggleRecording);
  $('drop-cancel-edit').addEventListener('click', () => { state.editing = null; go('mine'); });
  $('drop-view').addEventListener('click', () => state.lastDropped && go(`b/${state.lastDropped.id}`));
  $('drop-another').addEventListener('click', resetDrop);
  $('open-form').addEventListener('submit', openBottle);
  $('presence-start').addEventListener('click', startPresence);
  $('watch-toggle').addEventListener('click', toggleWatch);
  $('chat-form').addEventListener('submit', sendMessage);
  $('chat-text').addEventListener('input', onComposerInput);
  $('chat-older').addEventListener('click', loadOlder);
  $('chat-photo').addEventListener('change', sendPhoto);
  $('chat-keepalive').addEventListener('click', keepAlive);
  $('chat-leave').addEventListener('click', () => { leaveChat(); go('home'); });
  $('drop-where').addEventListener('change', () => show($('drop-to-box'), $('drop-where').value === 'manual'));
  $('remote-form').addEventListener('submit', sendRemote);
  $('remote-leave').addEventListener('click', () => leaveRemote(false));
  $('recovery-copy').addEventListener('click', copyRecovery);
  $('restore-form').addEventListener('submit', restore);
  window.addEventListener('hashchange', route);
  // The photo "had" note lives next to the picker.
  $('drop-photo-info').insertAdjacentElement('afterend', el('small', { id: 'photo-had', class: 'muted' }));
  if (canRecord()) { show($('whisper-recorder'), true); show($('whisper-file-box'), false); }
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
  try { if (!state.token) await register(); } catch (e) { notice(errorText(e)); }
  renderRecovery();
  await loadBox();
  setInterval(tickClock, 15000);
  connectLive();
  route();
}

document.addEventListener('DOMContentLoaded', start);

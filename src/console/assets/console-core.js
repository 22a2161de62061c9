// clawbox web console client, part 1 of 5: helpers and transcript rendering. A hash
// router over six pages, each drawn from the console's JSON API (/console/api). Plain
// DOM, no framework, no build step: the five parts are concatenated in order into one
// script (src/console/console-assets.ts), embedded in the program and served gzipped.
// See docs/CONSOLE.md.

// The session token the login page kept in this origin's storage (console-login.js).
// Read on every request, so a login in another tab is used at once.
const SESSION_KEY = "clawbox.console.session";
const sessionToken = () => localStorage.getItem(SESSION_KEY) || "";
const main = document.getElementById("main");

function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "class") el.className = v;
    // The page's CSP forbids style attributes (setAttribute("style") is dropped): set
    // style properties through the CSSOM instead, which the CSP allows.
    else if (k === "style") Object.assign(el.style, v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/**
 * Unsaved text survives a logout (a restart logs everyone out, and a Save then gets 401):
 * the page holding it sets `unsavedDraft` to a function returning `{key, value, page}`
 * (or nothing when all is saved; `page` is the hash that reopens what the draft belongs
 * to, e.g. the Workspace with that file); on a 401 the value goes to this tab's
 * sessionStorage, the login page says so, and after the login the console comes back to
 * that page, which takes the value back (`takeDraft`). Without a draft, the login still
 * comes back to the page that was asked for (`toLogin`). `leaveGuard`, when set, is asked
 * before the navigation leaves the page (false keeps the person where they are).
 */
const DRAFT_PREFIX = "clawbox.console.draft.";
const LOGGED_OUT_NOTE = "clawbox.console.loggedOutNote";
const RETURN_TO = "clawbox.console.returnTo";
let unsavedDraft = null;
let leaveGuard = null;

function keepDraft() {
  const draft = unsavedDraft?.();
  if (!draft) return;
  try {
    sessionStorage.setItem(DRAFT_PREFIX + draft.key, JSON.stringify(draft.value));
    sessionStorage.setItem(
      LOGGED_OUT_NOTE,
      "You were logged out; log in again and your text will still be here.",
    );
    sessionStorage.setItem(RETURN_TO, draft.page || location.hash);
    // Kept: leaving for the login page asks nothing.
    unsavedDraft = null;
    leaveGuard = null;
  } catch {
    // Storage full or disabled: nothing more to keep it in.
  }
}

/** The draft kept for `key` at a logout, once (removed as it is read). */
function takeDraft(key) {
  const kept = sessionStorage.getItem(DRAFT_PREFIX + key);
  if (kept === null) return undefined;
  sessionStorage.removeItem(DRAFT_PREFIX + key);
  try {
    return JSON.parse(kept);
  } catch {
    return undefined;
  }
}

/**
 * Back to the login page, forgetting `token` unless another tab has logged in since. The
 * login then opens the page that was asked for (a stale tab's #reminders, say), unless a
 * kept draft already named its page.
 */
function toLogin(token) {
  if (sessionToken() === token) localStorage.removeItem(SESSION_KEY);
  try {
    if (!sessionStorage.getItem(RETURN_TO) && location.hash.length > 1)
      sessionStorage.setItem(RETURN_TO, location.hash);
  } catch {
    // Storage disabled: the login opens the Chat page.
  }
  location.replace("/console/login");
}

/**
 * fetch() for the console API with the session's token in the X-Clawbox-Session header
 * (the only thing that makes a request the owner's; there is no cookie). A 401 (logged
 * out, expired, or the service restarted) goes to the login page.
 */
async function apiFetch(path, init) {
  const opts = init || {};
  const token = sessionToken();
  const headers = { ...(opts.headers || {}), "X-Clawbox-Session": token };
  const res = await fetch(`/console/api/${path}`, { ...opts, headers, credentials: "omit" });
  if (res.status === 401) {
    keepDraft();
    toLogin(token);
    throw new Error("Logged out (the box restarted or the session ended): log in again.");
  }
  return res;
}

/** Downloads an API answer as a file (a plain link could not carry the header). */
async function download(path, name) {
  const res = await apiFetch(path);
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  const url = URL.createObjectURL(await res.blob());
  const link = h("a", { href: url, download: name });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

async function api(path, options) {
  const opts = options || {};
  const init = { method: opts.method || (opts.body !== undefined ? "POST" : "GET") };
  init.headers = { Accept: "application/json" };
  if (opts.body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(opts.body);
  }
  const res = await apiFetch(path, init);
  const data = await res.json().catch(() => ({}));
  if (!res.ok) {
    const error = new Error(data.error?.message || `HTTP ${res.status}`);
    error.code = data.error?.code;
    error.data = data.error;
    throw error;
  }
  return data;
}

/**
 * A table whose cells carry their column's heading (data-label), for the phone layout
 * where each row is a card of "label: value" lines (console.css). `labels` names the
 * columns; an empty label leaves that cell unlabelled (a name, a button).
 */
function labelledTable(attrs, labels, rows) {
  for (const row of rows)
    [...row.children].forEach((cell, i) => {
      if (labels[i]) cell.dataset.label = labels[i];
    });
  return h(
    "table",
    attrs,
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        labels.map((l) => h("th", {}, l)),
      ),
    ),
    h("tbody", {}, rows),
  );
}

/** "1 result", "3 results". */
const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;

/** A local date and time a person reads at a glance ("Dec 1, 2026, 10:54 PM"). */
const when = (ms) =>
  new Date(ms).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
const errorBox = (error) =>
  h("p", { class: "error", role: "alert" }, String(error.message || error));

/** Timers of the page on screen; the router stops them when another page is drawn. */
const pageTimers = new Set();
function every(ms, fn) {
  const id = setInterval(() => void Promise.resolve(fn()).catch(() => {}), ms);
  pageTimers.add(id);
  return id;
}
function stopPageTimers() {
  for (const id of pageTimers) clearInterval(id);
  pageTimers.clear();
}

/** "in 4 min", "in 8 h 7 min", "2 d 3 h ago": a time relative to now, short. */
function fromNow(ms) {
  const minutes = Math.round((ms - Date.now()) / 60000);
  if (minutes === 0) return "now";
  const m = Math.abs(minutes);
  const span =
    m < 60
      ? `${m} min`
      : m < 1440
        ? `${Math.floor(m / 60)} h${m % 60 ? ` ${m % 60} min` : ""}`
        : `${Math.floor(m / 1440)} d${Math.floor((m % 1440) / 60) ? ` ${Math.floor((m % 1440) / 60)} h` : ""}`;
  return minutes > 0 ? `in ${span}` : `${span} ago`;
}

/** A small "ok"/"warn"/"fail" badge for a channel or check state, or a reminder's run. */
function stateBadge(state) {
  const good = state === "connected" || state === "sent" || state === "delivered";
  const bad = state === "error" || state === "failed" || state === "not sent";
  const kind = good ? "ok" : bad ? "fail" : "warn";
  return h("span", { class: `badge ${kind}`, "data-state": state }, state);
}

function page(title, ...children) {
  // A page that finished loading after the person had moved on (a slow Status while they
  // opened Models) must not replace the page they are on now.
  // Every page is titled with its name; a session's transcript with the session's key
  // (transcriptPage checks itself that it is still the one asked for).
  const [name, arg] = (location.hash.slice(1) || "chat").split("/");
  const current = PAGES[name] ? name : "chat";
  const transcript = current === "sessions" && arg;
  if (transcript ? PAGES[title.toLowerCase()] : title.toLowerCase() !== current) return;
  main.replaceChildren(h("h1", {}, title), ...children.flat().filter(Boolean));
}

/** Reads a server-sent-events response body, calling onEvent(name, data) per event. */
async function readSse(res, onEvent) {
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let cut = buffer.indexOf("\n\n");
    while (cut >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      let name = "message";
      const data = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) name = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
      }
      if (data.length > 0) onEvent(name, JSON.parse(data.join("\n")));
      cut = buffer.indexOf("\n\n");
    }
  }
}

// ---------------------------------------------------------------- transcript rendering

function toolBox(name, args, result, isError) {
  const body = h("div", { class: "tool-body" }, h("pre", {}, JSON.stringify(args, null, 2)));
  const box = h(
    "details",
    { class: `tool${isError ? " tool-error" : ""}` },
    h("summary", {}, `tool: ${name}`),
    body,
  );
  if (result !== undefined) body.append(h("pre", { class: "tool-result" }, result));
  return box;
}

/** Whether a reply is laid out in columns (two or more lines with a run of spaces or a
 * `|` between words, as `/context list` prints): such text is shown monospace. */
function columnar(text) {
  return (text || "").split("\n").filter((l) => /\S( {2,}|\t| \| )\S/.test(l)).length >= 2;
}
const textView = (text) => h("div", { class: columnar(text) ? "text columns" : "text" }, text);

function entryView(e) {
  if (e.type === "compaction") {
    return h(
      "div",
      { class: "entry compaction" },
      h("div", { class: "role" }, `compaction (${e.tokensBefore} tokens before)`),
      h("pre", {}, e.summary),
    );
  }
  if (e.type !== "message")
    return h("div", { class: "entry meta" }, `${e.type}${e.text ? `: ${e.text}` : ""}`);
  if (e.role === "toolResult") {
    return h(
      "details",
      { class: `entry tool${e.isError ? " tool-error" : ""}` },
      h("summary", {}, `result: ${e.toolName}`),
      h("pre", {}, e.text || ""),
      (e.images || []).map(imageView),
    );
  }
  return h(
    "div",
    { class: `entry ${e.role}` },
    h(
      "div",
      { class: "role" },
      e.role === "user" ? (e.from === "reminder" ? "reminder" : "you") : "assistant",
    ),
    e.thinking
      ? h("details", { class: "thinking" }, h("summary", {}, "thinking"), h("pre", {}, e.thinking))
      : null,
    e.text ? textView(e.text) : null,
    (e.images || []).map(imageView),
    (e.toolCalls || []).map((t) => toolBox(t.name, t.args)),
    e.error ? h("p", { class: "error" }, e.error) : null,
  );
}

function imageView(img) {
  return img.src
    ? h("img", { class: "shot", src: img.src, alt: img.mimeType })
    : h("p", { class: "muted" }, img.omitted);
}

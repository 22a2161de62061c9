// clawbox web console client: a hash router over six pages, each drawn from the
// console's JSON API (/console/api). Plain DOM, no framework, no build step; embedded in
// the program and served gzipped. See docs/CONSOLE.md.

const CSRF = document.body.dataset.csrf || "";
const main = document.getElementById("main");

function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "class") el.className = v;
    else if (k === "style") el.setAttribute("style", v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

async function api(path, options) {
  const opts = options || {};
  const headers = { Accept: "application/json" };
  if (opts.body !== undefined) {
    headers["Content-Type"] = "application/json";
    headers["X-Clawbox-CSRF"] = CSRF;
  }
  const res = await fetch(`/console/api/${path}`, {
    method: opts.method || (opts.body !== undefined ? "POST" : "GET"),
    headers,
    body: opts.body !== undefined ? JSON.stringify(opts.body) : undefined,
    credentials: "same-origin",
  });
  if (res.status === 401) {
    location.reload();
    throw new Error("log in again");
  }
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(data.error?.message || `HTTP ${res.status}`);
  return data;
}

const mb = (bytes) => `${(bytes / 1048576).toFixed(1)} MB`;
const when = (ms) => new Date(ms).toLocaleString();
const errorBox = (error) =>
  h("p", { class: "error", role: "alert" }, String(error.message || error));

function page(title, ...children) {
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
    h("div", { class: "role" }, e.role === "user" ? "you" : "assistant"),
    e.thinking
      ? h("details", { class: "thinking" }, h("summary", {}, "thinking"), h("pre", {}, e.thinking))
      : null,
    e.text ? h("div", { class: "text" }, e.text) : null,
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

// ---------------------------------------------------------------- chat

let chatSession = sessionStorage.getItem("clawbox.session") || "";

async function chatPage() {
  const list = h("div", { class: "messages", id: "messages" });
  const picker = h("select", { id: "session-picker", "aria-label": "Session" });
  const input = h("textarea", {
    id: "chat-input",
    rows: 2,
    placeholder: "Message (/new, /compact)",
    required: true,
  });
  const files = h("input", {
    type: "file",
    accept: "image/*",
    multiple: true,
    id: "chat-images",
    "aria-label": "Images",
  });
  const send = h("button", { type: "submit", id: "chat-send" }, "Send");
  const form = h(
    "form",
    {
      class: "composer",
      onsubmit: (ev) => {
        ev.preventDefault();
        void submit(input.value);
      },
    },
    input,
    files,
    send,
  );
  const commands = h(
    "div",
    { class: "row" },
    picker,
    h("button", { type: "button", class: "secondary", onclick: () => void submit("/new") }, "/new"),
    h(
      "button",
      { type: "button", class: "secondary", onclick: () => void submit("/compact") },
      "/compact",
    ),
  );
  page("Chat", commands, list, form);

  async function loadSessions() {
    const { sessions } = await api("sessions");
    picker.replaceChildren(h("option", { value: "" }, "default (web owner)"));
    const seen = new Set();
    for (const s of sessions) {
      if (seen.has(s.sessionKey)) continue;
      seen.add(s.sessionKey);
      picker.append(h("option", { value: s.sessionKey }, `${s.sessionKey} (${s.messageCount})`));
    }
    if (chatSession && !seen.has(chatSession))
      picker.append(h("option", { value: chatSession }, chatSession));
    picker.value = chatSession;
  }
  async function loadTranscript() {
    list.replaceChildren();
    if (!chatSession) return;
    try {
      const t = await api(`sessions/${encodeURIComponent(chatSession)}/transcript`);
      for (const e of t.entries.slice(-100)) list.append(entryView(e));
      list.scrollTop = list.scrollHeight;
    } catch {
      // a new session has no transcript yet
    }
  }
  picker.addEventListener("change", () => {
    chatSession = picker.value;
    sessionStorage.setItem("clawbox.session", chatSession);
    void loadTranscript();
  });

  async function readImages() {
    const out = [];
    for (const file of Array.from(files.files || []).slice(0, 4)) {
      const url = await new Promise((resolve, reject) => {
        const r = new FileReader();
        r.onload = () => resolve(String(r.result));
        r.onerror = () => reject(r.error);
        r.readAsDataURL(file);
      });
      const comma = url.indexOf(",");
      out.push({ mimeType: file.type, data: url.slice(comma + 1), src: url });
    }
    return out;
  }

  async function submit(text) {
    if (!text.trim()) return;
    send.disabled = true;
    const images = await readImages();
    list.append(
      entryView({
        type: "message",
        role: "user",
        text,
        images: images.map((i) => ({ src: i.src, mimeType: i.mimeType })),
      }),
    );
    const reply = h("div", { class: "text" });
    const bubble = h(
      "div",
      { class: "entry assistant streaming", id: "streaming" },
      h("div", { class: "role" }, "assistant"),
      reply,
    );
    list.append(bubble);
    input.value = "";
    files.value = "";
    const tools = new Map();
    try {
      const body = { message: text };
      if (chatSession) body.session = chatSession;
      if (images.length > 0)
        body.images = images.map((i) => ({ mimeType: i.mimeType, data: i.data }));
      const res = await fetch("/console/api/chat", {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          "X-Clawbox-CSRF": CSRF,
          Accept: "text/event-stream",
        },
        body: JSON.stringify(body),
        credentials: "same-origin",
      });
      if (!res.ok) {
        const data = await res.json().catch(() => ({}));
        throw new Error(data.error?.message || `HTTP ${res.status}`);
      }
      await readSse(res, (name, data) => {
        if (name === "delta") reply.append(data.text);
        else if (name === "tool") {
          const box = toolBox(data.name, data.args);
          tools.set(data.id, box);
          bubble.insertBefore(box, reply);
        } else if (name === "tool_end") {
          const box = tools.get(data.id);
          if (box)
            box.querySelector(".tool-body").append(h("pre", { class: "tool-result" }, data.result));
          if (box && data.isError) box.classList.add("tool-error");
        } else if (name === "done" || name === "error") {
          if (!reply.textContent) reply.textContent = data.reply;
          if (data.error) bubble.append(h("p", { class: "error" }, data.error.message));
          chatSession = data.sessionKey;
          sessionStorage.setItem("clawbox.session", chatSession);
        }
        list.scrollTop = list.scrollHeight;
      });
    } catch (error) {
      bubble.append(errorBox(error));
    } finally {
      bubble.classList.remove("streaming");
      bubble.removeAttribute("id");
      bubble.classList.add("done");
      send.disabled = false;
      void loadSessions();
    }
  }

  await loadSessions();
  await loadTranscript();
}

// ---------------------------------------------------------------- sessions

async function sessionsPage(id) {
  if (id) return transcriptPage(id);
  const { sessions } = await api("sessions");
  const rows = sessions.map((s) =>
    h(
      "tr",
      {},
      h(
        "td",
        {},
        h(
          "a",
          { href: `#sessions/${encodeURIComponent(s.sessionId)}`, class: "session-link" },
          s.sessionKey,
        ),
      ),
      h("td", { class: "num" }, s.messageCount),
      h("td", { class: "num" }, s.compactionCount),
      h("td", {}, when(s.updatedAt)),
    ),
  );
  page(
    "Sessions",
    sessions.length === 0
      ? h("p", { class: "muted" }, "No sessions yet.")
      : h(
          "table",
          {},
          h(
            "thead",
            {},
            h(
              "tr",
              {},
              h("th", {}, "session"),
              h("th", {}, "messages"),
              h("th", {}, "compactions"),
              h("th", {}, "updated"),
            ),
          ),
          h("tbody", {}, rows),
        ),
  );
}

async function transcriptPage(id) {
  const t = await api(`sessions/${encodeURIComponent(id)}/transcript`);
  page(
    t.sessionKey,
    h(
      "p",
      { class: "row" },
      h("a", { href: "#sessions" }, "← all sessions"),
      h(
        "a",
        {
          href: `/console/api/sessions/${encodeURIComponent(t.sessionId)}/export`,
          download: `${t.sessionId}.jsonl`,
          id: "export-jsonl",
        },
        "Export JSONL",
      ),
    ),
    h("div", { class: "messages transcript", id: "transcript" }, t.entries.map(entryView)),
  );
}

// ---------------------------------------------------------------- context

const BAR_PARTS = [
  ["system", "system prompt"],
  ["bootstrap", "bootstrap files"],
  ["skills", "skills"],
  ["tools", "tools"],
  ["history", "history"],
  ["reserve", "reply reserve"],
];

function budgetParts(r) {
  const b = r.budget;
  const bootstrap = b.bootstrapTokens;
  const skills = b.skillsTokens;
  const system = Math.max(0, b.system - bootstrap - skills) + Math.max(0, b.templateTokens);
  const parts = {
    system,
    bootstrap,
    skills,
    tools: b.toolTokens,
    history: b.historyTokens,
    reserve: b.reserve,
  };
  const used = Object.values(parts).reduce((a, n) => a + n, 0);
  return { parts, free: Math.max(0, b.contextWindow - used), window: b.contextWindow };
}

async function contextPage() {
  const { sessions } = await api("sessions");
  const picker = h(
    "select",
    { id: "context-session", "aria-label": "Session" },
    h("option", { value: "" }, "a fresh session"),
    sessions.map((s) => h("option", { value: s.sessionId }, s.sessionKey)),
  );
  const out = h("div", {});
  page("Context", h("p", { class: "row" }, picker), out);
  async function draw() {
    out.replaceChildren(h("p", { class: "muted" }, "measuring…"));
    const r = await api(
      `context${picker.value ? `?session=${encodeURIComponent(picker.value)}` : ""}`,
    );
    const { parts, free, window } = budgetParts(r);
    const pct = (n) => `${((n / window) * 100).toFixed(2)}%`;
    const bar = h(
      "div",
      {
        class: "bar",
        id: "budget-bar",
        role: "img",
        "aria-label": `context budget of ${window} tokens`,
      },
      BAR_PARTS.map(([key, label]) =>
        h("div", {
          class: `seg seg-${key}`,
          style: `width:${pct(parts[key])}`,
          title: `${label}: ${parts[key]} tokens`,
          "data-label": label,
          "data-tokens": parts[key],
        }),
      ),
      h("div", {
        class: "seg seg-free",
        style: `width:${pct(free)}`,
        title: `free: ${free} tokens`,
        "data-label": "free",
        "data-tokens": free,
      }),
    );
    const legend = h(
      "ul",
      { class: "legend", id: "budget-legend" },
      BAR_PARTS.map(([key, label]) =>
        h("li", {}, h("span", { class: `swatch seg-${key}` }), `${label}: ${parts[key]}`),
      ),
      h("li", {}, h("span", { class: "swatch seg-free" }), `free: ${free}`),
    );
    const files = r.files.map((f) =>
      h(
        "tr",
        { class: f.truncated ? "truncated" : "" },
        h("td", {}, f.name),
        h("td", { class: "num" }, f.missing ? "missing" : f.rawChars),
        h("td", { class: "num" }, f.injectedChars),
        h("td", {}, f.truncated ? h("span", { class: "badge warn" }, "truncated") : "no"),
        h("td", {}, f.destination),
      ),
    );
    out.replaceChildren(
      h(
        "p",
        {},
        `${r.modelKind} model ${r.model}: window ${window} tokens; session ${r.sessionKey || "(fresh)"}`,
      ),
      bar,
      legend,
      r.budget.steps.length > 0
        ? h("p", { class: "muted" }, `degraded: ${r.budget.steps.join("; ")}`)
        : "",
      h("h2", {}, "Bootstrap files"),
      h(
        "table",
        { id: "context-files" },
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            h("th", {}, "file"),
            h("th", {}, "raw chars"),
            h("th", {}, "injected"),
            h("th", {}, "truncated"),
            h("th", {}, "destination"),
          ),
        ),
        h("tbody", {}, files),
      ),
      h("h2", {}, "Tools"),
      h(
        "p",
        {},
        `${r.tools.included.length} of ${r.tools.offered} tool schemas, ${r.tools.tokens} tokens${r.tools.dropped.length ? `; dropped: ${r.tools.dropped.join(", ")}` : ""}`,
      ),
      h("h2", {}, "Skills"),
      h(
        "p",
        {},
        `${r.skills.mode}: ${r.skills.listed.map((s) => s.name).join(", ") || "none"} (${r.skills.tokens} tokens)`,
      ),
    );
  }
  picker.addEventListener(
    "change",
    () => void draw().catch((e) => out.replaceChildren(errorBox(e))),
  );
  await draw();
}

// ---------------------------------------------------------------- memory

async function memoryPage() {
  const data = await api("memory");
  const q = h("input", {
    type: "search",
    id: "memory-query",
    placeholder: "search memory",
    required: true,
  });
  const results = h("div", { id: "memory-results" });
  const form = h(
    "form",
    {
      class: "row",
      onsubmit: async (ev) => {
        ev.preventDefault();
        results.replaceChildren(h("p", { class: "muted" }, "searching…"));
        try {
          const r = await api(`memory/search?q=${encodeURIComponent(q.value)}`);
          results.replaceChildren(
            h(
              "p",
              { class: "muted" },
              `${r.mode} search${r.reason ? ` (${r.reason})` : ""}: ${r.results.length} results`,
            ),
            ...r.results.map((x) =>
              h(
                "div",
                { class: "hit" },
                h(
                  "div",
                  {},
                  h("strong", {}, `${x.path}:${x.startLine}-${x.endLine}`),
                  h("span", { class: "score" }, ` score ${x.score.toFixed(3)}`),
                ),
                h("pre", {}, x.snippet),
              ),
            ),
          );
        } catch (error) {
          results.replaceChildren(errorBox(error));
        }
      },
    },
    q,
    h("button", { type: "submit" }, "Search"),
  );
  const s = data.status;
  page(
    "Memory",
    data.enabled ? form : h("p", { class: "muted" }, "Memory is disabled (memory.enabled)."),
    results,
    h("h2", {}, "Index"),
    s
      ? h(
          "p",
          {},
          `${s.mode} mode${s.reason ? ` (${s.reason})` : ""}; ${s.files} files, ${s.chunks} chunks, ${s.embeddedChunks} embedded; ${s.recalls} recalls; dreaming ${s.dreaming.enabled ? `on (${s.dreaming.preset}, next ${s.dreaming.nextRun || "?"})` : "off"}`,
        )
      : h("p", { class: "muted" }, "no index"),
    h("h2", {}, "Files"),
    h(
      "ul",
      { id: "memory-files" },
      data.files.map((f) => h("li", {}, `${f.path} (${f.bytes} bytes)`)),
    ),
    h("h2", {}, "Last dreaming report"),
    data.lastDream
      ? h("pre", { id: "last-dream" }, data.lastDream)
      : h("p", { class: "muted" }, "Dreaming has not run yet."),
  );
}

// ---------------------------------------------------------------- models

let pullTimer;

async function modelsPage() {
  const d = await api("models");
  const progress = h(
    "div",
    {
      class: "progress",
      id: "pull-progress",
      role: "progressbar",
      "aria-valuemin": 0,
      "aria-valuemax": 100,
    },
    h("div", { class: "fill" }),
  );
  const progressText = h("p", { id: "pull-status", class: "muted" });
  const rows = d.chat.map((m) =>
    h(
      "tr",
      { "data-model": m.name },
      h(
        "td",
        {},
        h("strong", {}, m.name),
        m.name === d.recommendation.model ? h("span", { class: "badge ok" }, "recommended") : null,
        m.active ? h("span", { class: "badge" }, "active") : null,
        h("div", { class: "muted" }, m.description),
      ),
      h(
        "td",
        {},
        `${m.quantization}, ctx ${m.contextLength}, ≥${m.minRamMb} MB RAM, ${m.bytes ? mb(m.bytes) : "?"}, ${m.license}`,
      ),
      h(
        "td",
        {},
        m.installed
          ? h(
              "button",
              {
                type: "button",
                class: "use",
                disabled: m.active,
                onclick: () => void activate(m.name),
              },
              m.active ? "In use" : "Use",
            )
          : h(
              "button",
              { type: "button", class: "pull", onclick: () => void pull(m.name) },
              "Pull",
            ),
      ),
    ),
  );
  const ids = d.providers.map((p) => p.id);
  const primary = h(
    "select",
    { id: "primary" },
    ids.map((id) => h("option", { value: id, selected: id === d.primary }, id)),
  );
  const fallback = h(
    "select",
    { id: "fallback" },
    h("option", { value: "" }, "none"),
    ids.map((id) => h("option", { value: id, selected: d.fallbacks[0] === id }, id)),
  );
  page(
    "Models",
    h(
      "p",
      { id: "recommendation" },
      `Recommended for this board (${d.board.totalRamMb} MB RAM, ${d.board.freeDiskMb ?? "?"} MB free disk): ${d.recommendation.reason}`,
    ),
    h("p", {}, `Local model file: ${d.localPath || "none configured"}`),
    h("table", { id: "chat-models" }, h("tbody", {}, rows)),
    progress,
    progressText,
    h("h2", {}, "Active model and fallback"),
    h(
      "form",
      {
        class: "row",
        onsubmit: async (ev) => {
          ev.preventDefault();
          try {
            await api("models/chain", {
              body: { primary: primary.value, fallbacks: fallback.value ? [fallback.value] : [] },
            });
            await modelsPage();
          } catch (error) {
            main.append(errorBox(error));
          }
        },
      },
      h("label", {}, "primary ", primary),
      h("label", {}, "fallback ", fallback),
      h("button", { type: "submit" }, "Save"),
    ),
    h("h2", {}, "Providers"),
    h(
      "ul",
      {},
      d.providers.map((p) =>
        h(
          "li",
          {},
          `${p.id}: ${p.kind} ${p.model || "(no model)"} — ${d.state[p.id] || "not in chain"}`,
        ),
      ),
    ),
  );
  function show(s) {
    const pct = s.total ? Math.min(100, Math.floor((s.received / s.total) * 100)) : 0;
    progress.querySelector(".fill").style.width = `${pct}%`;
    progress.setAttribute("aria-valuenow", String(pct));
    progress.dataset.state = s.state;
    progressText.textContent =
      s.state === "idle"
        ? ""
        : `${s.name}: ${s.state} ${pct}% (${mb(s.received)}${s.total ? ` of ${mb(s.total)}` : ""})${s.message ? ` — ${s.message}` : ""}`;
  }
  async function poll() {
    clearTimeout(pullTimer);
    const s = await api("models/pull");
    show(s);
    if (s.state === "running") pullTimer = setTimeout(() => void poll(), 250);
    else if (s.state === "done" && location.hash === "#models")
      setTimeout(() => void modelsPage().then(() => show(s)), 400);
  }
  async function pull(name) {
    try {
      show(await api("models/pull", { body: { name } }));
      await poll();
    } catch (error) {
      progressText.replaceChildren(errorBox(error));
    }
  }
  async function activate(name) {
    try {
      await api("models/activate", { body: { name } });
      await modelsPage();
    } catch (error) {
      main.append(errorBox(error));
    }
  }
  show(d.pull);
  if (d.pull.state === "running") void poll();
}

// ---------------------------------------------------------------- status

async function statusPage() {
  const s = await api("status");
  const area = (name, v) =>
    h(
      "p",
      { class: `area area-${name}` },
      h("strong", {}, `${name}: `),
      typeof v === "string"
        ? v
        : v.map((x) => `${x.name} ${x.state}${x.detail ? ` (${x.detail})` : ""}`).join("; ") ||
            "none",
    );
  page(
    "Status",
    h(
      "p",
      { id: "vitals" },
      `clawbox ${s.version}, up ${Math.round(s.uptimeMs / 1000)} s, RSS ${mb(s.rssBytes)}`,
    ),
    h(
      "p",
      {},
      `models: ${
        Object.entries(s.models)
          .map(([id, st]) => `${id} ${st}`)
          .join(", ") || "none"
      } (primary ${s.primary}${s.fallbacks.length ? `, fallbacks ${s.fallbacks.join(", ")}` : ""})`,
    ),
    area("channels", s.channels),
    area("mqtt", s.mqtt),
    h("h2", {}, "Doctor"),
    h(
      "table",
      { id: "checks" },
      h(
        "tbody",
        {},
        s.checks.map((c) =>
          h(
            "tr",
            { class: `check-${c.status}` },
            h("td", {}, h("span", { class: `badge ${c.status}` }, c.status)),
            h("td", {}, c.name),
            h(
              "td",
              {},
              c.message,
              c.fix && c.status !== "ok" ? h("div", { class: "muted" }, `fix: ${c.fix}`) : null,
            ),
          ),
        ),
      ),
    ),
  );
}

// ---------------------------------------------------------------- router

const PAGES = {
  chat: chatPage,
  sessions: sessionsPage,
  context: contextPage,
  memory: memoryPage,
  models: modelsPage,
  status: statusPage,
};

async function route() {
  clearTimeout(pullTimer);
  const [name, arg] = (location.hash.slice(1) || "chat").split("/");
  const show = PAGES[name] || chatPage;
  for (const a of document.querySelectorAll("nav a"))
    a.classList.toggle("current", a.dataset.page === (PAGES[name] ? name : "chat"));
  try {
    await show(arg ? decodeURIComponent(arg) : undefined);
  } catch (error) {
    main.replaceChildren(errorBox(error));
  }
}

const logout = document.getElementById("logout");
if (logout)
  logout.addEventListener(
    "click",
    () => void api("logout", { body: {} }).finally(() => location.reload()),
  );
window.addEventListener("hashchange", () => void route());
void route();

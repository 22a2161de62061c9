// clawbox console, part 2 of 5: the Chat page (concatenated after console-core.js).
// ---------------------------------------------------------------- chat

let chatSession = sessionStorage.getItem("clawbox.session") || "";
/** The console's default session key (from the server); "" until the first list. */
let defaultSession = "";

async function chatPage() {
  const list = h("div", { class: "messages", id: "messages" });
  const picker = h("select", { id: "session-picker", "aria-label": "Session" });
  const input = h("textarea", {
    id: "chat-input",
    rows: 2,
    placeholder: "Message (Enter sends, Shift+Enter: new line; /new, /compact)",
    required: true,
    onkeydown: (ev) => {
      // Enter sends; Shift+Enter (and Enter while an IME is composing) makes a new line.
      if (ev.key !== "Enter" || ev.shiftKey || ev.isComposing || ev.keyCode === 229) return;
      ev.preventDefault();
      if (!send.disabled) void submit(input.value);
    },
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
  const readOnlyNote = h(
    "p",
    { class: "muted", id: "chat-read-only", hidden: true },
    "Read-only: this conversation belongs to someone else (a stranger, a group, the web API or MQTT). The console can show it but not add to it; pick default or one of yours to chat.",
  );
  page("Chat", commands, list, readOnlyNote, form);
  /** Session keys that exist (only they have a transcript). */
  let known = new Set();
  /** Session keys the console may read but not chat in. */
  const readOnly = new Set();

  async function loadSessions() {
    const data = await api("sessions");
    const sessions = data.sessions;
    readOnly.clear();
    defaultSession = data.defaultSession;
    known = new Set(sessions.map((s) => s.sessionKey));
    picker.replaceChildren(h("option", { value: "" }, "default (web owner)"));
    const seen = new Set();
    for (const s of sessions) {
      if (seen.has(s.sessionKey) || s.sessionKey === defaultSession) continue;
      seen.add(s.sessionKey);
      if (s.writable === false) readOnly.add(s.sessionKey);
      picker.append(
        h(
          "option",
          { value: s.sessionKey },
          `${s.sessionKey} (${s.messageCount})${s.writable === false ? " · read-only" : ""}`,
        ),
      );
    }
    if (chatSession && !seen.has(chatSession))
      picker.append(h("option", { value: chatSession }, chatSession));
    picker.value = chatSession;
    showWritable();
  }
  /** A session the console may not chat in (a stranger's, a group's) is shown, not sent to. */
  function showWritable() {
    const locked = readOnly.has(chatSession);
    send.disabled = locked;
    input.disabled = locked;
    readOnlyNote.hidden = !locked;
  }
  /** Ids of the transcript entries on screen (or sent from here), so new ones can be told apart. */
  let seen = new Set();
  /** True while a turn sent from this page runs (its bubbles are drawn by `submit`). */
  let sending = false;
  async function loadTranscript() {
    list.replaceChildren();
    seen = new Set();
    // A new tab shows the default conversation's history too.
    const key = chatSession || defaultSession;
    // A conversation that has not started has no transcript to show (and no 404 to log).
    if (!key || !known.has(key)) return;
    try {
      const t = await api(`sessions/${encodeURIComponent(key)}/transcript`);
      for (const e of t.entries) seen.add(e.id);
      for (const e of t.entries.slice(-100)) list.append(entryView(e));
      list.scrollTop = list.scrollHeight;
    } catch {
      // a new session has no transcript yet
    }
  }
  /**
   * What arrived without this page asking (a reminder that fired, its reply): appended as
   * it comes, checked every 10 s while no turn of this page runs.
   */
  async function showArrivals(draw) {
    const key = chatSession || defaultSession;
    if (!key) return;
    if (!known.has(key)) await loadSessions();
    if (!known.has(key)) return;
    const t = await api(`sessions/${encodeURIComponent(key)}/transcript`);
    if ((draw && sending) || key !== (chatSession || defaultSession)) return;
    const fresh = t.entries.filter((e) => !seen.has(e.id));
    for (const e of fresh) seen.add(e.id);
    if (!draw || fresh.length === 0) return;
    const atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
    for (const e of fresh) list.append(entryView(e));
    if (atBottom) list.scrollTop = list.scrollHeight;
  }
  every(10000, async () => {
    if (!sending) await showArrivals(true);
  });
  picker.addEventListener("change", () => {
    chatSession = picker.value;
    sessionStorage.setItem("clawbox.session", chatSession);
    showWritable();
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
    if (!text.trim() || readOnly.has(chatSession)) return;
    send.disabled = true;
    sending = true;
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
      const res = await apiFetch("chat", {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "text/event-stream" },
        body: JSON.stringify(body),
      });
      if (!res.ok) {
        const data = await res.json().catch(() => ({}));
        throw new Error(data.error?.message || `HTTP ${res.status}`);
      }
      // The chat-stream vocabulary (src/agent/chat-stream.ts, docs/HTTP-API.md): delta,
      // tool, tool_end, compaction, then done or error with the turn's result.
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
          // A failed turn's reply is its error message: show it once, as the error.
          if (data.error) {
            if (reply.textContent === data.error.message) reply.textContent = "";
            bubble.append(h("p", { class: "error", role: "alert" }, data.error.message));
          } else if (!reply.textContent) reply.textContent = data.reply;
          if (columnar(reply.textContent)) reply.classList.add("columns");
          chatSession = data.sessionKey === defaultSession ? "" : data.sessionKey;
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
      // This turn's entries are on screen already: note them without drawing them again.
      await loadSessions().catch(() => {});
      await showArrivals(false).catch(() => {});
      sending = false;
    }
  }

  await loadSessions();
  await loadTranscript();
}

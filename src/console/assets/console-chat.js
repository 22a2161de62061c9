// clawbox console, part 2 of 5: the Chat page (concatenated after console-core.js).
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

// clawbox console, part 3 of 5: the Sessions and Context pages.
// ---------------------------------------------------------------- sessions

async function sessionsPage(id) {
  if (id) return transcriptPage(id);
  const { sessions } = await api("sessions");
  // Two sessions may share a key (a stranger's, then the owner's after pairing): who each
  // belongs to and when it started tell them apart.
  const rows = sessions.map((s) =>
    h(
      "tr",
      { "data-session": s.sessionId },
      h(
        "td",
        {},
        h(
          "a",
          { href: `#sessions/${encodeURIComponent(s.sessionId)}`, class: "session-link" },
          s.sessionKey,
        ),
      ),
      h("td", { class: "belongs" }, s.belongsTo),
      h("td", { class: "num" }, s.messageCount),
      h("td", { class: "num" }, s.compactionCount),
      h("td", { class: "date" }, when(s.createdAt)),
      h("td", { class: "date" }, when(s.updatedAt)),
    ),
  );
  page(
    "Sessions",
    sessions.length === 0
      ? h("p", { class: "muted" }, "No sessions yet.")
      : labelledTable(
          { id: "sessions" },
          ["session", "belongs to", "messages", "compactions", "started", "updated"],
          rows,
        ),
  );
}

async function transcriptPage(id) {
  const t = await api(`sessions/${encodeURIComponent(id)}/transcript`);
  // The person may have opened another transcript while this one loaded.
  const [, asked] = location.hash.slice(1).split("/");
  if (!asked || decodeURIComponent(asked) !== id) return;
  page(
    t.sessionKey,
    h(
      "p",
      { class: "row" },
      h("a", { href: "#sessions" }, "← all sessions"),
      h(
        "a",
        {
          href: `#sessions/${encodeURIComponent(t.sessionId)}`,
          id: "export-jsonl",
          onclick: (ev) => {
            ev.preventDefault();
            void download(
              `sessions/${encodeURIComponent(t.sessionId)}/export`,
              `${t.sessionId}.jsonl`,
            ).catch((error) => main.append(errorBox(error)));
          },
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
    // Each part's share of the window is its flex-grow (set through the CSSOM: the CSP
    // drops style attributes); a part with tokens is at least 2 px wide so it never
    // vanishes, and the parts always fill the bar exactly.
    const seg = (key, label, tokens) =>
      h("div", {
        class: `seg seg-${key}`,
        style: { flexGrow: String(tokens), flexBasis: "0px" },
        title: `${label}: ${tokens} tokens`,
        "data-label": label,
        "data-tokens": tokens,
      });
    const bar = h(
      "div",
      {
        class: "bar",
        id: "budget-bar",
        role: "img",
        "aria-label": `context budget of ${window} tokens`,
      },
      BAR_PARTS.filter(([key]) => parts[key] > 0).map(([key, label]) =>
        seg(key, label, parts[key]),
      ),
      free > 0 ? seg("free", "free", free) : null,
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
      labelledTable(
        { id: "context-files" },
        ["file", "raw chars", "injected", "truncated", "destination"],
        files,
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

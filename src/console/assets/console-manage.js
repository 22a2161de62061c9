// clawbox console, part 4 of 5: the Memory and Models pages.
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
              `${r.mode} search${r.reason ? ` (${r.reason})` : ""}: ${plural(r.results.length, "result", "results")}`,
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
          `${s.mode} mode${s.reason ? ` (${s.reason})` : ""}; ${plural(s.files, "file", "files")}, ${plural(s.chunks, "chunk", "chunks")}, ${s.embeddedChunks} embedded; ${plural(s.recalls, "recall", "recalls")}; dreaming ${s.dreaming.enabled ? `on (${s.dreaming.preset}, next ${s.dreaming.nextRun || "?"})` : "off"}`,
        )
      : h("p", { class: "muted" }, "no index"),
    h("h2", {}, "Files"),
    data.files.length === 0
      ? h("p", { class: "muted", id: "memory-files" }, "none yet")
      : h(
          "ul",
          { id: "memory-files" },
          data.files.map((f) => h("li", {}, `${f.path} (${f.size})`)),
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
        m.verified ? null : h("span", { class: "badge warn" }, "no checksum"),
        h("div", { class: "muted" }, m.description),
      ),
      h(
        "td",
        {},
        `${m.quantization}, ctx ${m.contextLength}, ≥${m.minRamMb} MB RAM, ${m.size ?? "?"}, ${m.license}`,
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
          : pullCell(m),
      ),
    ),
  );
  /**
   * Pull, and for a model without a published checksum the explicit choice the CLI's
   * `--allow-unverified` is: without the tick the box refuses and says why.
   */
  function pullCell(m) {
    const tick = m.verified ? null : h("input", { type: "checkbox", class: "allow-unverified" });
    const button = h(
      "button",
      { type: "button", class: "pull", onclick: () => void pull(m.name, tick?.checked === true) },
      "Pull",
    );
    if (!tick) return button;
    return h(
      "div",
      {},
      button,
      h("label", { class: "muted unverified" }, tick, "download without a checksum"),
    );
  }
  const ids = d.providers.map((p) => p.id);
  const primary = h(
    "select",
    { id: "primary", onchange: () => fallbackOptions() },
    ids.map((id) => h("option", { value: id, selected: id === d.primary }, id)),
  );
  // The select is the first fallback; any further ones in the file are kept as they are.
  const [firstFallback = "", ...moreFallbacks] = d.fallbacks;
  const fallback = h("select", { id: "fallback" });
  /** The fallback choices: every provider but the chosen primary (never its own fallback). */
  function fallbackOptions() {
    const keep = fallback.options.length ? fallback.value : firstFallback;
    fallback.replaceChildren(
      h("option", { value: "" }, "none"),
      ...ids
        .filter((id) => id !== primary.value)
        .map((id) => h("option", { value: id, selected: id === keep }, id)),
    );
    fallback.value = keep === primary.value ? "" : keep;
  }
  fallbackOptions();
  const chainNote = h("p", { class: "result", role: "status", id: "chain-result" });
  /**
   * Save sends only what the person changed: an untouched chain writes nothing (the
   * config file stays byte for byte as it was), and a changed fallback replaces only the
   * first one.
   */
  async function saveChain() {
    const body = {};
    if (primary.value !== d.primary) body.primary = primary.value;
    if (fallback.value !== firstFallback)
      body.fallbacks = [fallback.value, ...moreFallbacks].filter(
        (id, i, all) => id && id !== primary.value && all.indexOf(id) === i,
      );
    if (Object.keys(body).length === 0) {
      chainNote.className = "result";
      chainNote.textContent = "Nothing changed.";
      return;
    }
    try {
      await api("models/chain", { body });
      await modelsPage();
      const note = document.getElementById("chain-result");
      if (note) {
        note.className = "result ok";
        note.textContent = "Saved and applied.";
      }
    } catch (error) {
      chainNote.className = "result error";
      chainNote.textContent = error.message;
    }
  }
  page(
    "Models",
    h(
      "p",
      { id: "recommendation" },
      `Recommended for this board (${d.board.ram} RAM, ${d.board.freeDisk ?? "?"} free disk): ${d.recommendation.reason}`,
    ),
    h("p", {}, `Local model file: ${d.localPath || "none configured"}`),
    labelledTable({ id: "chat-models" }, ["model", "details", ""], rows),
    progress,
    progressText,
    h("h2", {}, "Active model and fallback"),
    h(
      "form",
      {
        class: "row",
        onsubmit: (ev) => {
          ev.preventDefault();
          void saveChain();
        },
      },
      h("label", {}, "primary ", primary),
      h("label", {}, "fallback ", fallback),
      h("button", { type: "submit" }, "Save"),
    ),
    moreFallbacks.length
      ? h("p", { class: "muted" }, `Then, in this order: ${moreFallbacks.join(", ")}.`)
      : null,
    chainNote,
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
    // No empty bar before any pull: the bar appears with a pull.
    progress.hidden = s.state === "idle";
    const pct = s.total ? Math.min(100, Math.floor((s.received / s.total) * 100)) : 0;
    progress.querySelector(".fill").style.width = `${pct}%`;
    progress.setAttribute("aria-valuenow", String(pct));
    progress.dataset.state = s.state;
    progressText.textContent =
      s.state === "idle"
        ? ""
        : `${s.name}: ${s.state} ${pct}% (${s.receivedText}${s.totalText ? ` of ${s.totalText}` : ""})${s.message ? ` — ${s.message}` : ""}`;
  }
  async function poll() {
    clearTimeout(pullTimer);
    const s = await api("models/pull");
    show(s);
    if (s.state === "running") pullTimer = setTimeout(() => void poll(), 250);
    else if (s.state === "done" && location.hash === "#models")
      setTimeout(() => void modelsPage().then(() => show(s)), 400);
  }
  async function pull(name, allowUnverified) {
    try {
      const body = allowUnverified ? { name, allowUnverified: true } : { name };
      show(await api("models/pull", { body }));
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

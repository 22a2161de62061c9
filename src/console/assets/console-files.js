// clawbox console: the Workspace, Reminders and Logs pages.
// ---------------------------------------------------------------- workspace

let workspaceFile = "TOOLS.md";

async function workspacePage(name) {
  if (name) workspaceFile = name;
  const list = await api("workspace");
  const picker = h(
    "select",
    { id: "ws-file", "aria-label": "File" },
    list.files.map((f) =>
      h(
        "option",
        { value: f.name, selected: f.name === workspaceFile },
        f.exists ? f.name : `${f.name} (new)`,
      ),
    ),
  );
  const text = h("textarea", {
    id: "ws-text",
    rows: 18,
    spellcheck: "false",
    autocapitalize: "none",
  });
  const problems = h("div", { id: "ws-problems", "aria-live": "polite" });
  const result = h("p", { class: "result", role: "status", id: "ws-result" });
  const save = h("button", { type: "submit", id: "ws-save" }, "Save");
  let version = "";
  let dirty = false;
  let checkTimer;

  function showTools(report) {
    if (!report) return problems.replaceChildren();
    const devices = report.devices.length
      ? `Devices the assistant gets: ${report.devices.map((d) => `${d.name} (${d.kind})`).join(", ")}.`
      : "No devices described yet.";
    problems.replaceChildren(
      h("p", { class: "muted", id: "ws-devices" }, devices),
      report.problems.length
        ? h(
            "ul",
            { class: "problems" },
            report.problems.map((p) =>
              h(
                "li",
                { "data-line": p.line },
                h(
                  "button",
                  { type: "button", class: "link", onclick: () => goToLine(p.line) },
                  `line ${p.line}`,
                ),
                // The line is the button; the parser's own "TOOLS.md line N: " would say it twice.
                `: ${p.message.replace(/^TOOLS\.md(?::| line )\d+: /, "")}`,
              ),
            ),
          )
        : "",
    );
  }
  /** Puts the cursor on `line` (1-based) so the owner sees the entry a problem is about. */
  function goToLine(line) {
    const lines = text.value.split("\n");
    const start = lines.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0);
    text.focus();
    text.setSelectionRange(start, start + (lines[line - 1] || "").length);
  }
  async function load() {
    // Read-only until the file arrives: text typed before would be replaced by the
    // file's, and Save would write the old text back (a slow box makes this likely).
    // A failed read leaves it so (Reload tries again).
    text.readOnly = true;
    save.disabled = true;
    const f = await api(`workspace/${encodeURIComponent(workspaceFile)}`);
    text.readOnly = false;
    save.disabled = false;
    text.value = f.text;
    version = f.version;
    dirty = false;
    showTools(f.tools);
    result.className = "result";
    result.textContent = f.exists ? "" : `${f.name} does not exist yet: saving creates it.`;
    // Text kept at a logout comes back with the version it was based on, so a file
    // changed on the box since is still refused (409) instead of overwritten.
    const kept = takeDraft(`workspace/${workspaceFile}`);
    if (kept && typeof kept.text === "string") {
      text.value = kept.text;
      version = kept.version;
      dirty = true;
      result.className = "result warn";
      result.textContent =
        "Your unsaved text from before the logout is back: press Save to keep it.";
      if (workspaceFile === "TOOLS.md")
        void api("workspace/check", { body: { text: text.value } })
          .then(showTools)
          .catch(() => {});
    }
  }
  // The draft names its file's page, so the login reopens that file (the picker may
  // have moved away from the file in the address).
  unsavedDraft = () =>
    dirty
      ? {
          key: `workspace/${workspaceFile}`,
          value: { text: text.value, version },
          page: `#workspace/${encodeURIComponent(workspaceFile)}`,
        }
      : undefined;
  leaveGuard = () => !dirty || confirm(`Leave without saving your changes to ${workspaceFile}?`);
  text.addEventListener("input", () => {
    dirty = true;
    if (workspaceFile !== "TOOLS.md") return;
    clearTimeout(checkTimer);
    checkTimer = setTimeout(
      () =>
        void api("workspace/check", { body: { text: text.value } })
          .then(showTools)
          .catch(() => {}),
      500,
    );
  });
  picker.addEventListener("change", () => {
    if (dirty && !confirm(`Discard your changes to ${workspaceFile}?`)) {
      picker.value = workspaceFile;
      return;
    }
    workspaceFile = picker.value;
    void load().catch((e) => result.replaceChildren(errorBox(e)));
  });
  const form = h(
    "form",
    {
      id: "ws-form",
      onsubmit: async (ev) => {
        ev.preventDefault();
        save.disabled = true;
        result.className = "result";
        result.textContent = "saving…";
        try {
          const r = await api(`workspace/${encodeURIComponent(workspaceFile)}`, {
            body: { text: text.value, version },
          });
          version = r.version;
          dirty = false;
          showTools(r.tools);
          // Saved with problems is not a plain success: those lines are ignored.
          const left = r.tools?.problems?.length ?? 0;
          result.className = left > 0 ? "result warn" : "result ok";
          result.textContent =
            left > 0
              ? `Saved, with ${left} ${left === 1 ? "problem" : "problems"} below: ${left === 1 ? "that line is" : "those lines are"} ignored until fixed.`
              : "Saved. The assistant's next turn uses it.";
        } catch (error) {
          result.className = "result error";
          result.replaceChildren(
            error.message,
            error.code === "FILE_CHANGED"
              ? h(
                  "button",
                  {
                    type: "button",
                    class: "secondary",
                    id: "ws-reload",
                    onclick: () => void load(),
                  },
                  "Reload the file from the box",
                )
              : "",
          );
        } finally {
          save.disabled = false;
        }
      },
    },
    h(
      "p",
      { class: "row" },
      picker,
      save,
      h("button", { type: "button", class: "secondary", onclick: () => void load() }, "Reload"),
    ),
    text,
    problems,
    result,
  );
  page(
    "Workspace",
    h(
      "p",
      { class: "muted" },
      "The files that make the assistant's prompt. TOOLS.md describes cameras and SSH hosts (docs: Describing devices in TOOLS.md); secrets never go in these files.",
    ),
    form,
  );
  await load();
}

// ---------------------------------------------------------------- reminders

const WHEN_KINDS = [
  ["in", "in…", "20 minutes"],
  ["at", "at a date and time", "2026-12-24T19:00"],
  ["daily", "every day at", "07:00"],
  ["every", "every…", "2h"],
  ["cron", "cron expression", "0 7 * * 1-5"],
];

async function remindersPage() {
  const d = await api("reminders");
  const what = h("input", { id: "rem-text", placeholder: "take the bins out", required: true });
  const kind = h(
    "select",
    { id: "rem-kind" },
    WHEN_KINDS.map(([v, label]) => h("option", { value: v }, label)),
  );
  const value = h("input", { id: "rem-when", required: true, placeholder: WHEN_KINDS[0][2] });
  const zone = h("input", {
    id: "rem-tz",
    value: d.timezone,
    hidden: true,
    "aria-label": "Time zone",
  });
  const target = h(
    "select",
    { id: "rem-target" },
    d.targets.map((t) => h("option", { value: t.value }, t.label)),
  );
  const result = h("p", { class: "result", role: "status", id: "rem-result" });
  kind.addEventListener("change", () => {
    const k = WHEN_KINDS.find(([v]) => v === kind.value);
    value.placeholder = k ? k[2] : "";
    zone.hidden = kind.value !== "daily" && kind.value !== "cron";
  });
  const form = h(
    "form",
    {
      id: "reminder-form",
      class: "settings",
      onsubmit: async (ev) => {
        ev.preventDefault();
        try {
          const r = await api("reminders", {
            body: {
              text: what.value,
              kind: kind.value,
              value: value.value,
              timezone: zone.value || undefined,
              target: target.value,
            },
          });
          await remindersPage();
          const note = document.getElementById("rem-result");
          if (note) {
            note.className = "result ok";
            // A one-off ("in…", "at…") is said as the one time it runs at, in its zone; a
            // repeating one as its schedule and first run.
            const first = r.next || "";
            note.textContent =
              (kind.value === "in" || kind.value === "at") && first
                ? `Added: ${first} (${fromNow(r.nextRunAt)}).`
                : `Added (${r.schedule || "repeating"}${first ? `; first ${first}` : ""}).`;
          }
        } catch (error) {
          result.className = "result error";
          result.textContent = error.message;
        }
      },
    },
    h("label", { class: "field" }, h("span", {}, "Remind"), what),
    h(
      "label",
      { class: "field" },
      h("span", {}, "When"),
      h("span", { class: "row" }, kind, value, zone),
    ),
    h("label", { class: "field" }, h("span", {}, "Where"), target),
    h("div", { class: "row" }, h("button", { type: "submit" }, "Add reminder")),
    result,
  );
  const remove = (path, label) => async () => {
    try {
      await api(path, { body: {} });
      await remindersPage();
    } catch (error) {
      result.className = "result error";
      result.textContent = `${label}: ${error.message}`;
    }
  };
  page(
    "Reminders",
    form,
    h("h2", {}, "Active"),
    d.jobs.length === 0
      ? h("p", { class: "muted" }, "No reminders.")
      : h(
          "table",
          { id: "reminders" },
          h(
            "tbody",
            {},
            d.jobs.map((j) =>
              h(
                "tr",
                { "data-id": j.id },
                h(
                  "td",
                  {},
                  h("strong", {}, j.text),
                  h(
                    "div",
                    { class: "muted" },
                    `${j.schedule} · `,
                    h("span", { class: "owner-id" }, j.where),
                  ),
                ),
                // One time, in the reminder's zone and naming it (as `clawbox cron list`).
                h("td", { class: "next" }, j.next ? `${j.next} (${fromNow(j.nextRunAt)})` : "done"),
                h(
                  "td",
                  {},
                  h(
                    "button",
                    {
                      type: "button",
                      class: "link remove",
                      onclick: remove(`reminders/${encodeURIComponent(j.id)}/remove`, j.id),
                    },
                    "Remove",
                  ),
                ),
              ),
            ),
          ),
        ),
    h("h2", {}, "Last runs"),
    d.runs.length === 0
      ? h("p", { class: "muted" }, "None yet.")
      : h(
          "table",
          { id: "runs" },
          h(
            "tbody",
            {},
            // What each run was for (the reminder's text), when, and whether the person got
            // it: "sent" only once the platform accepted it.
            d.runs.map((r) =>
              h(
                "tr",
                { "data-job": r.jobId },
                h("td", {}, h("strong", {}, r.text || r.jobId), h("div", { class: "muted" }, r.at)),
                h("td", {}, stateBadge(r.status)),
                h("td", { class: "muted detail" }, r.detail || ""),
              ),
            ),
          ),
        ),
    h("h2", {}, "Follow-ups"),
    d.followups.length === 0
      ? h("p", { class: "muted" }, "No open follow-ups (promises the assistant made for later).")
      : h(
          "table",
          { id: "followups" },
          h(
            "tbody",
            {},
            d.followups.map((f) =>
              h(
                "tr",
                {},
                h("td", {}, f.text, h("div", { class: "muted" }, f.where)),
                h("td", {}, f.due),
                h(
                  "td",
                  {},
                  h(
                    "button",
                    {
                      type: "button",
                      class: "link remove",
                      onclick: remove(`followups/${f.id}/remove`, String(f.id)),
                    },
                    "Cancel",
                  ),
                ),
              ),
            ),
          ),
        ),
  );
  every(10000, async () => {
    // Runs and next times move on their own; redraw when nobody is typing.
    if (document.activeElement && main.contains(document.activeElement)) return;
    await remindersPage();
  });
}

// ---------------------------------------------------------------- logs

async function logsPage() {
  const level = h(
    "select",
    { id: "log-level", "aria-label": "Level" },
    ["debug", "info", "warn", "error"].map((l) =>
      h("option", { value: l, selected: l === "info" }, l),
    ),
  );
  const out = h("div", { id: "log-lines", class: "log" });
  async function draw() {
    const d = await api(`logs?level=${level.value}`);
    const atEnd = out.scrollTop + out.clientHeight >= out.scrollHeight - 4;
    out.replaceChildren(
      ...(d.lines.length === 0
        ? [h("p", { class: "muted" }, "No lines at this level yet.")]
        : d.lines.map((l) =>
            h(
              "div",
              { class: `line level-${l.level}` },
              h("time", {}, new Date(l.at).toLocaleTimeString()),
              " ",
              l.line,
            ),
          )),
    );
    if (atEnd) out.scrollTop = out.scrollHeight;
  }
  level.addEventListener("change", () => void draw());
  page(
    "Logs",
    h(
      "p",
      { class: "row" },
      h("label", {}, "At least ", level),
      h("button", { type: "button", class: "secondary", onclick: () => void draw() }, "Refresh"),
    ),
    h(
      "p",
      { class: "muted" },
      "The service's latest lines (kept in memory; secrets hidden). The full log: journalctl -u clawbox on the box, or the terminal that runs npm start or clawbox run.",
    ),
    out,
  );
  await draw();
  out.scrollTop = out.scrollHeight;
  every(3000, draw);
}

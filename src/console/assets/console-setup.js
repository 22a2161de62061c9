// clawbox console: the Channels and Owners pages (setting the box up from a phone).
// ---------------------------------------------------------------- channels

/** One form field; `mark` records that the person changed it (only changes are sent). */
function fieldView(form, field, value, mark) {
  const id = `f-${form.id}-${field.key}`;
  const attrs = {
    id,
    name: field.key,
    oninput: () => mark(field.key),
    onchange: () => mark(field.key),
  };
  let input;
  if (field.kind === "bool") {
    // A section not written yet shows the defaults: enabled, nothing else on.
    const on = value === undefined ? field.key === "enabled" : value === true;
    input = h("input", { ...attrs, type: "checkbox", checked: on });
  } else if (field.kind === "select") {
    input = h(
      "select",
      attrs,
      field.options.map((o) =>
        h("option", { value: o, selected: (value ?? "") === o }, o || "(default)"),
      ),
    );
  } else if (field.kind === "secret") {
    input = h("input", {
      ...attrs,
      type: "password",
      autocomplete: "new-password",
      placeholder: value?.set ? "set (leave empty to keep it)" : "not set",
    });
  } else {
    input = h("input", {
      ...attrs,
      type: field.kind === "number" ? "number" : "text",
      value: Array.isArray(value) ? value.join(", ") : (value ?? ""),
      placeholder: field.placeholder || "",
      autocapitalize: "none",
      spellcheck: "false",
    });
  }
  return h(
    "label",
    { class: `field field-${field.kind}` },
    h(
      "span",
      {},
      field.label,
      field.kind === "secret" && value?.set ? h("span", { class: "badge ok" }, "set") : null,
    ),
    input,
    field.help ? h("small", { class: "muted" }, field.help) : null,
  );
}

/**
 * Who may chat directly, in words, for the policy a form holds (unset: "allowlist" when
 * the allowed senders list anyone, else "open", as the channel decides it).
 */
function effectiveDmPolicy(policy, listed) {
  return policy || (listed ? "allowlist" : "open");
}
function dmPolicyWords(policy, listed) {
  const effective = effectiveDmPolicy(policy, listed);
  const words = {
    open: "anyone who finds the bot gets answers (as a stranger, without the owner tools); /pair gives them a code",
    allowlist: "only owners and the allowed senders get answers; anyone else gets no answer at all",
    pairing:
      "only owners and the allowed senders get answers; anyone else gets a pairing code for an owner to approve",
  }[effective];
  return policy ? `Now: ${words}.` : `Now (default, ${effective}): ${words}.`;
}

/** What the form holds for the changed fields, typed for the API. */
function formValues(formEl, form, dirty) {
  const values = {};
  for (const field of form.fields) {
    if (!dirty.has(field.key)) continue;
    const input = formEl.elements.namedItem(field.key);
    if (!input) continue;
    if (field.kind === "bool") values[field.key] = input.checked;
    else if (field.kind === "number")
      values[field.key] = input.value === "" ? "" : Number(input.value);
    else values[field.key] = input.value;
  }
  return values;
}

function statusLine(status) {
  if (!status) return h("p", { class: "muted status-line" }, "not configured");
  const parts = [stateBadge(status.state)];
  if (status.reason) parts.push(" ", status.reason);
  if (status.lastEventAt)
    parts.push(h("span", { class: "muted" }, ` · heard from ${fromNow(status.lastEventAt)}`));
  // Connected is not delivered: messages the outbox gave up on (platform unreachable,
  // refused) are said here, with the newest one's reason.
  const failed = status.outbox?.failed ?? 0;
  const lines = [h("p", { class: "status-line" }, parts)];
  if (failed > 0)
    lines.push(
      h(
        "p",
        { class: "error status-line outbox-failed" },
        `${failed} ${failed === 1 ? "message" : "messages"} could not be sent`,
        status.lastFailure
          ? ` (the last one, queued ${fromNow(status.lastFailure.at)}: ${status.lastFailure.reason})`
          : "",
        ".",
      ),
    );
  return h("div", {}, lines);
}

async function channelsPage() {
  const data = await api("channels");
  const cards = new Map();
  const card = (form) => {
    const dirty = new Set();
    const result = h("p", { class: "result", role: "status" });
    const mark = (key) => dirty.add(key);
    const basic = form.fields
      .filter((f) => !f.advanced)
      .map((f) => fieldView(form, f, form.values[f.key], mark));
    const more = form.fields
      .filter((f) => f.advanced)
      .map((f) => fieldView(form, f, form.values[f.key], mark));
    const formEl = h(
      "form",
      { id: `channel-${form.id}`, class: "settings" },
      basic,
      more.length ? h("details", {}, h("summary", {}, "More settings"), more) : null,
      h(
        "div",
        { class: "row" },
        h("button", { type: "submit", class: "save" }, "Save"),
        h(
          "button",
          { type: "button", class: "secondary test", onclick: () => void test() },
          "Test",
        ),
      ),
      result,
    );
    // The direct-chat policy in words, as the form stands (it changes with the form).
    const policy = formEl.elements.namedItem("dmPolicy");
    if (policy) {
      const list = formEl.elements.namedItem("allowFrom");
      const words = h("p", { class: "dm-policy-words" });
      const say = () => {
        const listed = (list?.value || "").trim() !== "";
        words.textContent = dmPolicyWords(policy.value, listed);
        words.dataset.policy = effectiveDmPolicy(policy.value, listed);
      };
      say();
      policy.addEventListener("change", say);
      list?.addEventListener("input", say);
      policy.closest("label")?.after(words);
    }
    const status = h("div", { class: "status" }, statusLine(form.status));
    /** Says what is wrong next to the field it is about (and clears the old notes). */
    function markField(key, message) {
      for (const old of formEl.querySelectorAll(".field-error")) old.remove();
      const input = key ? formEl.elements.namedItem(key) : null;
      if (input && message)
        input.after(h("span", { class: "error field-error", role: "alert" }, message));
    }
    async function save(ev) {
      ev.preventDefault();
      markField();
      result.className = "result";
      result.textContent = "saving…";
      try {
        const next = await api(`channels/${form.id}`, {
          body: { values: formValues(formEl, form, dirty) },
        });
        dirty.clear();
        for (const input of formEl.querySelectorAll("input[type=password]")) input.value = "";
        const fresh = next.forms.find((f) => f.id === form.id);
        if (fresh) redraw(fresh);
        result.className = "result ok";
        result.textContent = next.applied.length
          ? "Saved and applied: no restart needed."
          : "Saved.";
      } catch (error) {
        result.className = "result error";
        result.textContent = error.message;
        markField(error.data?.field, error.message);
      }
    }
    async function test() {
      markField();
      result.className = "result";
      result.textContent = "testing…";
      try {
        const r = await api(`channels/${form.id}/test`, {
          body: { values: formValues(formEl, form, dirty) },
        });
        result.className = `result ${r.ok ? "ok" : "error"}`;
        result.textContent = r.message;
        if (!r.ok) markField(r.field, r.message);
      } catch (error) {
        result.className = "result error";
        result.textContent = error.message;
      }
    }
    function redraw(fresh) {
      status.replaceChildren(statusLine(fresh.status));
      for (const field of fresh.fields) {
        if (field.kind !== "secret") continue;
        const input = formEl.elements.namedItem(field.key);
        if (input)
          input.placeholder = fresh.values[field.key]?.set
            ? "set (leave empty to keep it)"
            : "not set";
        const badge = input?.closest("label")?.querySelector(".badge");
        if (fresh.values[field.key]?.set && !badge)
          input.previousElementSibling?.append(h("span", { class: "badge ok" }, "set"));
      }
    }
    formEl.addEventListener("submit", (ev) => void save(ev));
    const el = h(
      "section",
      { class: "card", id: `card-${form.id}`, "data-channel": form.id },
      h("h2", {}, form.title),
      status,
      h("p", { class: "muted" }, form.intro),
      formEl,
    );
    cards.set(form.id, { el, status });
    return el;
  };
  page(
    "Channels",
    data.fileError
      ? h(
          "p",
          { class: "error", role: "alert" },
          `The config file does not load: ${data.fileError}`,
        )
      : null,
    h(
      "p",
      { class: "muted" },
      "Secrets are never shown again once saved. Saved settings apply at once.",
    ),
    data.forms.map(card),
  );
  // Live state (the same data as clawbox channels status), without touching the forms.
  every(3000, async () => {
    const fresh = await api("channels");
    for (const form of fresh.forms)
      cards.get(form.id)?.status.replaceChildren(statusLine(form.status));
  });
}

// ---------------------------------------------------------------- owners

async function ownersPage() {
  const pending = h("div", { id: "pending" });
  const owners = h("ul", { id: "owners", class: "plain" });
  const note = h("p", { class: "result", role: "status", id: "owners-result" });
  const code = h("input", {
    id: "pair-code",
    placeholder: "ABCD-EFGH",
    autocapitalize: "characters",
    spellcheck: "false",
    required: true,
  });
  const act = async (path, body, done) => {
    note.className = "result";
    note.textContent = "…";
    try {
      const d = await api(`owners/${path}`, { body });
      draw(d);
      note.className = "result ok";
      note.textContent = done(d);
    } catch (error) {
      note.className = "result error";
      note.textContent = error.message;
    }
  };
  const approve = (c) =>
    act(
      "approve",
      { code: c },
      // Telling them only queues a message (the channel sends it when it can), so the page
      // never says they were told.
      (d) =>
        `${d.approved} is now an owner; ${d.told ? "a message to tell them is queued (the Channels page shows if it fails)" : "they could not be told (see the log)"}.`,
    );
  function draw(d) {
    pending.replaceChildren(
      ...[
        d.pending.length === 0
          ? h(
              "p",
              { class: "muted" },
              "No requests waiting. Ask the person to send /pair to the bot in a direct chat on QQ or WeCom; their code shows up here.",
            )
          : labelledTable(
              { id: "pending-table" },
              ["code", "from", ""],
              d.pending.map((r) =>
                h(
                  "tr",
                  { "data-code": r.display },
                  h("td", {}, h("strong", { class: "code" }, r.display)),
                  h(
                    "td",
                    {},
                    r.senderName ? `${r.senderName} ` : "",
                    h("span", { class: "owner-id" }, r.ownerId),
                    h(
                      "div",
                      { class: "muted" },
                      `on ${r.channel}, expires ${fromNow(r.expiresAt)}`,
                    ),
                  ),
                  h(
                    "td",
                    { class: "actions" },
                    h(
                      "button",
                      {
                        type: "button",
                        class: "approve",
                        onclick: () => void approve(r.display),
                      },
                      "Approve",
                    ),
                    h(
                      "button",
                      {
                        type: "button",
                        class: "secondary deny",
                        onclick: () =>
                          void act("deny", { code: r.display }, (x) => `Denied ${x.denied}.`),
                      },
                      "Deny",
                    ),
                  ),
                ),
              ),
            ),
        d.lockedForMs > 0
          ? h(
              "p",
              { class: "error" },
              `Too many wrong codes: approvals are locked for ${Math.ceil(d.lockedForMs / 1000)} s.`,
            )
          : null,
      ].filter(Boolean),
    );
    owners.replaceChildren(
      ...d.owners.map((o) =>
        h(
          "li",
          { "data-owner": o.id },
          h("span", { class: "owner-id" }, o.id),
          o.console ? h("span", { class: "badge" }, "this console speaks as it") : null,
          // The console's own id stays (the server refuses it too): without it the
          // console would speak as another owner and the terminal would be a stranger.
          d.owners.length > 1 && !o.console
            ? h(
                "button",
                {
                  type: "button",
                  class: "link remove",
                  onclick: () => {
                    if (!confirm(`Remove ${o.id}? They lose the owner tools at once.`)) return;
                    void act("remove", { owner: o.id }, (x) => `Removed ${x.removed}.`);
                  },
                },
                "Remove",
              )
            : null,
        ),
      ),
    );
  }
  page(
    "Owners",
    h(
      "p",
      { class: "muted" },
      "Owners may use every tool (files, commands, cameras, reminders). Anyone else is a stranger.",
    ),
    h("h2", {}, "Waiting for approval"),
    pending,
    h(
      "form",
      {
        class: "row",
        onsubmit: (ev) => {
          ev.preventDefault();
          void approve(code.value);
        },
      },
      h("label", {}, "Code ", code),
      h("button", { type: "submit" }, "Approve code"),
    ),
    note,
    h("h2", {}, "Owners"),
    owners,
  );
  draw(await api("owners"));
  every(3000, async () => draw(await api("owners")));
}

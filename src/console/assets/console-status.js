// clawbox console, last part: the Status page and the hash router that starts it all.
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
      `clawbox ${s.version}, up ${Math.round(s.uptimeMs / 1000)} s, RSS ${s.rss}`,
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
    labelledTable(
      { id: "checks" },
      ["check", "result"],
      s.checks.map((c) =>
        h(
          "tr",
          { class: `check-${c.status}` },
          h(
            "td",
            { class: "check-name" },
            h("strong", {}, c.name),
            h("span", { class: `badge ${c.status}` }, c.status),
          ),
          h(
            "td",
            {},
            c.message,
            c.fix && c.status !== "ok" ? h("div", { class: "muted" }, `fix: ${c.fix}`) : null,
          ),
        ),
      ),
    ),
  );
}

// ---------------------------------------------------------------- router

const PAGES = {
  chat: chatPage,
  channels: channelsPage,
  owners: ownersPage,
  workspace: workspacePage,
  reminders: remindersPage,
  models: modelsPage,
  sessions: sessionsPage,
  context: contextPage,
  memory: memoryPage,
  logs: logsPage,
  status: statusPage,
};

let routeSeq = 0;
/** The hash of the page on screen, to go back to when its leaveGuard says stay. */
let shownHash = location.hash;

async function route() {
  if (leaveGuard && location.hash !== shownHash && !leaveGuard()) {
    history.replaceState(null, "", shownHash || "#chat");
    return;
  }
  shownHash = location.hash;
  leaveGuard = null;
  unsavedDraft = null;
  const seq = ++routeSeq;
  clearTimeout(pullTimer);
  stopPageTimers();
  const [name, arg] = (location.hash.slice(1) || "chat").split("/");
  const show = PAGES[name] || chatPage;
  for (const a of document.querySelectorAll("nav a"))
    a.classList.toggle("current", a.dataset.page === (PAGES[name] ? name : "chat"));
  try {
    await show(arg ? decodeURIComponent(arg) : undefined);
  } catch (error) {
    if (seq === routeSeq) main.replaceChildren(errorBox(error));
  }
}

const logout = document.getElementById("logout");
if (logout)
  logout.addEventListener("click", () => {
    const token = sessionToken();
    void api("logout", { body: {} })
      .catch(() => {})
      .finally(() => toLogin(token));
  });

/** Starts the console once the session is known to be good; else the login page. */
async function start() {
  if (!sessionToken()) return toLogin("");
  const session = await api("session");
  document.getElementById("version").textContent = ` ${session.version}`;
  window.addEventListener("hashchange", () => void route());
  await route();
}
void start().catch((error) => main.replaceChildren(errorBox(error)));

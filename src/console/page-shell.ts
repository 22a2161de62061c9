/**
 * The HTML documents the console serves: the app shell (navigation and an empty main
 * area the client script fills from the JSON API), the login form, and the page a
 * successful login answers with (it hands the session token to its script). The shell
 * and the login form carry nothing of the box, so they are the same for everyone.
 * Server-rendered strings, a few hundred bytes each; no inline script (the CSP forbids it).
 */
const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/** The versioned URLs of the client files (console-assets.ts). */
export interface AssetUrls {
  script: string;
  /** The login pages' script: keeps a new session's token, clears an old one. */
  login: string;
  styles: string;
}

const head = (title: string, styles: string): string =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title><link rel="icon" href="data:,"><link rel="stylesheet" href="${escapeHtml(styles)}"></head>`;

/** In the order of the navigation: setting up first, looking inside after. */
export const PAGES = [
  "chat",
  "channels",
  "owners",
  "workspace",
  "reminders",
  "models",
  "sessions",
  "context",
  "memory",
  "logs",
  "status",
] as const;

export function appShell(input: { assets: AssetUrls }): string {
  const nav = PAGES.map(
    (p) => `<a href="#${p}" data-page="${p}">${p[0]?.toUpperCase()}${p.slice(1)}</a>`,
  ).join("");
  const logout = `<button type="button" id="logout" class="link">Log out</button>`;
  return `${head("clawbox", input.assets.styles)}<body><header><strong>clawbox</strong><span class="muted" id="version"></span><nav>${nav}</nav>${logout}</header><main id="main" aria-live="polite"></main><script src="${escapeHtml(input.assets.script)}" defer></script></body></html>`;
}

export function loginPage(input: { error?: string; assets: AssetUrls }): string {
  const error = input.error ? `<p class="error" role="alert">${escapeHtml(input.error)}</p>` : "";
  return `${head("clawbox: log in", input.assets.styles)}<body class="login"><form method="post" action="/console/login"><h1>clawbox</h1><p>Enter the box's console secret, or open the login link that <code>clawbox console url</code> prints on the box.</p>${error}<label>Secret <input type="password" name="secret" autocomplete="current-password" autocapitalize="none" spellcheck="false" required autofocus></label><p class="muted">The secret is in <code>console-secret</code> in the box's home folder (or <code>server.token</code>).</p><button type="submit">Log in</button></form><script src="${escapeHtml(input.assets.login)}" defer></script></body></html>`;
}

/**
 * A login's answer: the session token in the body, for the script to keep in this
 * origin's storage before it opens the console (nothing else ever carries it to the
 * browser).
 */
export function loggedInPage(input: {
  token: string;
  expiresAt: number;
  assets: AssetUrls;
}): string {
  return `${head("clawbox: logging in", input.assets.styles)}<body class="login" data-session="${escapeHtml(input.token)}" data-expires="${input.expiresAt}"><form><h1>clawbox</h1><p>Logged in. Opening the console…</p></form><script src="${escapeHtml(input.assets.login)}" defer></script></body></html>`;
}

// clawbox web console client, part 1 of 5: helpers and transcript rendering. A hash
// router over six pages, each drawn from the console's JSON API (/console/api). Plain
// DOM, no framework, no build step: the five parts are concatenated in order into one
// script (src/console/console-assets.ts), embedded in the program and served gzipped.
// See docs/CONSOLE.md.

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

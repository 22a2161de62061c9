/**
 * What a person would see go wrong in a console page's layout, as a list of plain
 * sentences (empty when all is well), for the browser tests to check on every page
 * they open (issue 38): the document scrolls sideways (wider than the window), or an
 * element's content is wider than its box (scrollWidth > clientWidth: a table cut off at
 * its column, a button pushed past the edge, a word running out of its cell), which on a
 * phone is content hidden behind a sideways swipe nothing hints at.
 *
 * Deliberate sideways scrollers are left out: a reply laid out in columns scrolls in its
 * bubble (`.text.columns`, issue 24), and the text of a form control (an input holding a
 * 64-character id, an editor) scrolls as every browser's does.
 */
import type { Page } from "playwright-core";

const DELIBERATE = ".text.columns, input, textarea, select, option";

/** Runs in the page (a string: the project's types have no DOM). */
const CHECK = `(() => {
  const deliberate = ${JSON.stringify(DELIBERATE)};
  const out = [];
  const doc = document.documentElement;
  if (doc.scrollWidth > window.innerWidth)
    out.push("the page is " + doc.scrollWidth + " px wide in a " + window.innerWidth + " px window");
  const describe = (el) => {
    const id = el.id ? "#" + el.id : "";
    const cls = el.classList.length ? "." + [...el.classList].join(".") : "";
    const text = (el.textContent || "").replace(/\\s+/g, " ").trim().slice(0, 60);
    return el.tagName.toLowerCase() + id + cls + ' "' + text + '"';
  };
  for (const el of document.querySelectorAll("body *")) {
    if (!(el instanceof HTMLElement) || !el.checkVisibility()) continue;
    if (el.matches(deliberate) || el.closest(".text.columns")) continue;
    // Rounding: a box may report one pixel more than it holds.
    if (el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0)
      out.push(describe(el) + ": content " + el.scrollWidth + " px in a " + el.clientWidth + " px box");
    const box = el.getBoundingClientRect();
    if (box.width > 0 && (box.right > window.innerWidth + 1 || box.left < -1))
      out.push(describe(el) + ": outside the window (" + Math.round(box.left) + "–" + Math.round(box.right) + " px)");
  }
  return out;
})()`;

export async function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(CHECK);
}

/**
 * The README and docs/ (the agent's guide included) may name only what exists, and the
 * README names everything a user can type:
 * - every `clawbox …` command line they show (inline or in a shell block) is a real
 *   command with real subcommands, and its options parse as the command declares them;
 * - every config key (`models.providers.local.path`) is in the schema, every config
 *   example (json5 blocks) has no unknown keys, every repository path and relative link
 *   exists, every CLAWBOX_* variable is read somewhere;
 * - the README's CLI section names every command, subcommand and option, and every
 *   CLAWBOX_* variable the program reads.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import JSON5 from "json5";
import { describe, expect, it } from "vitest";
import type { ArgSpec, Command } from "../../src/cli/command.ts";
import { COMMANDS } from "../../src/cli/commands/index.ts";
import { configSchema } from "../../src/config/index.ts";

const ROOT = join(import.meta.dirname, "..", "..");
const docFiles = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((n) => n.endsWith(".md"))
    .map((n) => `docs/${n}`),
  ...readdirSync(join(ROOT, "docs", "guide"))
    .filter((n) => n.endsWith(".md"))
    .map((n) => `docs/guide/${n}`),
];
const docs = docFiles.map((file) => ({ file, text: readFileSync(join(ROOT, file), "utf8") }));

/** Inline code spans outside fenced blocks, and the fenced blocks with their language. */
function split(text: string): { spans: string[]; blocks: { lang: string; body: string }[] } {
  const blocks: { lang: string; body: string }[] = [];
  const prose = text.replace(/^```(\w*)\n([\s\S]*?)^```$/gm, (_m, lang: string, body: string) => {
    blocks.push({ lang, body });
    return "";
  });
  const spans = [...prose.matchAll(/`([^`\n]+)`/g)].map((m) =>
    (m[1] as string).replace(/\\\|/g, "|"),
  );
  return { spans, blocks };
}

/** Shell-like words (quotes kept together, quotes removed). */
function words(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3] ?? "");
}

/** The words after the `clawbox` program in a command line, or undefined when there is none. */
function clawboxArgs(line: string): string[] | undefined {
  const w = words(line);
  let i = 0;
  for (; i < w.length; i++) {
    const word = w[i] as string;
    if (word === "npx" || word === "sudo" || /^[A-Z_]+=/.test(word)) continue;
    if (word === "-u") {
      i++;
      continue;
    }
    break;
  }
  const program = w[i];
  if (program !== "clawbox" && program !== "bin/clawbox") return undefined;
  return w.slice(i + 1);
}

/** Command lines: inline spans that are one, and shell-block lines that start with one. */
function commandLines(): { where: string; args: string[] }[] {
  const out: { where: string; args: string[] }[] = [];
  for (const { file, text } of docs) {
    const { spans, blocks } = split(text);
    for (const span of spans) {
      const args = clawboxArgs(span);
      // "clawbox.json" and prose like `clawbox` alone are not command lines.
      if (args && args.length > 0) out.push({ where: `${file}: \`${span}\``, args });
    }
    for (const block of blocks) {
      if (!["sh", "bash", "console", ""].includes(block.lang)) continue;
      for (const raw of block.body.split("\n")) {
        const line = raw
          .replace(/^\$ /, "")
          .replace(/\s#.*$/, "")
          .split(/\s(?:\||&&|;|>|2>)\s/)[0] as string;
        const args = clawboxArgs(line);
        if (args) out.push({ where: `${file}: ${raw.trim()}`, args });
      }
    }
  }
  return out;
}

const loaded = new Map<string, Command>();
async function commandNamed(name: string): Promise<Command | undefined> {
  const entry = COMMANDS.find((c) => c.name === name);
  if (!entry) return undefined;
  if (!loaded.has(name)) loaded.set(name, await entry.load());
  return loaded.get(name);
}

const GLOBAL = new Set(["--help", "-h", "--version", "-v", "help", "version"]);

/** Synopsis words as argv: brackets, alternatives bars and ellipses dropped. */
function argv(ws: string[]): string[] {
  return ws
    .map((w) => w.replace(/^[[(<]+|[\])>,]+$/g, ""))
    .filter((w) => w !== "" && w !== "|" && w !== "…" && w !== "...");
}

/** Why `args` do not parse as a clawbox command line, or undefined when they do. */
async function problem(args: string[]): Promise<string | undefined> {
  const rest = [...args];
  while (rest[0] === "--home" || rest[0]?.startsWith("--home="))
    rest.splice(0, rest[0] === "--home" ? 2 : 1);
  const [name, ...after] = rest;
  // `clawbox <command>` is a placeholder, not a command line.
  if (name === undefined || GLOBAL.has(name) || name.startsWith("<")) return undefined;
  const command = await commandNamed(name);
  if (!command) return `no command "${name}"`;
  const tryParse = (spec: ArgSpec, words: string[]) => {
    try {
      parseArgs({
        args: argv(words).filter((w) => w !== "--help" && w !== "-h" && !w.startsWith("--home")),
        options: spec.options,
        allowPositionals: spec.positionals,
        strict: true,
      });
      return undefined;
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  };
  if (!("subcommands" in command.args)) return tryParse(command.args, after);
  const subs = command.args.subcommands;
  const first = after[0]?.replace(/^[<[(]+|[\])>]+$/g, "");
  if (first === undefined || first.startsWith("-")) {
    if (command.args.defaultSubcommand)
      return tryParse(subs[command.args.defaultSubcommand] as ArgSpec, after);
    return after.length === 0 ? undefined : `${name}: no subcommand before ${first}`;
  }
  const alternatives = first.split("|");
  const unknown = alternatives.filter((a) => !Object.hasOwn(subs, a));
  if (unknown.length > 0) return `${name}: no subcommand ${unknown.join(", ")}`;
  const failures = alternatives.map((a) => tryParse(subs[a] as ArgSpec, after.slice(1)));
  return failures.every((f) => f !== undefined) ? failures.join("; ") : undefined;
}

describe("the README and docs/", () => {
  it("show only clawbox command lines that exist and parse", async () => {
    const lines = commandLines();
    expect(lines.length).toBeGreaterThan(40);
    const wrong: string[] = [];
    for (const line of lines) {
      const why = await problem(line.args);
      if (why) wrong.push(`${line.where}: ${why}`);
    }
    expect(wrong).toEqual([]);
  });

  it("name only config keys the schema has, and their config examples have no unknown keys", () => {
    const sections = Object.keys(configSchema._zod.def.shape);
    // Spans shaped like a config key that are something else.
    const notConfig = new Set([
      "mqtt.publish" /* a Home Assistant action */,
      "memory.md" /* a file */,
    ]);
    const key = new RegExp(`^(${sections.join("|")})(\\.[A-Za-z0-9_<>*-]+)+$`);
    const wrong: string[] = [];
    for (const { file, text } of docs) {
      const { spans, blocks } = split(text);
      for (const span of spans) {
        if (key.test(span) && !notConfig.has(span) && !configKeyExists(span))
          wrong.push(`${file}: ${span}`);
      }
      for (const block of blocks.filter((b) => b.lang === "json5")) {
        let raw: unknown;
        try {
          raw = JSON5.parse(block.body);
        } catch {
          continue; // a fragment, not a whole config
        }
        for (const path of unknownKeys(raw)) wrong.push(`${file}: example config: ${path}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  /** An output folder the docs name (test/.artifacts/…) exists only after a run; git ignores it. */
  const gitIgnores = (path: string) =>
    spawnSync("git", ["check-ignore", "-q", "--no-index", path], { cwd: ROOT }).status === 0;

  it("name only repository paths and relative links that exist", () => {
    const repoPath =
      /^(\.\.\/shared|src|scripts|docs|test|models|systemd|bin|firmware-config|skills|\.ci|debian)\/[\w./@-]*$/;
    const wrong: string[] = [];
    for (const { file, text } of docs) {
      const { spans } = split(text);
      for (const span of spans) {
        if (repoPath.test(span) && !existsSync(join(ROOT, span)) && !gitIgnores(span))
          wrong.push(`${file}: ${span}`);
      }
      for (const match of text.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)) {
        const target = match[1] as string;
        if (/^[a-z]+:/.test(target)) continue;
        if (!existsSync(join(ROOT, dirname(file), target))) wrong.push(`${file}: link ${target}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("name only CLAWBOX_* variables the program reads, and the README names all of them", () => {
    const code = sourceText();
    const read = new Set([...code.matchAll(/\bCLAWBOX_[A-Z0-9_]+\b/g)].map((m) => m[0]));
    const wrong: string[] = [];
    for (const { file, text } of docs) {
      for (const m of text.matchAll(/\bCLAWBOX_[A-Z0-9_]+\b/g))
        if (!read.has(m[0])) wrong.push(`${file}: ${m[0]}`);
    }
    expect(wrong).toEqual([]);
    const readme = docs.find((d) => d.file === "README.md")?.text ?? "";
    const runtime = [...srcText().matchAll(/\bCLAWBOX_[A-Z0-9_]+\b/g)].map((m) => m[0]);
    expect([...new Set(runtime)].filter((v) => !readme.includes(v))).toEqual([]);
  });
});

describe("the README's examples and notes", () => {
  it("put model files where clawbox models pull puts them: <home>/models/<name>/<file>", () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, "models", "manifest.json"), "utf8")) as {
      models: { name: string; files: { name: string }[] }[];
    };
    const pulled = new Set(
      manifest.models.flatMap((m) => m.files.map((f) => `${m.name}/${f.name}`)),
    );
    // The packaged config's default path, for a model copied by hand, is also real.
    const packaged = readFileSync(join(ROOT, "systemd", "clawbox.json"), "utf8");
    const wrong: string[] = [];
    for (const { file, text } of docs) {
      for (const m of text.matchAll(
        /(?:\/var\/lib\/clawbox|~\/\.clawbox)\/models\/([^\s"'`)]+\.gguf)/g,
      ))
        if (!pulled.has(m[1] as string) && !packaged.includes(m[0])) wrong.push(`${file}: ${m[0]}`);
    }
    expect(wrong).toEqual([]);
  });

  it("approve and explain every dependency's install script (npm 11's allowScripts)", () => {
    const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8")) as {
      packages: Record<string, { hasInstallScript?: boolean }>;
    };
    const scripted = Object.entries(lock.packages)
      .filter(([, p]) => p.hasInstallScript)
      .map(([path]) => path.replace(/^.*node_modules\//, ""));
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
      allowScripts?: Record<string, boolean>;
    };
    expect(Object.keys(pkg.allowScripts ?? {}).sort()).toEqual(scripted.sort());
    const readme = docs.find((d) => d.file === "README.md")?.text ?? "";
    expect(readme).toContain("not yet covered by allowScripts");
    for (const name of scripted) expect(readme).toContain(`\`${name}\``);
  });
});

describe("the README's CLI section", () => {
  it("names every command, subcommand and option", async () => {
    const readme = docs.find((d) => d.file === "README.md")?.text ?? "";
    const missing: string[] = [];
    for (const entry of COMMANDS) {
      const command = (await commandNamed(entry.name)) as Command;
      // The lines (table rows) that show `clawbox <name> …`, descriptions included.
      const shown = readme
        .split("\n")
        .filter((line) => line.includes(`\`clawbox ${entry.name}`))
        .join(" ")
        .replace(/\\\|/g, "|");
      if (!shown) {
        missing.push(`clawbox ${entry.name}`);
        continue;
      }
      const specs =
        "subcommands" in command.args
          ? Object.entries(command.args.subcommands)
          : [["", command.args] as const];
      for (const [sub, spec] of specs) {
        if (sub && !new RegExp(`[ |<]${sub}\\b`).test(shown))
          missing.push(`clawbox ${entry.name} ${sub}`);
        for (const [option, how] of Object.entries(spec.options)) {
          const short = how.short ? new RegExp(`(^|[\\s[(|])-${how.short}\\b`) : undefined;
          if (!shown.includes(`--${option}`) && !short?.test(shown))
            missing.push(`clawbox ${entry.name} ${sub} --${option}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });
});

type AnySchema = { _zod: { def: Record<string, unknown> } };

/** The schema under optional/default/nullable/pipe wrappers. */
function unwrap(schema: AnySchema): AnySchema {
  let current = schema;
  for (let i = 0; i < 10; i++) {
    const def = current._zod.def;
    const inner = (def.innerType ?? (def.type === "pipe" ? def.in : undefined)) as
      | AnySchema
      | undefined;
    if (!inner) break;
    current = inner;
  }
  return current;
}

/** Children of a schema for one key: object fields, any record key, array items, union options. */
function children(schema: AnySchema, segment: string): AnySchema[] {
  const inner = unwrap(schema);
  const def = inner._zod.def;
  if (def.type === "object") {
    const shape = def.shape as Record<string, AnySchema>;
    return Object.hasOwn(shape, segment) ? [shape[segment] as AnySchema] : [];
  }
  if (def.type === "record") return [def.valueType as AnySchema];
  if (def.type === "array") return [def.element as AnySchema];
  if (def.type === "union")
    return (def.options as AnySchema[]).flatMap((o) => children(o, segment));
  return [];
}

function configKeyExists(path: string): boolean {
  let current: AnySchema[] = [configSchema as unknown as AnySchema];
  for (const segment of path.split(".")) {
    current = current.flatMap((s) => children(s, segment));
    if (current.length === 0) return false;
  }
  return true;
}

/** Dotted paths of `raw`'s keys the schema does not have. */
function unknownKeys(raw: unknown, prefix = ""): string[] {
  if (typeof raw !== "object" || raw === null) return [];
  return Object.entries(raw).flatMap(([k, v]) => {
    const path = prefix ? `${prefix}.${Array.isArray(raw) ? "0" : k}` : k;
    if (!configKeyExists(path)) return [path];
    return unknownKeys(v, path);
  });
}

function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.(ts|mjs|js|sh|service|py)$|^clawbox$|^[a-z-]+$/.test(e.name))
    .map((e) => join(e.parentPath, e.name));
}

/** The program's own source (src/, without tests). */
function srcText(): string {
  return filesUnder("src")
    .filter((f) => !f.endsWith(".test.ts"))
    .map((f) => readFileSync(f, "utf8"))
    .join("\n");
}

/** Everything that may read a variable: the program, its scripts and packaging. */
function sourceText(): string {
  return [
    srcText(),
    ...["scripts", "bin", "systemd", "firmware-config"].flatMap((d) =>
      existsSync(join(ROOT, d)) ? filesUnder(d).map((f) => readFileSync(f, "utf8")) : [],
    ),
  ].join("\n");
}

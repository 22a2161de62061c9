/**
 * Finds the sqlite-vec loadable extension. From source it comes from the npm package
 * for this platform; a compiled binary cannot dlopen from its embedded filesystem, so
 * the `.so` is shipped in the layout's lib folder (`CLAWBOX_SQLITE_VEC` overrides both).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { runtimeLayout } from "../system/index.ts";

export function sqliteVecCandidates(): string[] {
  const layout = runtimeLayout();
  const arch = process.arch === "arm64" ? "arm64" : "x64";
  const fromEnv = process.env.CLAWBOX_SQLITE_VEC;
  return [
    ...(fromEnv ? [fromEnv] : []),
    join(layout.libDir, "vec0.so"),
    join(layout.libDir, `sqlite-vec-linux-${arch}`, "vec0.so"),
    join(layout.root, "node_modules", `sqlite-vec-linux-${arch}`, "vec0.so"),
  ];
}

export function findSqliteVec(): string | undefined {
  return sqliteVecCandidates().find((path) => existsSync(path));
}

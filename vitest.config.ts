import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // Two cores: keep parallelism modest so native model loads do not starve each other.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MemoryTestEnv, memoryTestEnv } from "../../test/fixtures/memory-test-env.ts";
import { indexTerms, queryTerms } from "./search-terms.ts";

let env: MemoryTestEnv;

beforeAll(() => {
  env = memoryTestEnv();
  env.write("memory/2025-04-01.md", "# 家人\n\n奶奶的生日是三月十五日，她喜欢茉莉花茶。\n");
  env.write(
    "memory/2025-04-02.md",
    "# House\n\nThe garage door code is 4711 and the spare key is under the blue flowerpot.\n",
  );
  env.write("memory/2025-04-03.md", "# Keys\n\nThe car keys hang on the hook by the door.\n");
  env.write("memory/2025-04-04.md", "# 工作\n\n下周二要交季度报告，老板喜欢简短的总结。\n");
  env.write("memory/2025-04-05.md", "# Café\n\nWe met at the Crème Brûlée café on Friday.\n");
  env.write("MEMORY.md", "# Memory\n\n- Prefers green tea in the morning.\n");
});
afterAll(() => env.cleanup());

async function top(query: string): Promise<string | undefined> {
  const res = await env.memory(null).search(query);
  expect(res.mode).toBe("keyword");
  return res.results[0]?.path;
}

describe("keyword-only memory search answers natural questions", () => {
  it.each(["奶奶生日", "奶奶喜欢喝什么茶", "奶奶的生日", "生日", "茉莉花茶", "花茶", "茶"])(
    "finds the grandmother note for %s",
    async (query) => {
      expect(await top(query)).toBe("memory/2025-04-01.md");
    },
  );

  it.each(["where is the spare key", "garage code", "Where's the spare key?"])(
    "finds the garage note as the top hit for %s",
    async (query) => {
      expect(await top(query)).toBe("memory/2025-04-02.md");
    },
  );

  it("stems English words (flowerpots finds flowerpot)", async () => {
    expect(await top("flowerpots")).toBe("memory/2025-04-02.md");
  });

  it("folds case and diacritics", async () => {
    expect(await top("creme brulee CAFE")).toBe("memory/2025-04-05.md");
  });

  it("gives scores that rank, not the same score to every hit", async () => {
    const res = await env.memory(null).search("spare key garage door");
    const scores = res.results.map((r) => r.textScore);
    expect(res.results[0]?.path).toBe("memory/2025-04-02.md");
    expect(scores[0]).toBe(1);
    expect(scores.length).toBeGreaterThan(1);
    expect(Math.min(...scores)).toBeLessThan(1);
    expect(Math.min(...scores)).toBeGreaterThan(0);
  });

  it("drops question stop words but keeps content words", () => {
    expect(queryTerms("Where's the spare key?")).toEqual(["spare", "kei"]);
    expect(queryTerms("奶奶喜欢喝什么茶")).toEqual(["奶奶", "喜欢", "喝", "茶"]);
    expect(queryTerms("the")).toEqual(["the"]);
  });

  it("indexes Chinese as words, characters and bigrams", () => {
    const terms = indexTerms("她喜欢茉莉花茶").split(" ");
    expect(terms).toEqual(expect.arrayContaining(["喜欢", "茉莉花茶", "茶", "花茶"]));
  });
});

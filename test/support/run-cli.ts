/** Runs the clawbox CLI in-process with captured output (for CLI behaviour tests). */
import { main } from "../../src/cli/main.ts";

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runCli(
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  const code = await main(args, {
    stdout: {
      write: (t) => {
        stdout += t;
      },
    },
    stderr: {
      write: (t) => {
        stderr += t;
      },
    },
    env: { PATH: process.env.PATH, ...env },
  });
  return { code, stdout, stderr };
}

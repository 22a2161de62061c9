/** The command table. Add one import and one entry per new command file. */
import type { Command } from "../command.ts";
import { configCommand } from "./config.ts";

export const COMMANDS: readonly Command[] = [configCommand];

/** The web console (issue 15): pages for chat, sessions, context, memory, models and status. */
export type { ConsoleAgent, ConsoleDeps, StatusSource } from "./console-deps.ts";
export { mountConsole } from "./mount-console.ts";

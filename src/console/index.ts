/** The web console (issue 15): pages for chat, sessions, context, memory, models and status. */
export { clientKey, PROXIED_CLIENT, proxyHeaderOf } from "./client-address.ts";
export type { ConsoleAgent, ConsoleDeps, StatusSource } from "./console-deps.ts";
export { LoginRateLimit } from "./login-rate-limit.ts";
export {
  ensureLoginSecret,
  generateLoginSecret,
  LOGIN_SECRET_FILE,
  loginSecretPath,
  readLoginSecret,
} from "./login-secret.ts";
export {
  consoleLinkBase,
  issueTicket,
  loginLink,
  TICKET_TTL_MS,
  TicketVerifier,
} from "./login-ticket.ts";
export { mountConsole } from "./mount-console.ts";

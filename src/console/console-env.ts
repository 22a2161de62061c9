/**
 * The Hono environment of the console's routes: what the login check leaves on each
 * request for the handlers. A leaf of types, so the app and its api-*.ts route files
 * share it without importing each other.
 */
export type ConsoleEnv = { Variables: { expiresAt: number } };

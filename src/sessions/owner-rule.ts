/**
 * The one rule for "is this sender an owner" (SPEC §9a): a sender listed in
 * `agent.owners`, or `web:token`, the HTTP request that carried `server.token`. Every
 * place that asks (the session resolver, the tool policy of `clawbox context` and the
 * console's context page, MQTT's model choice) asks here, so they cannot disagree.
 */

/**
 * Sender of an HTTP request that carried `server.token`. Only the HTTP route sets it,
 * after checking the token, so it is an owner wherever it appears (also in the origin
 * of a reminder it set).
 */
export const WEB_TOKEN_SENDER = "web:token";

export function isOwnerSender(owners: readonly string[], sender: string | undefined): boolean {
  return sender !== undefined && (sender === WEB_TOKEN_SENDER || owners.includes(sender));
}

/** JSON in and out for the console API: zod-validated bodies and `{error: {code, message}}`. */
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { z } from "../schema/index.ts";

export function apiError(c: Context, status: ContentfulStatusCode, code: string, message: string) {
  return c.json({ error: { code, message } }, status);
}

/** The parsed body, or a 400 response naming the bad field. */
export async function readBody<T extends z.ZodMiniType>(
  c: Context,
  schema: T,
): Promise<{ ok: true; value: z.infer<T> } | { ok: false; response: Response }> {
  let raw: unknown;
  try {
    raw = await c.req.json();
  } catch {
    return { ok: false, response: apiError(c, 400, "HTTP_BAD_REQUEST", "body is not valid JSON") };
  }
  const parsed = schema.safeParse(raw);
  if (parsed.success) return { ok: true, value: parsed.data };
  const message = parsed.error.issues
    .map((i) => `${i.path.join(".") || "body"}: ${i.message}`)
    .join("; ");
  return { ok: false, response: apiError(c, 400, "HTTP_BAD_REQUEST", message) };
}

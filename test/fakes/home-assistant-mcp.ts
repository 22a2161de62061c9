/**
 * A fake of Home Assistant's MCP server endpoint on 127.0.0.1, written from HA's source
 * (../shared/HOME-ASSISTANT-PROTOCOLS.md §3):
 * - `homeassistant/components/mcp_server/http.py` (`STREAMABLE_API = "/api/mcp"`,
 *   `ModelContextProtocolStreamableView`): stateless streamable HTTP. GET → 405; POST
 *   needs `Accept` containing application/json and `Content-Type: application/json`;
 *   one JSON-RPC message per body (no batches); a notification or response → 202 with
 *   no body; a request → one plain `application/json` response, no `Mcp-Session-Id`.
 * - `homeassistant/components/http/view.py request_handler_factory`: the view requires
 *   auth, `Authorization: Bearer <token>`; otherwise 401 with body `401: Unauthorized`.
 * - `homeassistant/components/mcp_server/server.py` and the MCP python SDK 1.26.0
 *   (`server/session.py`, `lowlevel/server.py`, `shared/session.py`): `initialize`
 *   echoes a known protocol version (else `2025-11-25`), capabilities
 *   `{experimental, prompts, tools}`, serverInfo `home-assistant`; `tools/list` with
 *   `inputSchema` of only `properties`; `tools/call` validates the arguments against
 *   that schema first ("Input validation error: ..."), a result is one text block of
 *   `json.dumps(result)`, a failure `isError: true` "Error calling tool: ...";
 *   `prompts/list` → "Assist"; `prompts/get` → the Assist API prompt with the static
 *   overview of exposed entities (`mcp_server/llm_api.py`); an unknown prompt → error
 *   code 0; a method outside the SDK's union → -32602 "Invalid request parameters";
 *   a known method HA does not register → -32601.
 * Tool names and descriptions are HA 2026.9's (`<domain>__<Tool>`, HA's intent
 * descriptions), results HA's `IntentResponseDict`. Everything it received is recorded.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeEntity {
  id: string;
  name: string;
  area?: string;
  state: "on" | "off";
}

export interface ToolCallRecord {
  name: string;
  arguments: Record<string, unknown>;
}

const VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
const KNOWN_UNREGISTERED = new Set([
  "resources/list",
  "resources/read",
  "resources/templates/list",
  "logging/setLevel",
  "completion/complete",
  "resources/subscribe",
  "resources/unsubscribe",
]);

const str = (description?: string) => ({ type: "string", ...(description ? { description } : {}) });
const DEVICE_CLASSES = [
  "awning",
  "blind",
  "curtain",
  "damper",
  "door",
  "garage",
  "gate",
  "shade",
  "shutter",
  "window",
  "water",
  "gas",
  "outlet",
  "switch",
  "tv",
  "speaker",
  "receiver",
];
/** `DynamicServiceIntentHandler.slot_schema` through voluptuous-openapi: name/area/floor optional, no `required`. */
const onOffSchema = {
  type: "object",
  properties: {
    name: str(),
    area: str(),
    floor: str(),
    domain: { type: "array", items: { type: "string" } },
    device_class: { type: "array", items: { type: "string", enum: DEVICE_CLASSES } },
  },
};

export const HA_TOOLS = [
  {
    name: "intent__HassTurnOn",
    description:
      "Turns on/opens/presses a device or entity. For locks, this performs a 'lock' action. Use for requests like 'turn on', 'activate', 'enable', or 'lock'.",
    inputSchema: onOffSchema,
  },
  {
    name: "intent__HassTurnOff",
    description:
      "Turns off/closes a device or entity. For locks, this performs an 'unlock' action. Use for requests like 'turn off', 'deactivate', 'disable', or 'unlock'.",
    inputSchema: onOffSchema,
  },
  {
    name: "light__HassLightSet",
    description: "Sets the brightness percentage or color of a light",
    inputSchema: {
      type: "object",
      properties: {
        name: str(),
        area: str(),
        floor: str(),
        color: str(),
        temperature: { type: "integer" },
        brightness: {
          type: "integer",
          description:
            "The brightness percentage of the light between 0 and 100, where 0 is off and 100 is fully lit",
        },
      },
    },
  },
  {
    name: "media_player__HassMediaPause",
    description: "Pauses a media player",
    inputSchema: { type: "object", properties: { name: str(), area: str(), floor: str() } },
  },
  {
    name: "media_player__HassMediaUnpause",
    description: "Resumes a media player",
    inputSchema: { type: "object", properties: { name: str(), area: str(), floor: str() } },
  },
  {
    name: "climate__HassClimateSetTemperature",
    description: "Sets the target temperature of a climate device or entity",
    inputSchema: {
      type: "object",
      properties: { name: str(), area: str(), floor: str(), temperature: { type: "number" } },
    },
  },
  {
    name: "intent__HassCancelAllTimers",
    description: "Cancels all timers",
    inputSchema: { type: "object", properties: { area: str() } },
  },
  {
    name: "homeassistant__GetLiveContext",
    description:
      "Provides real-time information about the CURRENT state, value, or mode of devices, sensors, entities, or areas. Use this tool for: 1. Answering questions about current conditions (e.g., 'Is the light on?'). 2. As the first step in conditional actions (e.g., 'If the weather is rainy, turn off sprinklers' requires checking the weather first).",
    inputSchema: {
      type: "object",
      properties: {
        name: str("Name of the device or entity"),
        domain: {
          anyOf: [str(), { type: "array", items: { type: "string" } }],
          description: "Domain of the device or entity",
        },
        area: str("Name of the area"),
      },
    },
  },
];

export interface FakeHomeAssistant {
  url: string;
  token: string;
  /** Every tools/call that reached HA's tool (after auth and validation). */
  calls: ToolCallRecord[];
  /** Every Authorization header value received, in order. */
  authorizations: (string | undefined)[];
  /** Every method received, in order. */
  methods: string[];
  entities: FakeEntity[];
  /** `ok` (default), `slow` (never answers), `redirect` (302 to `redirectTo`). */
  mode: "ok" | "slow" | "redirect";
  redirectTo: string;
  /** Changes the token HA accepts (the old one is revoked). */
  revoke(next: string): void;
  close(): Promise<void>;
}

function overview(entities: FakeEntity[]): string {
  const lines = entities.flatMap((e) => [
    `- names: ${e.name}`,
    `  domain: ${e.id.split(".")[0]}`,
    ...(e.area ? [`  areas: ${e.area}`] : []),
  ]);
  return [
    "When controlling Home Assistant always call the intent tools. Use homeassistant__GetLiveContext to get the current state.",
    "Static Context: An overview of the areas and the devices in this smart home:",
    ...lines,
  ].join("\n");
}

function matchTarget(entities: FakeEntity[], args: Record<string, unknown>): FakeEntity[] {
  const name = typeof args.name === "string" ? args.name.toLowerCase() : undefined;
  const area = typeof args.area === "string" ? args.area.toLowerCase() : undefined;
  const domains = Array.isArray(args.domain) ? args.domain : undefined;
  return entities.filter(
    (e) =>
      (!name || e.name.toLowerCase() === name) &&
      (!area || e.area?.toLowerCase() === area) &&
      (!domains || domains.includes(e.id.split(".")[0])) &&
      (name || area),
  );
}

/** The SDK validates arguments against the listed inputSchema before HA sees them. */
function validationError(
  schema: (typeof HA_TOOLS)[number]["inputSchema"],
  args: Record<string, unknown>,
): string | undefined {
  const properties = schema.properties as Record<string, { type?: string }>;
  for (const [key, value] of Object.entries(args)) {
    const want = properties[key]?.type;
    if (!want) continue;
    const ok =
      want === "string"
        ? typeof value === "string"
        : want === "array"
          ? Array.isArray(value)
          : want === "integer"
            ? Number.isInteger(value)
            : want === "number"
              ? typeof value === "number"
              : true;
    if (!ok) return `${JSON.stringify(value)} is not of type '${want}'`;
  }
  return undefined;
}

export async function startFakeHomeAssistant(
  options: { token?: string; entities?: FakeEntity[] } = {},
): Promise<FakeHomeAssistant> {
  let token = options.token ?? "eyJhbGciOiJIUzI1NiJ9.fake-long-lived-access-token.c2lnbmF0dXJl";
  const fake = {
    url: "",
    token,
    calls: [] as ToolCallRecord[],
    authorizations: [] as (string | undefined)[],
    methods: [] as string[],
    entities: options.entities ?? [
      { id: "light.kitchen_light", name: "Kitchen Light", area: "Kitchen", state: "on" },
      { id: "light.living_room_lamp", name: "Living Room Lamp", area: "Living Room", state: "off" },
      { id: "switch.coffee_maker", name: "Coffee Maker", area: "Kitchen", state: "off" },
    ],
    mode: "ok" as FakeHomeAssistant["mode"],
    redirectTo: "",
  };

  const callTool = (name: string, args: Record<string, unknown>) => {
    const tool = HA_TOOLS.find((t) => t.name === name);
    if (!tool)
      return {
        content: [{ type: "text", text: `Error calling tool: Tool "${name}" not found` }],
        isError: true,
      };
    const invalid = validationError(tool.inputSchema, args);
    if (invalid)
      return {
        content: [{ type: "text", text: `Input validation error: ${invalid}` }],
        isError: true,
      };
    fake.calls.push({ name, arguments: args });
    let result: unknown;
    if (name.endsWith("GetLiveContext")) {
      result = {
        success: true,
        result: `Live Context: An overview of the areas and the devices in this smart home:\n${fake.entities.map((e) => `- names: ${e.name}\n  domain: ${e.id.split(".")[0]}\n  state: '${e.state}'`).join("\n")}`,
      };
    } else {
      const targets = matchTarget(fake.entities, args);
      if (targets.length === 0)
        return {
          content: [
            {
              type: "text",
              text: `Error calling tool: <MatchFailedError result=MatchTargetsResult(is_match=False, no_match_reason=<MatchFailedReason.NAME: 1>)>`,
            },
          ],
          isError: true,
        };
      if (name.endsWith("TurnOn")) for (const t of targets) t.state = "on";
      if (name.endsWith("TurnOff")) for (const t of targets) t.state = "off";
      result = {
        speech: {},
        response_type: "action_done",
        data: {
          targets: [],
          success: targets.map((t) => ({ name: t.name, type: "entity", id: t.id })),
          failed: [],
        },
      };
    }
    return { content: [{ type: "text", text: JSON.stringify(result) }], isError: false };
  };

  const handle = (
    method: string,
    params: Record<string, unknown>,
  ): { result?: unknown; error?: { code: number; message: string; data?: string } } => {
    switch (method) {
      case "initialize": {
        const asked = String(params.protocolVersion ?? "");
        return {
          result: {
            protocolVersion: VERSIONS.includes(asked) ? asked : "2025-11-25",
            capabilities: {
              experimental: {},
              prompts: { listChanged: false },
              tools: { listChanged: false },
            },
            serverInfo: { name: "home-assistant", version: "1.26.0" },
          },
        };
      }
      case "ping":
        return { result: {} };
      case "tools/list":
        return { result: { tools: HA_TOOLS } };
      case "tools/call":
        return {
          result: callTool(
            String(params.name),
            (params.arguments ?? {}) as Record<string, unknown>,
          ),
        };
      case "prompts/list":
        return {
          result: {
            prompts: [
              { name: "Assist", description: "Default prompt for Home Assistant Assist API" },
            ],
          },
        };
      case "prompts/get":
        if (params.name !== "Assist")
          return { error: { code: 0, message: `Unknown prompt: ${String(params.name)}` } };
        return {
          result: {
            description: "Default prompt for Home Assistant Assist API",
            messages: [
              { role: "assistant", content: { type: "text", text: overview(fake.entities) } },
            ],
          },
        };
      default:
        return KNOWN_UNREGISTERED.has(method)
          ? { error: { code: -32601, message: "Method not found" } }
          : { error: { code: -32602, message: "Invalid request parameters", data: "" } };
    }
  };

  const respond = async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? "").split("?")[0];
    fake.authorizations.push(req.headers.authorization);
    if (fake.mode === "redirect") {
      res.writeHead(302, { location: fake.redirectTo }).end();
      return;
    }
    if (path !== "/api/mcp") {
      res.writeHead(404, { "content-type": "text/plain" }).end("404: Not Found");
      return;
    }
    if (req.headers.authorization !== `Bearer ${token}`) {
      res.writeHead(401, { "content-type": "text/plain" }).end("401: Unauthorized");
      return;
    }
    if (req.method !== "POST") {
      res.writeHead(405, { "content-type": "text/plain" }).end("Only POST method is supported");
      return;
    }
    if (fake.mode === "slow") return; // never answers
    if (!String(req.headers.accept ?? "").includes("application/json")) {
      res.writeHead(400).end("Client must accept application/json");
      return;
    }
    if (!String(req.headers["content-type"] ?? "").startsWith("application/json")) {
      res.writeHead(400).end("Content-Type must be application/json");
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let message: { jsonrpc?: string; id?: unknown; method?: unknown; params?: unknown };
    try {
      message = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      res.writeHead(400).end("Request must be a JSON-RPC message");
      return;
    }
    if (Array.isArray(message) || message?.jsonrpc !== "2.0") {
      res.writeHead(400).end("Request must be a JSON-RPC message");
      return;
    }
    if (message.id === undefined || typeof message.method !== "string") {
      if (typeof message.method === "string") fake.methods.push(message.method);
      res.writeHead(202).end();
      return;
    }
    fake.methods.push(message.method);
    const answer = handle(message.method, (message.params ?? {}) as Record<string, unknown>);
    res
      .writeHead(200, { "content-type": "application/json" })
      .end(JSON.stringify({ jsonrpc: "2.0", id: message.id, ...answer }));
  };

  const server: Server = createServer((req, res) => {
    respond(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as AddressInfo;
  return Object.assign(fake, {
    url: `http://127.0.0.1:${port}`,
    revoke(next: string) {
      token = next;
      fake.token = next;
    },
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  });
}

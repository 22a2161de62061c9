/**
 * `camera_snapshot(camera)` (owner-only): one frame from a camera in TOOLS.md or
 * `tools.cameras`, scaled to <= 1200 px JPEG, saved under workspace/media/ (so the reply
 * can send it to the chat) and returned as image content to a model that can see
 * images, else as the file path and size.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ClawboxError } from "../errors/index.ts";
import { type AgentTool, errorOutput } from "../tools/index.ts";
import { captureFrame } from "./camera-sources.ts";
import type { Devices } from "./device-entries.ts";

export interface CameraToolOptions {
  workspace: string;
  /** True when the current model accepts images. */
  vision: () => boolean;
  env?: NodeJS.ProcessEnv;
}

const stamp = (now: Date) => now.toISOString().replace(/[:.]/g, "-").replace("Z", "");

export function createCameraSnapshotTool(devices: Devices, options: CameraToolOptions): AgentTool {
  const names = devices.cameras.map((c) => c.name);
  const list = devices.cameras
    .map((c) => `${c.name}${c.description ? ` (${c.description})` : ""}`)
    .join("; ");
  return {
    name: "camera_snapshot",
    group: "runtime",
    ownerOnly: true,
    description: `Take a picture now with one of the house cameras (JPEG, at most 1200 px; saved under media/). Cameras: ${list}.`,
    parameters: {
      type: "object",
      properties: { camera: { type: "string", enum: names } },
      required: ["camera"],
      additionalProperties: false,
    },
    async execute(args, ctx) {
      const camera = devices.cameras.find((c) => c.name === args.camera);
      if (!camera)
        return errorOutput(
          new ClawboxError(
            "TOOL_FAILED",
            `no camera "${String(args.camera)}" (cameras: ${names.join(", ")})`,
          ),
        );
      try {
        const frame = await captureFrame(camera, ctx.signal, options.env);
        const { scaleImageToJpeg } = await import("../media/index.ts");
        const image = await scaleImageToJpeg(frame, {
          label: `camera ${camera.name}`,
          preferFfmpeg: true,
        });
        const dir = join(options.workspace, "media");
        mkdirSync(dir, { recursive: true });
        const file = `${camera.name}-${stamp(new Date())}.jpg`;
        writeFileSync(join(dir, file), image.data);
        const summary = `media/${file} (${image.width}x${image.height} JPEG, ${image.data.length} bytes)`;
        const details = {
          path: `media/${file}`,
          width: image.width,
          height: image.height,
          bytes: image.data.length,
        };
        if (!options.vision())
          return {
            content: [{ type: "text", text: `Snapshot from ${camera.name} saved: ${summary}` }],
            details,
          };
        return {
          content: [
            { type: "text", text: `Snapshot from ${camera.name}: ${summary}` },
            { type: "image", data: image.data.toString("base64"), mimeType: "image/jpeg" },
          ],
          details,
        };
      } catch (error) {
        return errorOutput(error);
      }
    },
  };
}

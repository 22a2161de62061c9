/**
 * A small RTSP server for camera tests (RFC 2326: OPTIONS, DESCRIBE, SETUP, PLAY,
 * TEARDOWN; RTP interleaved over the TCP connection, as `ffmpeg -rtsp_transport tcp`
 * asks). The video is real: ffmpeg encodes its `testsrc` pattern as MJPEG over RTP
 * (RFC 2435) to a local UDP port and writes the SDP; this server hands that SDP out on
 * DESCRIBE and forwards each RTP packet to every playing client as `$ 0 <len> <packet>`.
 * ffmpeg's own `-rtsp_flags listen` only receives streams (ANNOUNCE/RECORD), so it
 * cannot serve a camera that clients PLAY from.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createSocket } from "node:dgram";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface TestRtspServer {
  url: string;
  stop(): Promise<void>;
}

export async function startTestRtspServer(): Promise<TestRtspServer> {
  const dir = mkdtempSync(join(tmpdir(), "clawbox-rtsp-"));
  const sdpFile = join(dir, "stream.sdp");
  const udp = createSocket("udp4");
  await new Promise<void>((resolve) => udp.bind(0, "127.0.0.1", resolve));
  const rtpPort = udp.address().port;
  const playing = new Set<Socket>();
  udp.on("message", (packet) => {
    const header = Buffer.from([0x24, 0, packet.length >> 8, packet.length & 0xff]);
    for (const client of playing) client.write(Buffer.concat([header, packet]));
  });
  const encoder: ChildProcess = spawn(
    "ffmpeg",
    [
      ...["-hide_banner", "-loglevel", "error", "-re", "-f", "lavfi"],
      ...[
        "-i",
        "testsrc=size=1920x1080:rate=5",
        "-pix_fmt",
        "yuvj420p",
        "-c:v",
        "mjpeg",
        "-huffman",
        "default",
        "-q:v",
        "6",
      ],
      ...["-f", "rtp", "-sdp_file", sdpFile, `rtp://127.0.0.1:${rtpPort}?pkt_size=1200`],
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let encoderErrors = "";
  encoder.stderr?.on("data", (d) => {
    encoderErrors += d;
  });
  let sdp = "";
  for (let i = 0; i < 100 && !sdp; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    try {
      sdp = readFileSync(sdpFile, "utf8");
    } catch {
      if (encoder.exitCode !== null) break;
    }
  }
  if (!sdp) {
    encoder.kill("SIGKILL");
    udp.close();
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`ffmpeg did not start an RTP stream: ${encoderErrors.trim() || "no SDP"}`);
  }
  const describeSdp = `${sdp
    .split(/\r?\n/)
    .filter((line) => line && !line.startsWith("c="))
    .map((line) => (line.startsWith("m=video") ? line.replace(/m=video \d+/, "m=video 0") : line))
    .join("\r\n")}\r\nc=IN IP4 0.0.0.0\r\na=control:track0\r\n`;

  const server: Server = createServer((socket) => {
    let buffer = "";
    socket.on("data", (chunk) => {
      buffer += chunk.toString("latin1");
      for (;;) {
        const end = buffer.indexOf("\r\n\r\n");
        if (end < 0) return;
        const request = buffer.slice(0, end);
        buffer = buffer.slice(end + 4);
        const [line = "", ...headerLines] = request.split("\r\n");
        const [method = "", url = ""] = line.split(" ");
        const cseq =
          headerLines
            .find((h) => /^cseq:/i.test(h))
            ?.split(":")[1]
            ?.trim() ?? "0";
        const reply = (extra: string[], body = "") =>
          socket.write(
            [
              `RTSP/1.0 200 OK`,
              `CSeq: ${cseq}`,
              ...extra,
              ...(body ? [`Content-Length: ${Buffer.byteLength(body)}`] : []),
              "",
              body,
            ].join("\r\n"),
          );
        if (method === "OPTIONS") reply(["Public: OPTIONS, DESCRIBE, SETUP, PLAY, TEARDOWN"]);
        else if (method === "DESCRIBE")
          reply([`Content-Base: ${url}/`, "Content-Type: application/sdp"], describeSdp);
        else if (method === "SETUP")
          reply(["Session: 12345678;timeout=60", "Transport: RTP/AVP/TCP;unicast;interleaved=0-1"]);
        else if (method === "PLAY") {
          reply(["Session: 12345678", "Range: npt=0.000-"]);
          playing.add(socket);
        } else if (method === "TEARDOWN") {
          reply(["Session: 12345678"]);
          playing.delete(socket);
        } else socket.write(`RTSP/1.0 405 Method Not Allowed\r\nCSeq: ${cseq}\r\n\r\n`);
      }
    });
    socket.on("close", () => playing.delete(socket));
    socket.on("error", () => playing.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `rtsp://127.0.0.1:${port}/live`,
    async stop() {
      for (const socket of playing) socket.destroy();
      server.close();
      encoder.kill("SIGKILL");
      udp.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

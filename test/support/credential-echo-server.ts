/**
 * A loopback HTTP server that refuses every request and quotes it back: not a fake of a
 * platform (QQ and WeCom do not echo credentials), but the worst a token endpoint or API
 * base could do: make the box show the secrets it was sent. QQ-style paths answer 401
 * `{code, message}` with the JSON body in the message; WeCom's `/cgi-bin/…` answers
 * `{errcode: 40001, errmsg}` with the URL (corpsecret in its query) in the errmsg.
 */
import { createServer, type Server } from "node:http";

export interface CredentialEchoServer {
  url: string;
  /** Every request so far: method, path and query, body. */
  received(): string;
  close(): Promise<void>;
}

export async function startCredentialEchoServer(): Promise<CredentialEchoServer> {
  let got = "";
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => {
      body += chunk.toString("utf8");
    });
    req.on("end", () => {
      got += `${req.method} ${req.url} ${body}\n`;
      res.setHeader("content-type", "application/json");
      if (req.url?.startsWith("/cgi-bin/")) {
        res.end(JSON.stringify({ errcode: 40001, errmsg: `invalid credential: ${req.url}` }));
        return;
      }
      res.statusCode = 401;
      res.end(JSON.stringify({ code: 100016, message: `invalid appid or secret: ${body}` }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    received: () => got,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

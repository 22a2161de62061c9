/**
 * A TLS front for a plain-HTTP fake on 127.0.0.1: terminates TLS with a chosen
 * certificate and pipes the bytes (HTTP and WebSocket alike) to the fake's port.
 * `useCertificate` swaps the certificate for new connections, which is how a test
 * plays NTP fixing the clock: first a certificate that is not yet valid, then one
 * that is.
 */
import { readFileSync } from "node:fs";
import { connect } from "node:net";
import { createServer, type Server } from "node:tls";
import type { CertificateFiles } from "./test-certificates.ts";

export interface TlsFront {
  /** `https://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** TLS handshakes the front saw fail (the client refused the certificate). */
  refusedHandshakes(): number;
  useCertificate(files: CertificateFiles): void;
  close(): Promise<void>;
}

const contextOf = (files: CertificateFiles) => ({
  cert: readFileSync(files.certfile, "utf8"),
  key: readFileSync(files.keyfile, "utf8"),
});

export async function startTlsFront(
  targetPort: number,
  files: CertificateFiles,
): Promise<TlsFront> {
  let refused = 0;
  const open = new Set<{ destroy(): void }>();
  const server: Server = createServer(contextOf(files), (client) => {
    const upstream = connect(targetPort, "127.0.0.1");
    open.add(client);
    client.on("close", () => open.delete(client));
    client.pipe(upstream).pipe(client);
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
  });
  server.on("tlsClientError", () => {
    refused += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `https://127.0.0.1:${port}`,
    port,
    refusedHandshakes: () => refused,
    useCertificate(next) {
      server.setSecureContext(contextOf(next));
    },
    close() {
      for (const socket of open) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

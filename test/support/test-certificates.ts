/**
 * Throwaway TLS certificates for 127.0.0.1, made with the openssl CLI: one CA per
 * directory and any number of server certificates it signs. A `notBefore` date in the
 * future gives the certificate a box whose clock is behind sees (a Pi has no RTC until
 * NTP syncs): "certificate is not yet valid".
 */
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const OPENSSL = "/usr/bin/openssl";
export const HAVE_OPENSSL = existsSync(OPENSSL);

/** A date far enough ahead that any test machine's clock is behind it. */
export const FUTURE_NOT_BEFORE = "20991231000000Z";

export interface CertificateFiles {
  cafile: string;
  certfile: string;
  keyfile: string;
}

function openssl(args: string[]): void {
  const run = spawnSync(OPENSSL, args, { encoding: "utf8" });
  if (run.status !== 0) throw new Error(`openssl ${args.join(" ")}: ${run.stderr}`);
}

const subject = (cn: string) => ["-nodes", "-subj", `/CN=${cn}`, "-newkey", "rsa:2048"];

/**
 * A server certificate for 127.0.0.1 signed by the CA in `dir` (made on first use).
 * `notBefore` (YYYYMMDDHHMMSSZ) dates it in the future. Files are named after `name`,
 * so one CA can sign several. Readable by everyone (mosquitto started as root reads
 * its files as the user "mosquitto").
 */
export function makeCertificates(
  dir: string,
  name = "server",
  notBefore?: string,
): CertificateFiles {
  const f = (file: string) => join(dir, file);
  if (!existsSync(f("ca.pem"))) {
    writeFileSync(f("san.ext"), "subjectAltName=IP:127.0.0.1\n");
    writeFileSync(f("index.txt"), "");
    writeFileSync(f("serial"), "01\n");
    writeFileSync(
      f("ca.cnf"),
      `[ca]\ndefault_ca=d\n[d]\ndatabase=${f("index.txt")}\nnew_certs_dir=${dir}\nserial=${f("serial")}\ndefault_md=sha256\nunique_subject=no\npolicy=p\n[p]\ncommonName=supplied\n`,
    );
    openssl([
      "req",
      "-x509",
      ...subject("test-ca"),
      "-days",
      "2",
      "-keyout",
      f("ca.key"),
      "-out",
      f("ca.pem"),
    ]);
  }
  openssl(["req", ...subject("127.0.0.1"), "-keyout", f(`${name}.key`), "-out", f(`${name}.csr`)]);
  const validity = notBefore
    ? ["-startdate", notBefore, "-enddate", "21000101000000Z"]
    : ["-days", "2"];
  openssl([
    "ca",
    "-batch",
    "-config",
    f("ca.cnf"),
    "-cert",
    f("ca.pem"),
    "-keyfile",
    f("ca.key"),
    "-in",
    f(`${name}.csr`),
    "-out",
    f(`${name}.pem`),
    "-extfile",
    f("san.ext"),
    ...validity,
  ]);
  chmodSync(dir, 0o755);
  for (const file of ["ca.pem", `${name}.pem`, `${name}.key`]) chmodSync(f(file), 0o644);
  return { cafile: f("ca.pem"), certfile: f(`${name}.pem`), keyfile: f(`${name}.key`) };
}

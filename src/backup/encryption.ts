/**
 * The age format through `age-encryption` (typage, by age's author; pure JS on the
 * audited noble libraries, so it runs under Bun and in the compiled binary alike). A
 * passphrase goes through scrypt with age's default work factor (2^18); the payload is
 * ChaCha20-Poly1305 in 64 KiB chunks whose last one is marked, so a file cut short, or
 * changed by one bit, fails to decrypt instead of yielding a shorter backup. The
 * library's failures are told apart here: a wrong passphrase from a damaged file.
 */
import { ClawboxError, errorMessage } from "../errors/index.ts";

/** age's own encryption chunk; handing it whole chunks saves copies. */
const CHUNK = 64 * 1024;

async function* coalesce(source: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  let pending: Uint8Array[] = [];
  let length = 0;
  const flush = () => {
    const out = Buffer.concat(pending, length);
    pending = [];
    length = 0;
    return new Uint8Array(out.buffer, out.byteOffset, out.length);
  };
  for await (const chunk of source) {
    if (chunk.length === 0) continue;
    pending.push(chunk);
    length += chunk.length;
    if (length >= CHUNK) yield flush();
  }
  if (length > 0) yield flush();
}

function toStream(source: AsyncIterable<Uint8Array>): ReadableStream<Uint8Array> {
  const iterator = source[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await iterator.next();
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      } catch (error) {
        controller.error(error);
      }
    },
    async cancel() {
      await iterator.return?.();
    },
  });
}

/** `plain` encrypted to `passphrase`, as a stream of the age file's bytes. */
export async function encryptStream(
  plain: AsyncIterable<Uint8Array>,
  passphrase: string,
): Promise<AsyncIterable<Uint8Array>> {
  const { Encrypter } = await import("age-encryption");
  const encrypter = new Encrypter();
  encrypter.setPassphrase(passphrase);
  return await encrypter.encrypt(toStream(coalesce(plain)));
}

function decryptFailure(file: string, error: unknown): ClawboxError {
  const message = errorMessage(error);
  if (error instanceof ClawboxError) return error;
  if (/no identity matched|incorrect passphrase|failed to decrypt file key/i.test(message))
    return new ClawboxError("BACKUP_PASSPHRASE", `wrong passphrase for ${file}`, {
      hint: "type the passphrase the backup was made with; nothing was changed",
    });
  if (/invalid version line|invalid header|invalid stanza|header/i.test(message))
    return new ClawboxError("BACKUP_INVALID", `${file} is not a clawbox backup (not an age file)`, {
      hint: "name the .age file `clawbox backup create` wrote; nothing was changed",
    });
  return new ClawboxError(
    "BACKUP_INVALID",
    `${file} is damaged or cut short (${message}); nothing was changed`,
    { hint: "use another copy of the backup" },
  );
}

/** The plaintext of the age file `file`; wrong passphrase and damage are ClawboxErrors. */
export async function* decryptFile(file: string, passphrase: string): AsyncGenerator<Uint8Array> {
  const { Decrypter } = await import("age-encryption");
  const decrypter = new Decrypter();
  decrypter.addPassphrase(passphrase);
  let plain: AsyncIterable<Uint8Array>;
  try {
    plain = await decrypter.decrypt(Bun.file(file).stream());
  } catch (error) {
    throw decryptFailure(file, error);
  }
  try {
    for await (const chunk of plain) yield chunk;
  } catch (error) {
    throw decryptFailure(file, error);
  }
}

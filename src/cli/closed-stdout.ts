/**
 * `clawbox … | head`: once the reader of stdout has gone, a write fails with EPIPE,
 * thrown from the write or emitted on the stream. Either way the program stops there,
 * quietly and with exit code 0 (there is no one left to tell), instead of printing a
 * stack with src/ paths. Any other write error is left alone.
 */
const isClosedPipe = (error: unknown): boolean =>
  (error as NodeJS.ErrnoException | undefined)?.code === "EPIPE";

/** A writer for `stream` that ends the process quietly when its reader has gone. */
export function writerQuietOnClosedPipe(
  stream: NodeJS.WriteStream,
  exit: (code: number) => never = (code) => process.exit(code),
): (text: string) => void {
  stream.on("error", (error) => {
    if (isClosedPipe(error)) exit(0);
    throw error;
  });
  return (text) => {
    try {
      stream.write(text);
    } catch (error) {
      if (isClosedPipe(error)) exit(0);
      throw error;
    }
  };
}

import type { Logger } from "./logger.js";

export type Closer = () => Promise<unknown> | unknown;

/**
 * Runs the closers (in reverse registration order) once on SIGINT/SIGTERM, then exits.
 * A second signal, or the deadline passing, exits at once.
 */
export function handleShutdown(logger: Logger, closers: Closer[], deadlineMs = 10_000): void {
  let closing = false;
  const stop = async (signal: string) => {
    if (closing) process.exit(1);
    closing = true;
    logger.info({ signal }, "shutting down");
    const timer = setTimeout(() => {
      logger.error("shutdown deadline passed, exiting");
      process.exit(1);
    }, deadlineMs);
    timer.unref();
    let code = 0;
    for (const close of [...closers].reverse()) {
      try {
        await close();
      } catch (error) {
        code = 1;
        logger.error({ err: error }, "error while shutting down");
      }
    }
    logger.info("stopped");
    process.exit(code);
  };
  process.once("SIGINT", () => void stop("SIGINT"));
  process.once("SIGTERM", () => void stop("SIGTERM"));
}

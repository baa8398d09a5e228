import { type Logger, pino } from "pino";

export type { Logger } from "pino";

/** A pino logger on stdout, or appending to `file` when one is given. */
export function createLogger(options: { level?: string; name?: string; file?: string | undefined } = {}): Logger {
  const settings = {
    level: options.level ?? "info",
    ...(options.name ? { name: options.name } : {}),
    redact: { paths: ["req.headers.authorization", "req.headers.cookie", 'req.headers["x-hasura-admin-secret"]'], remove: true },
  };
  return options.file ? pino(settings, pino.destination({ dest: options.file, mkdir: true, sync: false })) : pino(settings);
}

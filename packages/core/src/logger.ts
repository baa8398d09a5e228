import { type Logger, pino } from "pino";

export type { Logger } from "pino";

export function createLogger(options: { level?: string; name?: string } = {}): Logger {
  return pino({
    level: options.level ?? "info",
    ...(options.name ? { name: options.name } : {}),
    redact: { paths: ["req.headers.authorization", "req.headers.cookie", 'req.headers["x-hasura-admin-secret"]'], remove: true },
  });
}

import { type Logger, pino } from "pino";
import pretty from "pino-pretty";

export type { Logger } from "pino";

/** `auto` is human-readable lines on a terminal and JSON lines otherwise (pipes, files, log collectors). */
export const LOG_FORMATS = ["auto", "pretty", "json"] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export interface LoggerOptions {
  level?: string;
  name?: string;
  /** Append JSON lines to this file instead of writing to stdout. */
  file?: string | undefined;
  format?: LogFormat;
}

/** Whether `format` comes out human-readable on stdout here. */
export function isPrettyFormat(format: LogFormat = "auto", stdoutIsTty = process.stdout.isTTY === true): boolean {
  return format === "pretty" || (format === "auto" && stdoutIsTty);
}

/** A pino logger on stdout (pretty or JSON lines, see LogFormat), or appending JSON lines to `file`. */
export function createLogger(options: LoggerOptions = {}): Logger {
  const settings = {
    level: options.level ?? "info",
    ...(options.name ? { name: options.name } : {}),
    redact: { paths: ["req.headers.authorization", "req.headers.cookie", 'req.headers["x-hasura-admin-secret"]'], remove: true },
  };
  if (options.file) return pino(settings, pino.destination({ dest: options.file, mkdir: true, sync: false }));
  if (isPrettyFormat(options.format)) {
    // In-process and synchronous: no transport worker to start, and nothing lost at exit.
    return pino(
      settings,
      pretty({ sync: true, colorize: process.stdout.isTTY === true, translateTime: "SYS:HH:MM:ss.l", ignore: "pid,hostname" }),
    );
  }
  return pino(settings);
}

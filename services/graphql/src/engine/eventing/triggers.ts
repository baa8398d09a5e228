/**
 * The event triggers of a source as the engine serves them, read from their metadata (Hasura's
 * EventTriggerConf: https://hasura.io/docs/latest/api-reference/syntax-defs/#eventtrigger):
 * which operations fire and on which columns, what the payload carries, where it is sent, with
 * which headers, and how often it is tried.
 */
import type { Metadata, QualifiedTable } from "../metadata/types.js";
import { transformProblem } from "../metadata/unserved.js";
import { type Transforms, transformsOf } from "../transforms/config.js";
import { type HeaderConf, parseHeaders } from "./webhook.js";

export type Op = "INSERT" | "UPDATE" | "DELETE";

/** `"*"` is every column. */
export type Columns = "*" | string[];

export interface OpSpec {
  /** For UPDATE: the columns whose change fires the trigger. */
  columns: Columns;
  /** The columns the payload's `old` and `new` carry. */
  payload: Columns;
}

export interface RetryConf {
  numRetries: number;
  intervalSec: number;
  timeoutSec: number;
}

/** `cleanup_config` (cleanup.ts), with Hasura's defaults. */
export interface CleanupConfig {
  schedule: string;
  clearOlderThanHours: number;
  batchSize: number;
  timeoutSec: number;
  cleanInvocationLogs: boolean;
  paused: boolean;
}

export interface EventTrigger {
  name: string;
  table: QualifiedTable;
  ops: Partial<Record<Op, OpSpec>>;
  enableManual: boolean;
  /** `webhook` (may hold `{{VAR}}` templates) or the variable named by `webhook_from_env`. */
  webhook: { url: string } | { fromEnv: string };
  headers: HeaderConf[];
  retry: RetryConf;
  cleanup?: CleanupConfig;
  /** Request and response transforms (REST connectors: https://hasura.io/docs/latest/event-triggers/rest-connectors/). */
  transforms: Transforms;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

function columns(value: unknown): Columns {
  return Array.isArray(value) ? value.filter((c): c is string => typeof c === "string") : "*";
}

const number = (value: unknown, fallback: number) => (typeof value === "number" && Number.isFinite(value) ? value : fallback);

function cleanup(value: unknown): CleanupConfig | undefined {
  if (!isObject(value) || typeof value.schedule !== "string" || typeof value.clear_older_than !== "number") return undefined;
  return {
    schedule: value.schedule,
    clearOlderThanHours: value.clear_older_than,
    batchSize: number(value.batch_size, 10_000),
    timeoutSec: number(value.timeout, 60),
    cleanInvocationLogs: value.clean_invocation_logs === true,
    paused: value.paused === true,
  };
}

export function parseTrigger(table: QualifiedTable, conf: Json): EventTrigger {
  const definition = isObject(conf.definition) ? conf.definition : {};
  const ops: Partial<Record<Op, OpSpec>> = {};
  for (const op of ["insert", "update", "delete"] as const) {
    const spec = definition[op];
    if (isObject(spec)) ops[op.toUpperCase() as Op] = { columns: columns(spec.columns), payload: columns(spec.payload) };
  }
  const retry = isObject(conf.retry_conf) ? conf.retry_conf : {};
  const cleanupConfig = cleanup(conf.cleanup_config);
  const transforms = transformsOf(conf);
  return {
    name: String(conf.name),
    table,
    ops,
    enableManual: definition.enable_manual === true,
    webhook: typeof conf.webhook_from_env === "string" ? { fromEnv: conf.webhook_from_env } : { url: String(conf.webhook ?? "") },
    headers: parseHeaders(conf.headers),
    retry: {
      numRetries: number(retry.num_retries, 0),
      intervalSec: number(retry.interval_sec, 10),
      timeoutSec: number(retry.timeout_sec, 60),
    },
    ...(cleanupConfig ? { cleanup: cleanupConfig } : {}),
    // Triggers whose transforms cannot be read are not served (eventTriggersOf).
    transforms: "transforms" in transforms ? transforms.transforms : {},
  };
}

/** The event triggers of `source` (the default one), by name. */
export function eventTriggersOf(metadata: Metadata, source: string): Map<string, EventTrigger> {
  const found = new Map<string, EventTrigger>();
  const tables = metadata.sources.find((s) => s.name === source)?.tables ?? [];
  for (const table of tables) {
    for (const conf of table.event_triggers ?? []) {
      // Triggers whose transforms cannot be read are not served (metadata/unserved.ts reports them).
      if (isObject(conf) && typeof conf.name === "string" && !transformProblem(conf)) found.set(conf.name, parseTrigger(table.table, conf));
    }
  }
  return found;
}

/**
 * Event trigger and cron trigger commands, with Hasura's argument shapes and errors
 * (server/src-lib/Hasura/RQL/DDL/EventTrigger.hs, server/src-lib/Hasura/RQL/DDL/ScheduledTrigger.hs
 * and CreateCronTrigger's parser in server/src-lib/Hasura/RQL/Types/ScheduledTrigger.hs). They
 * edit the stored metadata; the runtime then installs the capture of event triggers
 * (eventing/capture.ts) and materialises the runs of cron triggers (eventing/cron.ts).
 */
import {
  cronTriggerExists,
  cronTriggerNotFound,
  eventTriggerExists,
  eventTriggerNotFound,
  triggerColumnNotFound,
  triggerTableChanged,
} from "../errors/index.js";
import { DEFAULT_SCHEDULED_RETRY, retryConfJson, scheduleProblem } from "../eventing/cron.js";
import {
  argsObject,
  asArray,
  at,
  isObject,
  type Json,
  optionalBoolean,
  parseFailed,
  qualifiedTable,
  requireKey,
  requireString,
  sameTable,
  sourceName,
} from "./args.js";
import type { CatalogView } from "./catalog-view.js";
import { ARGS, findSource, type Operation, requireTable, setOrDrop, success, withSource } from "./edit.js";
import { checkTransforms } from "./transform-checks.js";
import type { Metadata, QualifiedTable, SourceMetadata } from "./types.js";
import { tableList, topList, withTopList } from "./unserved.js";

const OPERATIONS = ["insert", "update", "delete"] as const;

/** Hasura's default retry_conf for an event trigger (defaultRetryConf). */
const DEFAULT_RETRY_CONF = { num_retries: 0, interval_sec: 10, timeout_sec: 60 };

/** Keys of create_event_trigger that metadata keeps beside `definition` and `retry_conf`, when given. */
const TRIGGER_KEYS = [
  "webhook",
  "webhook_from_env",
  "headers",
  "request_transform",
  "response_transform",
  "cleanup_config",
  "trigger_on_replication",
] as const;

const given = (value: unknown) => value !== undefined && value !== null;

/** CreateEventTriggerQuery's own checks, in the order its parser makes them. */
function checkTriggerArgs(args: Json, name: string): void {
  if (!/^[A-Za-z0-9_-]*$/.test(name)) throw parseFailed("only alphanumeric and underscore and hyphens allowed for name", ARGS);
  if (name.length > 42) throw parseFailed("event trigger name can be at most 42 characters", ARGS);
  const enableManual = optionalBoolean(args, "enable_manual", ARGS) ?? false;
  if (!OPERATIONS.some((op) => given(args[op])) && !enableManual) {
    throw parseFailed("atleast one amongst insert/update/delete/enable_manual spec must be provided", ARGS);
  }
  if (given(args.webhook) && given(args.webhook_from_env))
    throw parseFailed("only one of webhook or webhook_from_env should be given", ARGS);
  if (!given(args.webhook) && !given(args.webhook_from_env)) throw parseFailed("must provide webhook or webhook_from_env", ARGS);
  for (const op of OPERATIONS) {
    const spec = args[op];
    if (!isObject(spec)) continue;
    if (Array.isArray(spec.columns) && spec.columns.length === 0) throw parseFailed("found empty column specification", ARGS);
    if (Array.isArray(spec.payload) && spec.payload.length === 0) throw parseFailed("found empty payload specification", ARGS);
  }
  checkTransforms(args, ARGS);
}

/** Where the trigger of that name is, in any table of the source. */
function findTrigger(source: SourceMetadata, name: string): QualifiedTable | undefined {
  return source.tables.find((t) => tableList(t, "event_triggers").some((e) => e.name === name))?.table;
}

/** Each `columns` list of an operation must name columns of the table (`*` is all of them). */
function checkColumns(args: Json, table: QualifiedTable, catalog: CatalogView): void {
  const columns = new Set(catalog.columns(table.schema, table.name) ?? []);
  for (const op of OPERATIONS) {
    const spec = args[op];
    if (!isObject(spec) || !Array.isArray(spec.columns)) continue;
    for (const column of spec.columns) {
      if (typeof column === "string" && !columns.has(column)) {
        throw triggerColumnNotFound(column);
      }
    }
  }
}

/** The trigger as metadata stores it (Hasura's EventTriggerConf). */
function triggerConf(args: Json, name: string): Json {
  const definition: Json = { enable_manual: optionalBoolean(args, "enable_manual", ARGS) ?? false };
  for (const op of OPERATIONS) if (given(args[op])) definition[op] = args[op];
  const conf: Json = { name, definition, retry_conf: given(args.retry_conf) ? args.retry_conf : DEFAULT_RETRY_CONF };
  for (const key of TRIGGER_KEYS) if (given(args[key])) conf[key] = args[key];
  return conf;
}

function mapTriggers(metadata: Metadata, source: string, update: (table: QualifiedTable, triggers: Json[]) => Json[]): Metadata {
  return withSource(metadata, source, (s) => ({
    ...s,
    tables: s.tables.map((t) => {
      const before = tableList(t, "event_triggers");
      const after = update(t.table, before);
      return after === before ? t : setOrDrop(t, "event_triggers", after);
    }),
  }));
}

/** pg_create_event_trigger (legacy create_event_trigger): adds, or with `replace` replaces, a trigger. */
export const createEventTrigger: Operation = (metadata, raw, catalog) => {
  const args = argsObject(raw, ARGS);
  const source = sourceName(args, ARGS);
  const name = requireString(args, "name", ARGS);
  const table = qualifiedTable(requireKey(args, "table", ARGS), at(ARGS, "table"));
  checkTriggerArgs(args, name);
  requireTable(metadata, source, table);
  const replace = optionalBoolean(args, "replace", ARGS) ?? false;
  const existing = findTrigger(findSource(metadata, source), name);
  if (replace) {
    if (!existing) throw eventTriggerNotFound(name);
    if (!sameTable(existing, table)) throw triggerTableChanged();
  }
  checkColumns(args, table, catalog);
  if (!replace && existing) throw eventTriggerExists(name);
  const conf = triggerConf(args, name);
  return success(
    mapTriggers(metadata, source, (t, triggers) => {
      if (!sameTable(t, table)) return triggers;
      return replace ? triggers.map((e) => (e.name === name ? conf : e)) : [...triggers, conf];
    }),
  );
};

/** pg_delete_event_trigger (legacy delete_event_trigger): `{name, source?}`. */
export const deleteEventTrigger: Operation = (metadata, raw) => {
  const args = argsObject(raw, ARGS);
  const source = sourceName(args, ARGS);
  const name = requireString(args, "name", ARGS);
  const table = findTrigger(findSource(metadata, source), name);
  if (!table) throw eventTriggerNotFound(name);
  return success(
    mapTriggers(metadata, source, (t, triggers) => (sameTable(t, table) ? triggers.filter((e) => e.name !== name) : triggers)),
  );
};

/** The keys of create_cron_trigger that metadata keeps, in Hasura's order (CronTriggerMetadata). */
const CRON_KEYS = [
  "name",
  "webhook",
  "schedule",
  "payload",
  "retry_conf",
  "headers",
  "include_in_metadata",
  "comment",
  "request_transform",
  "response_transform",
] as const;

/** A scheduled trigger's `retry_conf` (RetryConfST): non-negative numbers, each optional. */
export function checkScheduledRetryConf(args: Json): void {
  if (!given(args.retry_conf)) return;
  const path = at(ARGS, "retry_conf");
  const conf = argsObject(args.retry_conf, path);
  for (const key of Object.keys(DEFAULT_SCHEDULED_RETRY)) {
    const value = conf[key];
    if (value === undefined || value === null) continue;
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0)
      throw parseFailed(`${key} must be a non-negative number`, at(path, key));
  }
}

const isDefaultRetry = (conf: unknown) => JSON.stringify(retryConfJson(conf)) === JSON.stringify(DEFAULT_SCHEDULED_RETRY);

/** create_cron_trigger: adds a cron trigger, or with `replace` replaces an existing one. */
export const createCronTrigger: Operation = (metadata, raw) => {
  const args = argsObject(raw, ARGS);
  const name = requireString(args, "name", ARGS);
  requireString(args, "webhook", ARGS);
  const schedule = requireString(args, "schedule", ARGS);
  const problem = scheduleProblem(schedule);
  if (problem !== null) throw parseFailed(`invalid cron expression "${schedule}": ${problem}`, at(ARGS, "schedule"));
  requireKey(args, "include_in_metadata", ARGS);
  optionalBoolean(args, "include_in_metadata", ARGS);
  if (given(args.headers)) asArray(args.headers, at(ARGS, "headers"));
  checkScheduledRetryConf(args);
  checkTransforms(args, ARGS);
  const replace = optionalBoolean(args, "replace", ARGS) ?? false;
  const triggers = topList(metadata, "cron_triggers");
  const exists = triggers.some((t) => t.name === name);
  if (replace && !exists) throw cronTriggerNotFound(name);
  if (!replace && exists) throw cronTriggerExists(name);
  const trigger: Json = {};
  for (const key of CRON_KEYS) if (given(args[key])) trigger[key] = args[key];
  // Metadata leaves out the default retry_conf, as Hasura's export does.
  if (trigger.retry_conf !== undefined && isDefaultRetry(trigger.retry_conf)) delete trigger.retry_conf;
  return success(
    withTopList(metadata, "cron_triggers", exists ? triggers.map((t) => (t.name === name ? trigger : t)) : [...triggers, trigger]),
  );
};

/**
 * get_cron_triggers: every cron trigger, those left out of export_metadata too, as Hasura's
 * CronTriggerMetadata writes them (headers and retry_conf always, with their defaults).
 */
export const getCronTriggers: Operation = (metadata) => ({
  metadata,
  result: {
    cron_triggers: topList(metadata, "cron_triggers").map((t) => {
      const { retry_conf, headers, ...rest } = t;
      return { ...rest, retry_conf: retryConfJson(retry_conf), headers: Array.isArray(headers) ? headers : [] };
    }),
  },
});
export const deleteCronTrigger: Operation = (metadata, raw) => {
  const name = requireString(argsObject(raw, ARGS), "name", ARGS);
  const triggers = topList(metadata, "cron_triggers");
  if (!triggers.some((t) => t.name === name)) throw cronTriggerNotFound(name);
  return success(
    withTopList(
      metadata,
      "cron_triggers",
      triggers.filter((t) => t.name !== name),
    ),
  );
};

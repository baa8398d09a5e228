/**
 * Metadata this engine keeps but does not serve yet: remote relationships other than a table's to
 * a remote schema (remote/relationships.ts serves those), event triggers and cron triggers whose
 * request or response transforms cannot be read (the others are served, eventing/), inherited
 * roles and REST endpoints. They are stored and
 * exported as given (replace_metadata, a metadata directory, or the commands in the
 * unserved-*.ts files) and each one is reported as an inconsistent object, with the `type` and
 * `name` Hasura gives it (`moiTypeName` / `moiName` in Hasura's
 * server/src-lib/Hasura/RQL/Types/Metadata/Object.hs) and the definition Hasura reports
 * (server/src-lib/Hasura/RQL/DDL/Schema/Cache.hs). Being unserved never makes replace_metadata
 * fail; drop_inconsistent_metadata removes them, as Hasura drops what it reports. Actions whose
 * types resolve and valid custom types are served (model/build-actions.ts) and not reported;
 * invalid ones are reported with Hasura's reason.
 *
 * Other top-level keys (query_collections, allowlist, network, backend_configs, opentelemetry,
 * graphql_schema_introspection, metrics_config, ...) are kept as they are and not reported:
 * Hasura reports none of them as metadata objects of their own, and query collections and the
 * allow list change nothing unless HASURA_GRAPHQL_ENABLE_ALLOWLIST is set.
 */

import { scheduleProblem } from "../eventing/cron.js";
import { remoteRelationshipDefinition, toRemoteSchema } from "../remote/relationships.js";
import { transformsOf } from "../transforms/config.js";
import { isObject, type Json, tableLabel } from "./args.js";
import type { CatalogView } from "./catalog-view.js";
import type { InconsistentObject } from "./consistency.js";
import { actionTypeProblem, customTypeProblems, customTypesReason, reportedAction, reportedCustomTypes } from "./custom-types.js";
import { setOrDrop } from "./edit.js";
import type { Metadata, TableMetadata } from "./types.js";

/** Top-level lists of unserved objects, with Hasura's object type for their entries. */
const TOP_LISTS = [
  { key: "actions", type: "action", what: "actions" },
  { key: "cron_triggers", type: "cron_trigger", what: "cron triggers" },
  { key: "inherited_roles", type: "inherited_role", what: "inherited roles" },
  { key: "rest_endpoints", type: "rest_endpoint", what: "REST endpoints" },
] as const;

/** Table-level lists of objects not served (event triggers only when their transforms cannot be read). */
const TABLE_LISTS = [
  { key: "remote_relationships", type: "remote_relationship", what: "remote relationships" },
  { key: "event_triggers", type: "event_trigger", what: "event triggers" },
] as const;

/**
 * Why an event or cron trigger's request or response transform cannot be read (a shape Hasura's
 * metadata decoding refuses, kept by replace_metadata), or null: such a trigger is not served.
 */
export function transformProblem(trigger: Json): string | null {
  const read = transformsOf(trigger);
  return "problem" in read ? `Inconsistent object: invalid transform: ${read.problem}` : null;
}

/** The reason every unserved object is reported with. */
export function notServed(what: string): string {
  return `Inconsistent object: ${what} are not supported by this engine yet; kept in metadata but not served`;
}

/** A top-level list of metadata (`actions`, `remote_schemas`, ...): its object entries. */
export function topList(metadata: Metadata, key: string): Json[] {
  const value = metadata[key];
  return Array.isArray(value) ? value.filter(isObject) : [];
}

/** Metadata with the list set, or without the key when the list is empty. */
export function withTopList(metadata: Metadata, key: string, list: Json[]): Metadata {
  return setOrDrop(metadata as Json, key, list) as Metadata;
}

/** A table-level list (`remote_relationships`, `event_triggers`): its object entries. */
export function tableList(table: TableMetadata, key: "remote_relationships" | "event_triggers"): Json[] {
  const value = table[key];
  return Array.isArray(value) ? value.filter(isObject) : [];
}

function nameOf(entry: Json): string {
  return typeof entry.name === "string" ? entry.name : typeof entry.role_name === "string" ? entry.role_name : "";
}

function hasCustomTypes(metadata: Metadata): boolean {
  const types = metadata.custom_types;
  return isObject(types) && Object.values(types).some((list) => Array.isArray(list) && list.length > 0);
}

/** What Hasura reports as an object's definition. */
function topDefinition(type: string, entry: Json): unknown {
  // Hasura reports an action as its create_action arguments (CreateAction), defaults spelled out.
  if (type === "action") return reportedAction(entry);
  return entry;
}

function topName(type: string, entry: Json): string {
  return type === "inherited_role" ? `inherited_role inherited role ${nameOf(entry)}` : `${type} ${nameOf(entry)}`;
}

/** Hasura's reasons for the metadata's custom types (none without a catalog to check them against). */
function typeProblems(metadata: Metadata, catalog: CatalogView | undefined): string[] {
  return catalog ? customTypeProblems(metadata.custom_types, metadata, catalog) : [];
}

/**
 * Why an action is not served: Hasura's reason when its types do not resolve, or when the custom
 * types (`types`: their problems) are invalid; null when it is served.
 */
function actionProblem(entry: Json, metadata: Metadata, catalog: CatalogView | undefined, types: string[]): string | null {
  const definition = isObject(entry.definition) ? entry.definition : {};
  const problem = catalog ? actionTypeProblem(definition, metadata.custom_types, catalog, nameOf(entry)) : null;
  if (problem !== null) return `Inconsistent object: ${problem}`;
  if (types.length > 0) return `Inconsistent object: ${customTypesReason(types)}`;
  return null;
}

/** Why a cron trigger is not served (a transform that cannot be read, or a schedule that is not a cron expression), or null. */
function cronProblem(entry: Json): string | null {
  const transform = transformProblem(entry);
  if (transform !== null) return transform;
  const schedule = typeof entry.schedule === "string" ? entry.schedule : "";
  const problem = scheduleProblem(schedule);
  return problem === null ? null : `Inconsistent object: invalid cron expression "${schedule}": ${problem}`;
}

/** A remote schema's relationships to other remote schemas, named as Hasura's moiName names them. */
function remoteSchemaParts(metadata: Metadata): InconsistentObject[] {
  const found: InconsistentObject[] = [];
  for (const schema of topList(metadata, "remote_schemas")) {
    const name = nameOf(schema);
    for (const group of Array.isArray(schema.remote_relationships) ? schema.remote_relationships.filter(isObject) : [])
      for (const rel of Array.isArray(group.relationships) ? group.relationships.filter(isObject) : [])
        found.push({
          definition: { remote_schema: name, type_name: group.type_name, ...rel },
          name: `remote_relationship ${nameOf(rel)} on type ${String(group.type_name)} in remote schema ${name}`,
          reason: notServed("remote relationships"),
          type: "remote_relationship",
        });
  }
  return found;
}

/** Every unserved object in `metadata`, reported as Hasura reports an inconsistent object. */
export function unservedInconsistencies(metadata: Metadata, catalog?: CatalogView): InconsistentObject[] {
  const found: InconsistentObject[] = remoteSchemaParts(metadata);
  const problems = typeProblems(metadata, catalog);
  for (const { key, type, what } of TOP_LISTS) {
    for (const entry of topList(metadata, key)) {
      const reason =
        type === "action"
          ? actionProblem(entry, metadata, catalog, problems)
          : type === "cron_trigger"
            ? cronProblem(entry)
            : notServed(what);
      if (reason !== null) found.push({ definition: topDefinition(type, entry), name: topName(type, entry), reason, type });
    }
  }
  if (hasCustomTypes(metadata)) {
    // Custom types Hasura would refuse are reported with its reason; valid ones are served.
    if (problems.length > 0)
      found.push({
        definition: reportedCustomTypes(metadata.custom_types),
        name: "custom_types custom_types",
        reason: `Inconsistent object: ${customTypesReason(problems)}`,
        type: "custom_types",
      });
  }
  for (const source of metadata.sources) {
    for (const table of source.tables) {
      const where = `in table ${tableLabel(table.table)} in source ${source.name}`;
      for (const { key, type, what } of TABLE_LISTS) {
        for (const entry of tableList(table, key)) {
          // Relationships to remote schemas are served (remote/relationships.ts reports those that do not resolve).
          if (type === "remote_relationship" && toRemoteSchema(entry)) continue;
          // Event triggers are served, unless their transforms cannot be read.
          const transform = type === "event_trigger" ? transformProblem(entry) : null;
          if (type === "event_trigger" && transform === null) continue;
          const definition =
            type === "event_trigger"
              ? { table: table.table, configuration: entry }
              : remoteRelationshipDefinition(entry, source.name, table.table);
          const reason = transform ?? notServed(what);
          found.push({ definition, name: `${type} ${nameOf(entry)} ${where}`, reason, type });
        }
      }
    }
  }
  return found;
}

/** drop_inconsistent_metadata's share: metadata without any unserved object (served actions and custom types stay). */
export function dropUnserved(metadata: Metadata, catalog: CatalogView): Metadata {
  let next = metadata;
  const problems = typeProblems(metadata, catalog);
  for (const { key, type } of TOP_LISTS) {
    if (next[key] === undefined) continue;
    const kept =
      type === "action"
        ? topList(next, key).filter((a) => actionProblem(a, metadata, catalog, problems) === null)
        : type === "cron_trigger"
          ? topList(next, key).filter((t) => cronProblem(t) === null)
          : [];
    next = withTopList(next, key, kept);
  }
  // Remote schemas stay (their own inconsistencies are dropped apart); their relationships to other remote schemas go.
  if (next.remote_schemas !== undefined)
    next = withTopList(
      next,
      "remote_schemas",
      topList(next, "remote_schemas").map((r) => setOrDrop(r, "remote_relationships", undefined)),
    );
  if (next.custom_types !== undefined && hasCustomTypes(next) && problems.length > 0) next = setOrDrop(next, "custom_types", undefined);
  const sources = next.sources.map((source) => ({
    ...source,
    tables: source.tables.map((table) => {
      let t = table;
      for (const { key } of TABLE_LISTS)
        if (t[key] !== undefined)
          t = setOrDrop(
            t,
            key,
            tableList(t, key).filter((entry) =>
              key === "remote_relationships" ? toRemoteSchema(entry) : transformProblem(entry) === null,
            ),
          );
      return t;
    }),
  }));
  return { ...next, sources };
}

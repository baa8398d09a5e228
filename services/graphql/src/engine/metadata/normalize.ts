/**
 * One canonical form for metadata, whatever spelling it arrived in (v1/v2 `tables.yaml`, a v3
 * export, an API call): table names are always `{schema, name}`, single-column foreign keys
 * are a plain column name, custom column names live in `column_config` (mirrored in
 * `custom_column_names`, as Hasura exports them), and empty lists and objects are left out.
 * Comparing two loads, or an export with an import, is then plain deep equality.
 */
import { normalizeApiLimitsKey } from "./api-limits.js";
import { asArray, asObject, at, isObject, type Json, parseFailed, qualifiedTable, requireKey, requireString } from "./args.js";
import type {
  ArrayRelationship,
  FunctionMetadata,
  Metadata,
  ObjectRelationship,
  SourceMetadata,
  TableConfiguration,
  TableMetadata,
} from "./types.js";
import { DEFAULT_SOURCE } from "./types.js";

/** The connection Hasura gives the `default` source of a v1/v2 project (from the server's env). */
export const DEFAULT_SOURCE_CONFIGURATION = {
  connection_info: {
    database_url: { from_env: "HASURA_GRAPHQL_DATABASE_URL" },
    isolation_level: "read-committed",
    use_prepared_statements: true,
  },
};

function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (Array.isArray(value)) return value.length === 0;
  return isObject(value) && Object.keys(value).length === 0;
}

/** Copies `keys` first (in that order), then the rest, dropping empty values. */
function ordered(obj: Json, keys: readonly string[]): Json {
  const out: Json = {};
  for (const key of [...keys, ...Object.keys(obj).filter((k) => !keys.includes(k))]) {
    if (!isEmpty(obj[key])) out[key] = obj[key];
  }
  return out;
}

function columnList(value: unknown, path: string): string[] {
  const list = typeof value === "string" ? [value] : asArray(value, path);
  return list.map((c, i) => {
    if (typeof c !== "string") throw parseFailed("expected String", at(path, i));
    return c;
  });
}

/** `{table, column}` / `{table, columns}` as Hasura exports it: `column` for one, `columns` for several. */
function remoteForeignKey(value: Json, path: string): { table: { schema: string; name: string }; column?: string; columns?: string[] } {
  const table = qualifiedTable(requireKey(value, "table", path), at(path, "table"));
  const raw = value.columns ?? value.column;
  if (raw === undefined) throw parseFailed(`key "column" not found`, path);
  const columns = columnList(raw, at(path, value.columns !== undefined ? "columns" : "column"));
  if (columns.length === 0) throw parseFailed("expected a non-empty list of columns", path);
  return columns.length === 1 ? { table, column: columns[0] as string } : { table, columns };
}

function manualConfiguration(value: unknown, path: string): Json {
  const obj = asObject(value, path);
  const mapping = asObject(requireKey(obj, "column_mapping", path), at(path, "column_mapping"));
  for (const [key, column] of Object.entries(mapping)) {
    if (typeof column !== "string") throw parseFailed("expected String", at(at(path, "column_mapping"), key));
  }
  return ordered(
    { ...obj, remote_table: qualifiedTable(requireKey(obj, "remote_table", path), at(path, "remote_table")), column_mapping: mapping },
    ["remote_table", "column_mapping", "insertion_order"],
  );
}

function relationshipUsing(value: unknown, kind: "object" | "array", path: string): Json {
  const using = asObject(value, path);
  const fk = using.foreign_key_constraint_on;
  const manual = using.manual_configuration;
  const fragment = "one of foreign_key_constraint_on/manual_configuration should be present";
  if (fk === undefined && manual === undefined) throw parseFailed(`atleast ${fragment}`, path);
  if (fk !== undefined && manual !== undefined) throw parseFailed(`only ${fragment}`, path);
  if (manual !== undefined) return { manual_configuration: manualConfiguration(manual, at(path, "manual_configuration")) };
  const fkPath = at(path, "foreign_key_constraint_on");
  // An array relationship's key is always on the other table (Hasura's wording for anything else).
  if (kind === "array" && !isObject(fk)) throw parseFailed("Expecting object { table, columns }.", fkPath);
  if (kind === "array" || isObject(fk)) return { foreign_key_constraint_on: remoteForeignKey(asObject(fk, fkPath), fkPath) };
  const columns = columnList(fk, fkPath);
  if (columns.length === 0) throw parseFailed("expected a non-empty list of columns", fkPath);
  return { foreign_key_constraint_on: columns.length === 1 ? columns[0] : columns };
}

export function normalizeRelationship(value: unknown, kind: "object", path: string): ObjectRelationship;
export function normalizeRelationship(value: unknown, kind: "array", path: string): ArrayRelationship;
export function normalizeRelationship(value: unknown, kind: "object" | "array", path: string): ObjectRelationship | ArrayRelationship {
  const obj = asObject(value, path);
  const name = requireString(obj, "name", path);
  const using = relationshipUsing(requireKey(obj, "using", path), kind, at(path, "using"));
  return ordered({ ...obj, name, using }, ["name", "using", "comment"]) as unknown as ObjectRelationship;
}

export function normalizeConfiguration(value: unknown, path: string): TableConfiguration | undefined {
  if (value === undefined || value === null) return undefined;
  const config = asObject(value, path);
  const columnConfig: Record<string, Json> = {};
  for (const [column, entry] of Object.entries(asObject(config.column_config ?? {}, at(path, "column_config")))) {
    const cleaned = ordered(asObject(entry, at(at(path, "column_config"), column)), ["custom_name", "comment"]);
    if (!isEmpty(cleaned)) columnConfig[column] = cleaned;
  }
  for (const [column, name] of Object.entries(asObject(config.custom_column_names ?? {}, at(path, "custom_column_names")))) {
    if (typeof name === "string") columnConfig[column] = { ...columnConfig[column], custom_name: name };
  }
  const customNames: Record<string, string> = {};
  for (const [column, entry] of Object.entries(columnConfig)) {
    if (typeof entry.custom_name === "string") customNames[column] = entry.custom_name;
  }
  const rootFields: Json = {};
  for (const [field, name] of Object.entries(asObject(config.custom_root_fields ?? {}, at(path, "custom_root_fields")))) {
    if (name !== null && name !== undefined) rootFields[field] = name;
  }
  const out = ordered({ ...config, column_config: columnConfig, custom_column_names: customNames, custom_root_fields: rootFields }, [
    "custom_name",
    "custom_root_fields",
    "column_config",
    "custom_column_names",
    "comment",
  ]);
  return isEmpty(out) ? undefined : (out as TableConfiguration);
}

function normalizeComputedField(value: unknown, path: string): Json {
  const obj = asObject(value, path);
  const name = requireString(obj, "name", path);
  const definition = asObject(requireKey(obj, "definition", path), at(path, "definition"));
  const fn = qualifiedTable(requireKey(definition, "function", at(path, "definition")), at(at(path, "definition"), "function"));
  return ordered(
    { ...obj, name, definition: ordered({ ...definition, function: fn }, ["function", "table_argument", "session_argument"]) },
    ["name", "definition", "comment"],
  );
}

const TABLE_KEYS = [
  "table",
  "configuration",
  "is_enum",
  "object_relationships",
  "array_relationships",
  "computed_fields",
  "remote_relationships",
  "insert_permissions",
  "select_permissions",
  "update_permissions",
  "delete_permissions",
  "event_triggers",
] as const;

function list(obj: Json, key: string, path: string): unknown[] {
  return obj[key] === undefined || obj[key] === null ? [] : asArray(obj[key], at(path, key));
}

export function normalizeTable(value: unknown, path: string): TableMetadata {
  const obj = asObject(value, path);
  const table = qualifiedTable(requireKey(obj, "table", path), at(path, "table"));
  const objectRels = list(obj, "object_relationships", path).map((r, i) =>
    normalizeRelationship(r, "object", at(at(path, "object_relationships"), i)),
  );
  const arrayRels = list(obj, "array_relationships", path).map((r, i) =>
    normalizeRelationship(r, "array", at(at(path, "array_relationships"), i)),
  );
  const computed = list(obj, "computed_fields", path).map((c, i) => normalizeComputedField(c, at(at(path, "computed_fields"), i)));
  const normalized = {
    ...obj,
    table,
    configuration: normalizeConfiguration(obj.configuration, at(path, "configuration")),
    is_enum: obj.is_enum === true ? true : undefined,
    object_relationships: objectRels,
    array_relationships: arrayRels,
    computed_fields: computed,
  };
  return ordered(normalized, TABLE_KEYS) as unknown as TableMetadata;
}

export function normalizeFunction(value: unknown, path: string): FunctionMetadata {
  if (typeof value === "string") return { function: { schema: "public", name: value } };
  const obj = asObject(value, path);
  // v1 wrote a tracked function as the bare `{schema, name}`.
  if (obj.function === undefined) return { function: qualifiedTable(obj, path) };
  const fn = qualifiedTable(obj.function, at(path, "function"));
  return ordered({ ...obj, function: fn }, ["function", "configuration", "permissions", "comment"]) as FunctionMetadata;
}

function normalizeSource(value: unknown, path: string): SourceMetadata {
  const obj = asObject(value, path);
  const name = requireString(obj, "name", path);
  const kind = obj.kind ?? "postgres";
  if (kind !== "postgres" && kind !== "pg") throw parseFailed(`source kind "${String(kind)}" is not supported`, at(path, "kind"));
  const tables = list(obj, "tables", path).map((t, i) => normalizeTable(t, at(at(path, "tables"), i)));
  const functions = list(obj, "functions", path).map((f, i) => normalizeFunction(f, at(at(path, "functions"), i)));
  const configuration = obj.configuration === undefined ? {} : asObject(obj.configuration, at(path, "configuration"));
  const { name: _n, kind: _k, tables: _t, functions: _f, configuration: _c, ...rest } = obj;
  // `tables` and `configuration` are required in Hasura's source shape even when empty.
  return { name, kind: "postgres", tables, ...(functions.length > 0 ? { functions } : {}), configuration, ...ordered(rest, []) };
}

const CUSTOM_TYPE_KEYS = ["scalars", "enums", "input_objects", "objects"];

const TOP_KEYS = ["version", "sources", "remote_schemas", "query_collections", "allowlist", "actions", "custom_types", "cron_triggers"];

/**
 * Accepts metadata as Hasura's export_metadata returns it for any version (1, 2 or 3) and
 * returns version 3: a v1/v2 document becomes one `default` source.
 */
export function normalizeMetadata(value: unknown, path = "$"): Metadata {
  const input = normalizeApiLimitsKey(asObject(value, path), path);
  // A project without actions still has `custom_types: {enums: [], objects: [], ...}`.
  const obj = isObject(input.custom_types) ? { ...input, custom_types: ordered(input.custom_types, CUSTOM_TYPE_KEYS) } : input;
  const version = obj.version ?? 1;
  if (version === 3) {
    const sources = asArray(requireKey(obj, "sources", path), at(path, "sources")).map((s, i) =>
      normalizeSource(s, at(at(path, "sources"), i)),
    );
    return { ...ordered({ ...obj, version: 3 }, TOP_KEYS), version: 3, sources } as Metadata;
  }
  if (version !== 1 && version !== 2) throw parseFailed(`unexpected metadata version: ${JSON.stringify(version)}`, at(path, "version"));
  const { tables, functions, ...rest } = obj;
  const source = normalizeSource(
    {
      name: DEFAULT_SOURCE,
      kind: "postgres",
      tables: tables ?? [],
      functions: functions ?? [],
      configuration: DEFAULT_SOURCE_CONFIGURATION,
    },
    path,
  );
  return { ...ordered({ ...rest, version: 3 }, TOP_KEYS), version: 3, sources: [source] } as Metadata;
}

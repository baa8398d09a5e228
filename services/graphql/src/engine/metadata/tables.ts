/**
 * Table and function tracking, and the per-table settings: enum tables, customisation (custom
 * name, root fields, column names) and computed fields. Argument shapes follow both Hasura's
 * v1 spellings (`{schema, name}`, or a bare table name) and the v2/`pg_` ones (`{table, source,
 * configuration}`), since /v1/query fixtures and /v1/metadata clients send either.
 */
import {
  alreadyTracked,
  alreadyUntracked,
  computedFieldNotFound,
  dependencyError,
  fieldConflict,
  functionAlreadyTracked,
  functionNameTaken,
  functionNotInMetadata,
  inconsistentObject,
  noSuchFunction,
  noSuchTable,
  remoteNodeConflict,
  tableNameTaken,
} from "../errors/index.js";
import { remoteLhsFields } from "../remote/relationships.js";
import {
  argsObject,
  asObject,
  at,
  isObject,
  type Json,
  optionalBoolean,
  optionalString,
  parseFailed,
  qualifiedTable,
  quoted,
  requireKey,
  requireString,
  sameTable,
  sourceName,
} from "./args.js";
import type { CatalogView } from "./catalog-view.js";
import {
  ARGS,
  describeObject,
  fieldNames,
  findSource,
  findTable,
  type Operation,
  requireTable,
  setOrDrop,
  success,
  withSource,
  withTable,
} from "./edit.js";
import { checkComputedField, checkTrackedFunction, permissionsUsingComputedField } from "./functions.js";
import { normalizeConfiguration, normalizeFunction, normalizeTable } from "./normalize.js";
import { boolExpUsesField } from "./permissions.js";
import { permissionsUsing, relationshipsInto, removeRelationship } from "./relationships.js";
import type { ComputedFieldMetadata, FunctionMetadata, QualifiedTable, TableConfiguration, TableMetadata } from "./types.js";
import { tableList } from "./unserved.js";

/** Object args, or a bare name (`args: users` in Hasura's enum fixtures). */
function tableArgs(raw: unknown): Json {
  return typeof raw === "string" ? { table: raw } : argsObject(raw, ARGS);
}

/** `{table}` (v2) or `{schema, name}` (v1). */
function tableOf(args: Json): QualifiedTable {
  return args.table !== undefined ? qualifiedTable(args.table, at(ARGS, "table")) : qualifiedTable(args, ARGS);
}

/** Hasura's names for Postgres types in messages (its PGScalarType texts). */
const TYPE_NAMES: Record<string, string> = { int2: "smallint", int4: "integer", int8: "bigint", float4: "real", bool: "boolean" };

/** Hasura's enum-table rules: a single text primary key and at most one text comment column. */
export function enumTableProblems(table: QualifiedTable, catalog: CatalogView): string[] {
  if (!catalog.primaryKey || !catalog.columnType) return [];
  const typeOf = (column: string) => catalog.columnType?.(table.schema, table.name, column) ?? "unknown";
  const shown = (column: string) => TYPE_NAMES[typeOf(column)] ?? typeOf(column);
  const problems: string[] = [];
  const primaryKey = catalog.primaryKey(table.schema, table.name) ?? [];
  let keyColumn: string | undefined;
  if (primaryKey.length === 0) problems.push("the table must have a primary key");
  else if (primaryKey.length > 1)
    problems.push(`the table’s primary key must not span multiple columns (${[...primaryKey].sort().join(", ")})`);
  else if (typeOf(primaryKey[0] as string) !== "text") {
    problems.push(`the table’s primary key ("${primaryKey[0]}") must have type "text", not type "${shown(primaryKey[0] as string)}"`);
  } else keyColumn = primaryKey[0];
  const others = (catalog.columns(table.schema, table.name) ?? []).filter((c) => c !== keyColumn);
  if (others.length === 1 && typeOf(others[0] as string) !== "text") {
    problems.push(`the table’s comment column ("${others[0]}") must have type "text", not type "${shown(others[0] as string)}"`);
  } else if (others.length > 1) {
    problems.push(
      `the table must have exactly one primary key and optionally one comment column, not ${others.length} columns (${[...others].sort().join(", ")})`,
    );
  }
  return problems;
}

/** Hasura's wording: one reason after "because", several as a bulleted list. */
export function enumProblemsMessage(table: QualifiedTable, problems: readonly string[]): string {
  const reasons =
    problems.length === 1 ? `because ${problems[0]}` : `for the following reasons:\n${problems.map((p) => `  • ${p}\n`).join("")}`;
  return `the table ${quoted(table)} cannot be used as an enum ${reasons}`;
}

function assertEnumTable(table: QualifiedTable, catalog: CatalogView): void {
  const problems = enumTableProblems(table, catalog);
  if (problems.length > 0) throw inconsistentObject(enumProblemsMessage(table, problems));
}

function sameFunctionName(fn: FunctionMetadata, table: QualifiedTable): boolean {
  return sameTable(fn.function, table);
}

export const trackTable: Operation = (metadata, rawArgs, catalog, context) => {
  const args = tableArgs(rawArgs);
  const source = sourceName(args, ARGS);
  const table = tableOf(args);
  const src = findSource(metadata, source);
  if (findTable(src, table)) throw alreadyTracked(table);
  if ((src.functions as FunctionMetadata[] | undefined)?.some((f) => sameFunctionName(f, table))) {
    throw functionNameTaken(table);
  }
  if (!catalog.hasTable(table.schema, table.name)) {
    throw noSuchTable(table);
  }
  // Hasura's checkConflictingNode: the table's own GraphQL name taken by a remote schema's root field.
  const node = table.schema === "public" ? table.name : `${table.schema}_${table.name}`;
  if (context?.remotes?.rootFieldNames().has(node)) throw remoteNodeConflict(node);
  const isEnum = optionalBoolean(args, "is_enum", ARGS) ?? false;
  if (isEnum) assertEnumTable(table, catalog);
  const entry = normalizeTable({ table, configuration: args.configuration, is_enum: isEnum }, ARGS);
  return success(withSource(metadata, source, (s) => ({ ...s, tables: [...s.tables, entry] })));
};

/** Removes a table, and with `cascade` the relationships (and their permissions) that point at it. */
export const untrackTable: Operation = (metadata, rawArgs, catalog) => {
  const args = tableArgs(rawArgs);
  const source = sourceName(args, ARGS);
  const table = tableOf(args);
  const cascade = optionalBoolean(args, "cascade", ARGS) ?? false;
  const src = findSource(metadata, source);
  if (!findTable(src, table)) throw alreadyUntracked(table);
  const dependents = relationshipsInto(src, table, catalog);
  if (dependents.length > 0 && !cascade) {
    throw dependencyError(dependents.map((d) => describeObject("relationship", d.owner, d.name, source)));
  }
  return success(
    withSource(metadata, source, (s) => ({
      ...s,
      tables: s.tables
        .filter((t) => !sameTable(t.table, table))
        .map((t) => {
          let next = t;
          for (const d of dependents.filter((dep) => sameTable(dep.owner, t.table))) {
            for (const p of permissionsUsing(next, d.name)) {
              const key = `${p.kind}_permissions` as const;
              next = setOrDrop(next, key, (next[key] as { role: string }[]).filter((x) => x.role !== p.role) as never);
            }
            next = removeRelationship(next, d.name);
          }
          return next;
        }),
    })),
  );
};

export const setTableIsEnum: Operation = (metadata, rawArgs, catalog) => {
  const args = argsObject(rawArgs, ARGS);
  const source = sourceName(args, ARGS);
  const table = qualifiedTable(requireKey(args, "table", ARGS), at(ARGS, "table"));
  requireKey(args, "is_enum", ARGS);
  const isEnum = optionalBoolean(args, "is_enum", ARGS) === true;
  requireTable(metadata, source, table);
  if (isEnum) assertEnumTable(table, catalog);
  return success(withTable(metadata, source, table, (t) => setOrDrop(t, "is_enum", isEnum ? true : undefined)));
};

export const setTableCustomization: Operation = (metadata, rawArgs) => {
  const args = argsObject(rawArgs, ARGS);
  const source = sourceName(args, ARGS);
  const table = qualifiedTable(requireKey(args, "table", ARGS), at(ARGS, "table"));
  const configuration = normalizeConfiguration(args.configuration ?? {}, at(ARGS, "configuration"));
  requireTable(metadata, source, table);
  return success(withTable(metadata, source, table, (t) => setOrDrop(t, "configuration", configuration)));
};

/** Legacy set_table_custom_fields: replaces root fields and column names, keeps the custom name and comments. */
export const setTableCustomFields: Operation = (metadata, rawArgs) => {
  const args = argsObject(rawArgs, ARGS);
  const source = sourceName(args, ARGS);
  const table = qualifiedTable(requireKey(args, "table", ARGS), at(ARGS, "table"));
  const current = requireTable(metadata, source, table).configuration ?? {};
  const columnNames = asObject(args.custom_column_names ?? {}, at(ARGS, "custom_column_names"));
  const columnConfig: Json = {};
  for (const [column, entry] of Object.entries(current.column_config ?? {})) {
    if (entry.comment !== undefined) columnConfig[column] = { comment: entry.comment };
  }
  for (const [column, name] of Object.entries(columnNames)) columnConfig[column] = { ...(columnConfig[column] as Json), custom_name: name };
  const next: TableConfiguration | undefined = normalizeConfiguration(
    { ...current, custom_root_fields: args.custom_root_fields ?? {}, column_config: columnConfig, custom_column_names: {} },
    at(ARGS, "custom_root_fields"),
  );
  return success(withTable(metadata, source, table, (t) => setOrDrop(t, "configuration", next)));
};

export const addComputedField: Operation = (metadata, rawArgs, catalog) => {
  const args = argsObject(rawArgs, ARGS);
  const source = sourceName(args, ARGS);
  const table = qualifiedTable(requireKey(args, "table", ARGS), at(ARGS, "table"));
  const name = requireString(args, "name", ARGS);
  const definition = asObject(requireKey(args, "definition", ARGS), at(ARGS, "definition"));
  const fn = qualifiedTable(requireKey(definition, "function", at(ARGS, "definition")), at(at(ARGS, "definition"), "function"));
  const comment = optionalString(args, "comment", ARGS);
  const tracked = requireTable(metadata, source, table);
  if (fieldNames(tracked, catalog).has(name)) throw fieldConflict(name, table);
  const field = { name, definition: { ...definition, function: fn }, ...(comment ? { comment } : {}) } as ComputedFieldMetadata;
  checkComputedField(findSource(metadata, source), table, field, catalog);
  return success(withTable(metadata, source, table, (t) => ({ ...t, computed_fields: [...(t.computed_fields ?? []), field] })));
};

export const dropComputedField: Operation = (metadata, rawArgs) => {
  const args = argsObject(rawArgs, ARGS);
  const source = sourceName(args, ARGS);
  const table = qualifiedTable(requireKey(args, "table", ARGS), at(ARGS, "table"));
  const name = requireString(args, "name", ARGS);
  const cascade = optionalBoolean(args, "cascade", ARGS) ?? false;
  const tracked = requireTable(metadata, source, table);
  const fields = (tracked.computed_fields ?? []) as { name?: unknown }[];
  if (!fields.some((f) => f.name === name)) throw computedFieldNotFound(name);
  const dependents = permissionsUsingComputedField(findSource(metadata, source), table, name, boolExpUsesField);
  // Remote relationships joining on the computed field depend on it too (Hasura's mkComputedFieldDep).
  const joining = tableList(tracked, "remote_relationships")
    .filter((rel) => remoteLhsFields(rel).includes(name))
    .map((rel) => String(rel.name));
  if ((dependents.length > 0 || joining.length > 0) && !cascade) {
    throw dependencyError([
      ...dependents.map((d) => describeObject("permission", table, `${d.role}.${d.kind}`, source)),
      ...joining.map((rel) => describeObject("remote relationship", table, rel, source)),
    ]);
  }
  return success(
    withTable(metadata, source, table, (t: TableMetadata) => {
      let next = setOrDrop(
        t,
        "computed_fields",
        fields.filter((f) => f.name !== name),
      );
      if (joining.length > 0)
        next = setOrDrop(
          next,
          "remote_relationships",
          tableList(next, "remote_relationships").filter((rel) => !joining.includes(String(rel.name))),
        );
      for (const d of dependents) {
        const key = `${d.kind}_permissions` as "select_permissions";
        next = setOrDrop(
          next,
          key,
          (next[key] ?? []).filter((p) => p.role !== d.role),
        );
      }
      return next;
    }),
  );
};

/** `{function, source?, configuration?}` (v2), `{schema, name}` (v1) or a bare name. */
function functionArgs(raw: unknown): { source: string; entry: FunctionMetadata } {
  if (typeof raw === "string") return { source: "default", entry: normalizeFunction(raw, ARGS) };
  const args = argsObject(raw, ARGS);
  const { source: _s, ...rest } = args;
  if (rest.function === undefined && rest.name === undefined) throw parseFailed(`key "function" not found`, ARGS);
  return { source: sourceName(args, ARGS), entry: normalizeFunction(rest, ARGS) };
}

export const trackFunction: Operation = (metadata, rawArgs, catalog) => {
  const { source, entry } = functionArgs(rawArgs);
  const src = findSource(metadata, source);
  const functions = (src.functions ?? []) as FunctionMetadata[];
  if (functions.some((f) => sameTable(f.function, entry.function))) {
    throw functionAlreadyTracked(entry.function);
  }
  if (findTable(src, entry.function)) throw tableNameTaken(entry.function);
  if (catalog.hasFunction && !catalog.hasFunction(entry.function.schema, entry.function.name)) {
    throw noSuchFunction(entry.function);
  }
  checkTrackedFunction(src, entry, catalog);
  if (isObject(entry.configuration) && Object.keys(entry.configuration).length === 0) delete entry.configuration;
  return success(withSource(metadata, source, (s) => ({ ...s, functions: [...functions, entry] })));
};

export const untrackFunction: Operation = (metadata, rawArgs) => {
  const { source, entry } = functionArgs(rawArgs);
  const functions = (findSource(metadata, source).functions ?? []) as FunctionMetadata[];
  if (!functions.some((f) => sameTable(f.function, entry.function))) {
    throw functionNotInMetadata(entry.function);
  }
  return success(
    withSource(metadata, source, (s) =>
      setOrDrop(
        s,
        "functions",
        functions.filter((f) => !sameTable(f.function, entry.function)),
      ),
    ),
  );
};

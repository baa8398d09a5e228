/**
 * Tables and columns renamed by run_sql, followed in metadata as Hasura follows them
 * (renameTableInMetadata and renameColumnInMetadata in
 * server/src-lib/Hasura/RQL/DDL/Schema/Rename.hs): a tracked table that is gone by its old name
 * but whose pg_class.oid is still there under another name was renamed; a column whose attnum
 * now carries another name (and whose old name is gone) was renamed. The metadata then says the
 * new names wherever it said the old ones: the table's own entry, relationships on either side,
 * permission columns, presets and rules, custom column names, event trigger columns, and the join
 * fields of remote relationships (their `hasura_fields` / `lhs_fields` and the `"$column"`
 * arguments of `remote_field`). What is left broken afterwards is pruned or refused as before
 * (consistency.ts).
 */
import { isObject, type Json } from "./args.js";
import type { CatalogView } from "./catalog-view.js";
import { setOrDrop } from "./edit.js";
import { PERMISSION_KINDS, renameFieldInBoolExp } from "./permissions.js";
import type { Metadata, QualifiedTable, SourceMetadata, TableMetadata } from "./types.js";
import { tableList } from "./unserved.js";

const same = (a: QualifiedTable, b: QualifiedTable) => a.schema === b.schema && a.name === b.name;

/** A table reference in metadata: `{schema, name}` or a bare name in `public`. */
function refersTo(ref: unknown, table: QualifiedTable): boolean {
  if (typeof ref === "string") return table.schema === "public" && table.name === ref;
  return isObject(ref) && ref.name === table.name && (ref.schema ?? "public") === table.schema;
}

const renamed = (name: string, from: string, to: string) => (name === from ? to : name);

function renameInList(value: unknown, from: string, to: string): unknown {
  if (typeof value === "string") return renamed(value, from, to);
  return Array.isArray(value) ? value.map((v) => (typeof v === "string" ? renamed(v, from, to) : v)) : value;
}

function renameKeys(value: unknown, from: string, to: string): unknown {
  if (!isObject(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [renamed(k, from, to), v]));
}

// --- Table renames ------------------------------------------------------------------------------

/** `_exists: {_table}` of a rule naming the renamed table. */
function renameTableInBoolExp(exp: unknown, from: QualifiedTable, to: QualifiedTable): unknown {
  if (Array.isArray(exp)) return exp.map((e) => renameTableInBoolExp(e, from, to));
  if (!isObject(exp)) return exp;
  const out: Json = {};
  for (const [key, value] of Object.entries(exp)) {
    if (key === "_exists" && isObject(value) && refersTo(value._table, from)) out[key] = { ...value, _table: to };
    else out[key] = isObject(value) || Array.isArray(value) ? renameTableInBoolExp(value, from, to) : value;
  }
  return out;
}

function renameTableInUsing(using: Json, from: QualifiedTable, to: QualifiedTable): Json {
  const out = { ...using };
  const fk = using.foreign_key_constraint_on;
  if (isObject(fk) && refersTo(fk.table, from)) out.foreign_key_constraint_on = { ...fk, table: to };
  const manual = using.manual_configuration;
  if (isObject(manual) && refersTo(manual.remote_table, from)) out.manual_configuration = { ...manual, remote_table: to };
  return out;
}

function renameTableIn(table: TableMetadata, from: QualifiedTable, to: QualifiedTable): TableMetadata {
  let next: TableMetadata = same(table.table, from) ? { ...table, table: to } : table;
  for (const key of ["object_relationships", "array_relationships"] as const) {
    const rels = next[key] as Array<{ using: Json }> | undefined;
    if (rels) next = { ...next, [key]: rels.map((r) => ({ ...r, using: renameTableInUsing(r.using, from, to) })) };
  }
  for (const kind of PERMISSION_KINDS) {
    const key = `${kind}_permissions` as const;
    const perms = next[key] as Array<{ permission: Json }> | undefined;
    if (!perms) continue;
    next = {
      ...next,
      [key]: perms.map((p) => ({ ...p, permission: renameTableInBoolExp(p.permission, from, to) })),
    };
  }
  return next;
}

// --- Column renames -----------------------------------------------------------------------------

/** A `"$column"` argument of a remote relationship's field path, at any depth of its value. */
function renameVariable(value: unknown, from: string, to: string): unknown {
  if (value === `$${from}`) return `$${to}`;
  if (Array.isArray(value)) return value.map((v) => renameVariable(v, from, to));
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renameVariable(v, from, to)]));
  return value;
}

/** `remote_field`: `{field: {arguments, field?: {...}}}` down the path. */
function renameInRemoteField(remoteField: unknown, from: string, to: string): unknown {
  if (!isObject(remoteField)) return remoteField;
  return Object.fromEntries(
    Object.entries(remoteField).map(([name, call]) => {
      if (!isObject(call)) return [name, call];
      const next: Json = { ...call };
      if (call.arguments !== undefined) next.arguments = renameVariable(call.arguments, from, to);
      if (call.field !== undefined) next.field = renameInRemoteField(call.field, from, to);
      return [name, next];
    }),
  );
}

function renameInRemoteRelationship(rel: Json, from: string, to: string): Json {
  const definition = isObject(rel.definition) ? rel.definition : undefined;
  if (!definition) return rel;
  const toRemote = definition.to_remote_schema;
  if (isObject(toRemote)) {
    const next: Json = { ...toRemote, lhs_fields: renameInList(toRemote.lhs_fields, from, to) };
    if (toRemote.remote_field !== undefined) next.remote_field = renameInRemoteField(toRemote.remote_field, from, to);
    return { ...rel, definition: { ...definition, to_remote_schema: next } };
  }
  if (definition.remote_schema !== undefined) {
    const next: Json = { ...definition, hasura_fields: renameInList(definition.hasura_fields, from, to) };
    if (definition.remote_field !== undefined) next.remote_field = renameInRemoteField(definition.remote_field, from, to);
    return { ...rel, definition: next };
  }
  // A relationship to another source maps this table's columns in `field_mapping`.
  const toSource = definition.to_source;
  if (isObject(toSource) && isObject(toSource.field_mapping))
    return {
      ...rel,
      definition: { ...definition, to_source: { ...toSource, field_mapping: renameKeys(toSource.field_mapping, from, to) } },
    };
  return rel;
}

/** Columns named on this table's side (`own`) and on the other table's side (`other`) of a relationship. */
function renameColumnInUsing(using: Json, owner: QualifiedTable, table: QualifiedTable, from: string, to: string): Json {
  const out = { ...using };
  const own = same(owner, table);
  const fk = using.foreign_key_constraint_on;
  if ((typeof fk === "string" || Array.isArray(fk)) && own) out.foreign_key_constraint_on = renameInList(fk, from, to);
  else if (isObject(fk) && refersTo(fk.table, table)) {
    const next = { ...fk };
    if (fk.column !== undefined) next.column = renameInList(fk.column, from, to);
    if (fk.columns !== undefined) next.columns = renameInList(fk.columns, from, to);
    out.foreign_key_constraint_on = next;
  }
  const manual = using.manual_configuration;
  if (isObject(manual) && isObject(manual.column_mapping)) {
    const other = refersTo(manual.remote_table, table);
    const mapping = Object.entries(manual.column_mapping).map(([k, v]) => [
      own ? renamed(k, from, to) : k,
      other && typeof v === "string" ? renamed(v, from, to) : v,
    ]);
    out.manual_configuration = { ...manual, column_mapping: Object.fromEntries(mapping) };
  }
  return out;
}

function renamePermission(permission: Json, from: string, to: string): Json {
  const out = { ...permission };
  if (Array.isArray(permission.columns)) out.columns = renameInList(permission.columns, from, to);
  if (isObject(permission.set)) out.set = renameKeys(permission.set, from, to);
  for (const rule of ["filter", "check"] as const)
    if (permission[rule] !== undefined && permission[rule] !== null) out[rule] = renameFieldInBoolExp(permission[rule], from, to);
  return out;
}

function renameInEventTrigger(trigger: Json, from: string, to: string): Json {
  const definition = isObject(trigger.definition) ? trigger.definition : undefined;
  if (!definition) return trigger;
  const next: Json = { ...definition };
  for (const op of ["insert", "update", "delete"]) {
    const spec = definition[op];
    if (!isObject(spec)) continue;
    next[op] = {
      ...spec,
      ...(Array.isArray(spec.columns) ? { columns: renameInList(spec.columns, from, to) } : {}),
      ...(Array.isArray(spec.payload) ? { payload: renameInList(spec.payload, from, to) } : {}),
    };
  }
  return { ...trigger, definition: next };
}

/** The rename of `table`'s column `from` to `to`, seen from `entry` (that table or another one). */
function renameColumnIn(entry: TableMetadata, table: QualifiedTable, from: string, to: string): TableMetadata {
  let next = entry;
  for (const key of ["object_relationships", "array_relationships"] as const) {
    const rels = next[key] as Array<{ using: Json }> | undefined;
    if (rels) next = { ...next, [key]: rels.map((r) => ({ ...r, using: renameColumnInUsing(r.using, next.table, table, from, to) })) };
  }
  if (!same(entry.table, table)) return next;
  for (const kind of PERMISSION_KINDS) {
    const key = `${kind}_permissions` as const;
    const perms = next[key] as Array<{ permission: Json }> | undefined;
    if (perms) next = { ...next, [key]: perms.map((p) => ({ ...p, permission: renamePermission(p.permission, from, to) })) };
  }
  const config = next.configuration;
  if (config?.column_config || config?.custom_column_names) {
    next = {
      ...next,
      configuration: {
        ...config,
        ...(config.column_config ? { column_config: renameKeys(config.column_config, from, to) as typeof config.column_config } : {}),
        ...(config.custom_column_names
          ? { custom_column_names: renameKeys(config.custom_column_names, from, to) as Record<string, string> }
          : {}),
      },
    };
  }
  const remote = tableList(next, "remote_relationships");
  if (remote.length > 0)
    next = setOrDrop(
      next,
      "remote_relationships",
      remote.map((r) => renameInRemoteRelationship(r, from, to)),
    );
  const triggers = tableList(next, "event_triggers");
  if (triggers.length > 0)
    next = setOrDrop(
      next,
      "event_triggers",
      triggers.map((t) => renameInEventTrigger(t, from, to)),
    );
  return next;
}

// --- Finding the renames ------------------------------------------------------------------------

interface Renames {
  tables: Array<{ from: QualifiedTable; to: QualifiedTable }>;
  /** By the table's new name. */
  columns: Array<{ table: QualifiedTable; from: string; to: string }>;
}

function findRenames(source: SourceMetadata, was: CatalogView, now: CatalogView): Renames {
  const found: Renames = { tables: [], columns: [] };
  if (!was.identity || !now.identity || !now.tableWithOid) return found;
  const tracked = source.tables.map((t) => t.table);
  for (const table of tracked) {
    const before = was.identity(table.schema, table.name);
    if (!before) continue;
    let current = table;
    if (now.identity(table.schema, table.name)?.oid !== before.oid) {
      const moved = now.tableWithOid(before.oid);
      // A table dropped, or renamed onto a name that is tracked already, is not followed.
      if (!moved || tracked.some((t) => same(t, moved))) continue;
      current = { schema: moved.schema, name: moved.name };
      found.tables.push({ from: table, to: current });
    }
    const after = now.identity(current.schema, current.name);
    if (!after) continue;
    const afterNames = new Set(after.columns.values());
    for (const [position, name] of before.columns) {
      const newName = after.columns.get(position);
      if (newName !== undefined && newName !== name && !afterNames.has(name))
        found.columns.push({ table: current, from: name, to: newName });
    }
  }
  return found;
}

/** Metadata with the renames run_sql made (`was` -> `now`) followed; the very same object when there were none. */
export function followRenames(metadata: Metadata, was: CatalogView, now: CatalogView): Metadata {
  let changed = false;
  const sources = metadata.sources.map((source) => {
    const { tables, columns } = findRenames(source, was, now);
    if (tables.length === 0 && columns.length === 0) return source;
    changed = true;
    let entries = source.tables;
    for (const { from, to } of tables) entries = entries.map((t) => renameTableIn(t, from, to));
    for (const { table, from, to } of columns) entries = entries.map((t) => renameColumnIn(t, table, from, to));
    return { ...source, tables: entries };
  });
  return changed ? { ...metadata, sources } : metadata;
}

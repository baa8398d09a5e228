/**
 * Metadata against the live database. `findInconsistencies` lists what Hasura would report as
 * inconsistent objects (reload_metadata, get_inconsistent_metadata, replace_metadata).
 * `pruneAfterSchemaChange` follows DDL run through run_sql: objects that were fine before the
 * SQL and are broken after it (a dropped table, foreign key or column) are removed, which is
 * what Hasura's run_sql does with `cascade: true`; without it `droppedDependents` names what
 * would go so that run_sql can refuse the change before it commits.
 */
import { toRemoteSchema } from "../remote/relationships.js";
import { quoted, tableLabel } from "./args.js";
import type { CatalogView } from "./catalog-view.js";
import { setOrDrop } from "./edit.js";
import { dropInconsistentFunctions, functionInconsistencies, pruneDroppedFunctions } from "./functions.js";
import { boolExpUsesField, missingColumns, PERMISSION_KINDS, type PermissionKind } from "./permissions.js";
import { checkRelationship, removeRelationship } from "./relationships.js";
import { enumProblemsMessage, enumTableProblems } from "./tables.js";
import type { Metadata, RolePermission, SourceMetadata, TableMetadata } from "./types.js";
import { tableList } from "./unserved.js";

export interface InconsistentObject {
  definition: unknown;
  name: string;
  reason: string;
  type: string;
  /** What went wrong in detail (a remote schema's http_exception), as Hasura's `message`. */
  message?: unknown;
}

function relationshipsOf(table: TableMetadata) {
  return [
    ...(table.object_relationships ?? []).map((rel) => ({ rel, type: "object_relation" })),
    ...(table.array_relationships ?? []).map((rel) => ({ rel, type: "array_relation" })),
  ];
}

function permissionsOf(table: TableMetadata, kind: PermissionKind): RolePermission<Record<string, unknown>>[] {
  return (table[`${kind}_permissions`] ?? []) as RolePermission<Record<string, unknown>>[];
}

function tableInconsistencies(source: SourceMetadata, table: TableMetadata, catalog: CatalogView): InconsistentObject[] {
  const label = tableLabel(table.table);
  const where = `in source ${source.name}`;
  if (!catalog.hasTable(table.table.schema, table.table.name)) {
    return [
      {
        definition: table.table,
        name: `table ${label} ${where}`,
        reason: `Inconsistent object: no such table/view exists in source: ${quoted(table.table)}`,
        type: "table",
      },
    ];
  }
  const found: InconsistentObject[] = [];
  if (table.is_enum) {
    const problems = enumTableProblems(table.table, catalog);
    if (problems.length > 0) {
      found.push({
        definition: table.table,
        name: `table ${label} ${where}`,
        reason: `Inconsistent object: ${enumProblemsMessage(table.table, problems)}`,
        type: "table",
      });
    }
  }
  for (const { rel, type } of relationshipsOf(table)) {
    const { problem } = checkRelationship(source, table.table, rel, catalog);
    if (problem) {
      found.push({
        definition: { ...rel, source: source.name, table: table.table },
        name: `${type} ${rel.name} in table ${label} ${where}`,
        reason: `Inconsistent object: ${problem}`,
        type,
      });
    }
  }
  for (const kind of PERMISSION_KINDS) {
    for (const perm of permissionsOf(table, kind)) {
      const missing = missingColumns(perm.permission, table.table, catalog, "$");
      if (missing.length === 0) continue;
      found.push({
        definition: { ...perm, source: source.name, table: table.table },
        name: `permission ${label}.${perm.role}.${kind} ${where}`,
        reason: `Inconsistent object: in table ${quoted(table.table)}: in permission for role "${perm.role}": column "${missing[0]}" does not exist`,
        type: `${kind}_permission`,
      });
    }
  }
  return found;
}

export function findInconsistencies(metadata: Metadata, catalog: CatalogView): InconsistentObject[] {
  return [
    ...metadata.sources.flatMap((source) => source.tables.flatMap((table) => tableInconsistencies(source, table, catalog))),
    ...functionInconsistencies(metadata, catalog),
  ];
}

function columnsOf(catalog: CatalogView, table: TableMetadata): Set<string> {
  return new Set(catalog.columns(table.table.schema, table.table.name) ?? []);
}

/** One table after the schema change; returns the same object when nothing had to go. */
/** The columns an event trigger names (its operations' `columns` and `payload` lists; `*` names none). */
function triggerColumns(trigger: Record<string, unknown>): string[] {
  const definition = trigger.definition;
  if (!definition || typeof definition !== "object") return [];
  const named: string[] = [];
  for (const op of ["insert", "update", "delete"]) {
    const spec = (definition as Record<string, unknown>)[op];
    if (!spec || typeof spec !== "object") continue;
    for (const key of ["columns", "payload"]) {
      const list = (spec as Record<string, unknown>)[key];
      if (Array.isArray(list)) for (const c of list) if (typeof c === "string") named.push(c);
    }
  }
  return named;
}

function pruneTable(
  table: TableMetadata,
  before: SourceMetadata,
  after: SourceMetadata,
  was: CatalogView,
  now: CatalogView,
): TableMetadata {
  const droppedColumns = [...columnsOf(was, table)].filter((c) => !columnsOf(now, table).has(c));
  const brokenRels = relationshipsOf(table)
    .filter(
      ({ rel }) => !checkRelationship(before, table.table, rel, was).problem && checkRelationship(after, table.table, rel, now).problem,
    )
    .map(({ rel }) => rel.name);
  if (droppedColumns.length === 0 && brokenRels.length === 0) return table;

  let next = brokenRels.reduce(removeRelationship, table);
  // A relationship to a remote schema joining on a dropped column goes with it (a dependent object in Hasura).
  const remoteRels = tableList(next, "remote_relationships");
  const keptRemote = remoteRels.filter((rel) => {
    const lhs = toRemoteSchema(rel)?.lhs;
    return !(Array.isArray(lhs) && lhs.some((c) => droppedColumns.includes(String(c))));
  });
  if (keptRemote.length !== remoteRels.length) next = setOrDrop(next, "remote_relationships", keptRemote);
  // So does an event trigger naming a dropped column among its listened or payload columns.
  const triggers = tableList(next, "event_triggers");
  const keptTriggers = triggers.filter((trigger) => !triggerColumns(trigger).some((c) => droppedColumns.includes(c)));
  if (keptTriggers.length !== triggers.length) next = setOrDrop(next, "event_triggers", keptTriggers);
  const gone = [...droppedColumns, ...brokenRels];
  for (const kind of PERMISSION_KINDS) {
    const perms = permissionsOf(next, kind);
    if (perms.length === 0) continue;
    const kept = perms
      // A rule that tests a dropped column or relationship no longer means anything: drop it.
      .filter((p) => !gone.some((field) => boolExpUsesField(p.permission.filter, field) || boolExpUsesField(p.permission.check, field)))
      .map((p) => {
        const permission = { ...p.permission };
        if (Array.isArray(permission.columns)) permission.columns = permission.columns.filter((c) => !droppedColumns.includes(c as string));
        if (permission.set && typeof permission.set === "object") {
          permission.set = Object.fromEntries(Object.entries(permission.set).filter(([c]) => !droppedColumns.includes(c)));
        }
        return { ...p, permission };
      });
    next = setOrDrop(next, `${kind}_permissions`, kept as never);
  }
  return next;
}

/**
 * Metadata after DDL: drops tracked tables that existed before and are gone now, then
 * relationships and permission columns that the change broke. Returns the very same object
 * when nothing changed, so callers can tell with `===`.
 */
export function pruneAfterSchemaChange(metadata: Metadata, was: CatalogView, now: CatalogView): Metadata {
  let changed = false;
  const sources = metadata.sources.map((source) => {
    const tables = source.tables.filter(
      (t) => !(was.hasTable(t.table.schema, t.table.name) && !now.hasTable(t.table.schema, t.table.name)),
    );
    const after: SourceMetadata = { ...source, tables };
    const pruned = tables.map((t) => pruneTable(t, source, after, was, now));
    if (tables.length === source.tables.length && pruned.every((t, i) => t === tables[i])) return source;
    changed = true;
    return { ...source, tables: pruned };
  });
  return pruneDroppedFunctions(changed ? { ...metadata, sources } : metadata, was, now);
}

/** drop_inconsistent_metadata: removes every object findInconsistencies reports. */
export function dropInconsistent(metadata: Metadata, catalog: CatalogView): Metadata {
  return dropInconsistentFunctions(dropInconsistentTables(metadata, catalog), catalog);
}

function dropInconsistentTables(metadata: Metadata, catalog: CatalogView): Metadata {
  return {
    ...metadata,
    sources: metadata.sources.map((source) => {
      // An enum table that is not enum-shaped is an inconsistent table, so the table goes.
      const tables = source.tables.filter(
        (t) => catalog.hasTable(t.table.schema, t.table.name) && !(t.is_enum && enumTableProblems(t.table, catalog).length > 0),
      );
      const current: SourceMetadata = { ...source, tables };
      return {
        ...current,
        tables: tables.map((table) => {
          const broken = relationshipsOf(table)
            .filter(({ rel }) => checkRelationship(current, table.table, rel, catalog).problem)
            .map(({ rel }) => rel.name);
          let next = broken.reduce(removeRelationship, table);
          for (const kind of PERMISSION_KINDS) {
            const perms = permissionsOf(next, kind);
            const kept = perms.filter((p) => missingColumns(p.permission, next.table, catalog, "$").length === 0);
            if (kept.length !== perms.length) next = setOrDrop(next, `${kind}_permissions`, kept as never);
          }
          return next;
        }),
      };
    }),
  };
}

/** How Hasura names a table in dependency errors: without its schema when that is `public`. */
function tableText(table: { schema: string; name: string }): string {
  return table.schema === "public" ? table.name : `${table.schema}.${table.name}`;
}

/**
 * The relationships and permissions of still-tracked tables that a schema change removed
 * (before -> pruned), named as Hasura's "cannot drop due to the following dependent objects"
 * lists them, sorted. Tables that are gone themselves are not listed.
 */
export function droppedDependents(before: Metadata, pruned: Metadata): string[] {
  const lost: string[] = [];
  for (const source of before.sources) {
    const kept = pruned.sources.find((s) => s.name === source.name);
    for (const table of source.tables) {
      const now = kept?.tables.find((t) => t.table.schema === table.table.schema && t.table.name === table.table.name);
      if (!now || now === table) continue;
      const label = tableText(table.table);
      const where = ` in source "${source.name}"`;
      const rels = new Set(relationshipsOf(now).map(({ rel }) => rel.name));
      for (const { rel } of relationshipsOf(table)) if (!rels.has(rel.name)) lost.push(`relationship ${label}.${rel.name}${where}`);
      const remoteRels = new Set(tableList(now, "remote_relationships").map((rel) => rel.name));
      for (const rel of tableList(table, "remote_relationships"))
        if (!remoteRels.has(rel.name)) lost.push(`remote relationship ${label}.${String(rel.name)}${where}`);
      const triggers = new Set(tableList(now, "event_triggers").map((trigger) => trigger.name));
      for (const trigger of tableList(table, "event_triggers"))
        if (!triggers.has(trigger.name)) lost.push(`event-trigger ${label}.${String(trigger.name)}${where}`);
      for (const kind of PERMISSION_KINDS) {
        const was = permissionsOf(table, kind);
        const is = permissionsOf(now, kind);
        for (const perm of was) {
          const after = is.find((p) => p.role === perm.role);
          if (!after || JSON.stringify(after.permission) !== JSON.stringify(perm.permission))
            lost.push(`permission ${label}.${perm.role}.${kind}${where}`);
        }
      }
    }
  }
  return lost.sort();
}

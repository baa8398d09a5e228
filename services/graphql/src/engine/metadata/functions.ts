/**
 * Checks of computed fields and tracked functions against the database, with Hasura's errors
 * (add_computed_field, track_function, computed_fields in select permissions), and what DDL
 * takes with it: computed fields and tracked functions whose SQL function was dropped.
 * Everything is skipped when the catalog view cannot list functions.
 */
import {
  functionNotTrackable,
  functionOverloaded,
  HasuraError,
  inconsistentObject,
  permittedComputedFieldDerived,
  permittedComputedFieldNotFound,
} from "../errors/index.js";
import {
  becauseOf,
  type ComputedFieldDefinition,
  type FunctionConfiguration,
  label,
  resolveComputedField,
  resolveTrackedFunction,
} from "../model/functions.js";
import { remoteLhsFields } from "../remote/relationships.js";
import { isObject, quoted, sameTable, tableLabel } from "./args.js";
import type { CatalogView } from "./catalog-view.js";
import { findTable, setOrDrop } from "./edit.js";
import type { ComputedFieldMetadata, FunctionMetadata, Metadata, QualifiedTable, SourceMetadata } from "./types.js";
import { tableList } from "./unserved.js";

function trackedIn(source: SourceMetadata, catalog: CatalogView) {
  return (table: QualifiedTable) => findTable(source, table) !== undefined && catalog.hasTable(table.schema, table.name);
}

/** add_computed_field: the function must exist once and fit the table (Hasura's rules). */
export function checkComputedField(
  source: SourceMetadata,
  table: QualifiedTable,
  field: ComputedFieldMetadata,
  catalog: CatalogView,
): void {
  if (!catalog.functions) return;
  const definition = field.definition as ComputedFieldDefinition;
  const fn = definition.function;
  const resolved = resolveComputedField(catalog.functions(fn.schema, fn.name), table, definition, trackedIn(source, catalog));
  if (resolved.kind === "ok") return;
  const subject = `the computed field "${field.name}" cannot be added to table ${quoted(table)}`;
  const detail =
    resolved.kind === "missing"
      ? `no such function exists in postgres : ${quoted(fn)}`
      : resolved.kind === "overloaded"
        ? becauseOf(subject, [`the function ${label(fn)} is overloaded. Overloaded functions are not supported`])
        : becauseOf(subject, resolved.reasons);
  const reason = `in table ${quoted(table)}: in computed field "${field.name}": ${detail}`;
  throw inconsistentObject(reason, [
    {
      definition: {
        definition: { ...definition, table_argument: definition.table_argument ?? null },
        name: field.name,
        comment: field.comment ?? null,
        source: source.name,
        table,
      },
      name: `computed_field ${field.name} in table ${tableLabel(table)} in source ${source.name}`,
      reason: `Inconsistent object: ${reason}`,
      type: "computed_field",
    },
  ]);
}

/** track_function: one function returning rows of a tracked table, a json session argument, the right root. */
export function checkTrackedFunction(source: SourceMetadata, entry: FunctionMetadata, catalog: CatalogView): void {
  if (!catalog.functions) return;
  const fn = entry.function;
  const configuration = (isObject(entry.configuration) ? entry.configuration : {}) as FunctionConfiguration;
  const resolved = resolveTrackedFunction(catalog.functions(fn.schema, fn.name), configuration, trackedIn(source, catalog));
  if (resolved.kind === "ok" || resolved.kind === "missing") return;
  if (resolved.kind === "overloaded") {
    throw functionOverloaded(fn);
  }
  const subject = `the function ${quoted(fn)} cannot be tracked`;
  const session = resolved.reasons.find((r) => r.startsWith("given session argument"));
  if (session) throw functionNotTrackable(becauseOf(subject, [session]));
  const reason = `in function ${quoted(fn)}: ${becauseOf(subject, resolved.reasons)}`;
  throw inconsistentObject(reason, [
    {
      definition: fn,
      name: `function ${tableLabel(fn)} in source ${source.name}`,
      reason: `Inconsistent object: ${reason}`,
      type: "function",
    },
  ]);
}

/**
 * The computed fields a select permission lists must be scalar computed fields of the table:
 * table computed fields follow the permissions of the table they return.
 */
export function checkPermissionComputedFields(
  source: SourceMetadata,
  table: QualifiedTable,
  role: string,
  listed: unknown,
  catalog: CatalogView,
): void {
  if (!Array.isArray(listed)) return;
  const fields = (findTable(source, table)?.computed_fields ?? []) as ComputedFieldMetadata[];
  const where = `in table ${quoted(table)}: in permission for role "${role}"`;
  for (const name of listed) {
    const field = fields.find((f) => f.name === name);
    if (!field) throw permittedComputedFieldNotFound(where, String(name));
    const fn = field.definition.function;
    const resolved = catalog.functions
      ? resolveComputedField(catalog.functions(fn.schema, fn.name), table, field.definition, trackedIn(source, catalog))
      : null;
    if (resolved?.kind === "ok" && resolved.returns.kind === "table") {
      throw permittedComputedFieldDerived(where, String(name), resolved.returns.target);
    }
  }
}

/** After DDL: computed fields and tracked functions whose function existed and is gone now. Same object when nothing went. */
export function pruneDroppedFunctions(metadata: Metadata, was: CatalogView, now: CatalogView): Metadata {
  if (!was.hasFunction || !now.hasFunction) return metadata;
  const dropped = (fn: QualifiedTable) => (was.hasFunction?.(fn.schema, fn.name) ?? false) && !now.hasFunction?.(fn.schema, fn.name);
  let changed = false;
  const sources = metadata.sources.map((source) => {
    const functions = (source.functions ?? []) as FunctionMetadata[];
    const keptFunctions = functions.filter((f) => !dropped(f.function));
    let tablesChanged = false;
    const tables = source.tables.map((table) => {
      const fields = (table.computed_fields ?? []) as ComputedFieldMetadata[];
      const kept = fields.filter((f) => !dropped(f.definition.function));
      if (kept.length === fields.length) return table;
      tablesChanged = true;
      const gone = fields.filter((f) => !kept.includes(f)).map((f) => f.name);
      const next = setOrDrop(table, "computed_fields", kept);
      const select = (next.select_permissions ?? []).map((p) =>
        p.permission.computed_fields?.some((n) => gone.includes(n))
          ? {
              ...p,
              permission: setOrDrop(
                p.permission,
                "computed_fields",
                p.permission.computed_fields.filter((n) => !gone.includes(n)),
              ),
            }
          : p,
      );
      // A remote relationship joining on a computed field that went goes too (a dependent object in Hasura).
      const remote = tableList(next, "remote_relationships");
      const keptRemote = remote.filter((rel) => !remoteLhsFields(rel).some((f) => gone.includes(f)));
      return setOrDrop(setOrDrop(next, "select_permissions", select), "remote_relationships", keptRemote);
    });
    if (!tablesChanged && keptFunctions.length === functions.length) return source;
    changed = true;
    return setOrDrop({ ...source, tables }, "functions", keptFunctions);
  });
  return changed ? { ...metadata, sources } : metadata;
}

/** The permissions of a table that name a computed field (in `computed_fields` or a rule). */
export function permissionsUsingComputedField(
  source: SourceMetadata,
  table: QualifiedTable,
  name: string,
  usesField: (exp: unknown, field: string) => boolean,
): Array<{ kind: string; role: string }> {
  const meta = source.tables.find((t) => sameTable(t.table, table));
  if (!meta) return [];
  const found: Array<{ kind: string; role: string }> = [];
  for (const kind of ["insert", "select", "update", "delete"] as const) {
    for (const p of (meta[`${kind}_permissions`] ?? []) as Array<{ role: string; permission: Record<string, unknown> }>) {
      const listed = Array.isArray(p.permission.computed_fields) && p.permission.computed_fields.includes(name);
      if (listed || usesField(p.permission.filter, name) || usesField(p.permission.check, name)) found.push({ kind, role: p.role });
    }
  }
  return found;
}

interface Reported {
  definition: unknown;
  name: string;
  reason: string;
  type: string;
}

/** What a check throws, as the inconsistent objects Hasura lists. */
function reported(check: () => void, fallback: Omit<Reported, "reason">): Reported[] {
  try {
    check();
    return [];
  } catch (error) {
    if (!(error instanceof HasuraError)) throw error;
    if (Array.isArray(error.details)) return error.details as Reported[];
    return [{ ...fallback, reason: `Inconsistent object: ${error.message}` }];
  }
}

function functionProblems(source: SourceMetadata, entry: FunctionMetadata, catalog: CatalogView): Reported[] {
  const fn = entry.function;
  const fallback = { definition: fn, name: `function ${tableLabel(fn)} in source ${source.name}`, type: "function" };
  if (!catalog.hasFunction?.(fn.schema, fn.name)) {
    return [{ ...fallback, reason: `Inconsistent object: in function ${quoted(fn)}: no such function exists in postgres : ${quoted(fn)}` }];
  }
  return reported(() => checkTrackedFunction(source, entry, catalog), fallback);
}

function computedFieldProblems(source: SourceMetadata, table: QualifiedTable, field: ComputedFieldMetadata, catalog: CatalogView) {
  const fallback = {
    definition: { definition: field.definition, name: field.name, source: source.name, table },
    name: `computed_field ${field.name} in table ${tableLabel(table)} in source ${source.name}`,
    type: "computed_field",
  };
  return reported(() => checkComputedField(source, table, field, catalog), fallback);
}

/** Computed fields and tracked functions that Hasura would report as inconsistent objects. */
export function functionInconsistencies(metadata: Metadata, catalog: CatalogView): Reported[] {
  if (!catalog.functions) return [];
  return metadata.sources.flatMap((source) => [
    ...source.tables
      .filter((t) => catalog.hasTable(t.table.schema, t.table.name))
      .flatMap((t) =>
        ((t.computed_fields ?? []) as ComputedFieldMetadata[]).flatMap((f) => computedFieldProblems(source, t.table, f, catalog)),
      ),
    ...((source.functions ?? []) as FunctionMetadata[]).flatMap((f) => functionProblems(source, f, catalog)),
  ]);
}

/** drop_inconsistent_metadata for computed fields and tracked functions. */
export function dropInconsistentFunctions(metadata: Metadata, catalog: CatalogView): Metadata {
  if (!catalog.functions) return metadata;
  return {
    ...metadata,
    sources: metadata.sources.map((source) => {
      const tables = source.tables.map((t) => {
        const fields = (t.computed_fields ?? []) as ComputedFieldMetadata[];
        const kept = fields.filter((f) => computedFieldProblems(source, t.table, f, catalog).length === 0);
        return kept.length === fields.length ? t : setOrDrop(t, "computed_fields", kept);
      });
      const functions = ((source.functions ?? []) as FunctionMetadata[]).filter((f) => functionProblems(source, f, catalog).length === 0);
      return setOrDrop({ ...source, tables }, "functions", functions);
    }),
  };
}

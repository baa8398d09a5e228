/**
 * Computed fields and tracked functions of the model. Definitions whose function is missing,
 * overloaded or unfit are left out (Hasura reports them as inconsistent objects).
 */
import type { PgCatalog } from "../catalog/types.js";
import { tableKey } from "../catalog/types.js";
import type { ComputedFieldMetadata, FunctionMetadata, QualifiedTable, SourceMetadata, TableMetadata } from "../metadata/types.js";
import { type FunctionConfiguration, label, resolveComputedField, resolveTrackedFunction } from "./functions.js";
import { scalarName } from "./scalars.js";
import type { ComputedFieldModel, FunctionModel, TableModel } from "./types.js";

function overloads(catalog: PgCatalog, fn: QualifiedTable) {
  return catalog.functions?.get(`${fn.schema}.${fn.name}`);
}

/** Hasura's GraphQL name of a function or table: bare in public, `schema_name` elsewhere. */
function graphqlName(name: QualifiedTable): string {
  return name.schema === "public" ? name.name : `${name.schema}_${name.name}`;
}

export function buildComputedFields(meta: TableMetadata, table: TableModel, tables: Map<string, TableModel>, catalog: PgCatalog): void {
  const isTracked = (t: QualifiedTable) => tables.has(tableKey(t.schema, t.name));
  for (const raw of (meta.computed_fields ?? []) as ComputedFieldMetadata[]) {
    if (table.columnByName.has(raw.name) || table.relationships.has(raw.name)) continue;
    const definition = raw.definition;
    const resolved = resolveComputedField(overloads(catalog, definition.function), table, definition, isTracked);
    if (resolved.kind !== "ok") continue;
    const returns: ComputedFieldModel["returns"] =
      resolved.returns.kind === "table"
        ? { kind: "table", target: tableKey(resolved.returns.target.schema, resolved.returns.target.name) }
        : { kind: "scalar", pgType: resolved.returns.pgType, scalar: scalarName(resolved.returns.pgType) };
    table.computedFields.set(raw.name, {
      name: raw.name,
      call: {
        schema: resolved.fn.schema,
        name: resolved.fn.name,
        args: resolved.args,
        argsTypeName: `${raw.name}_${table.typeName}_args`,
        argsDescription: `input parameters for computed field ${JSON.stringify(raw.name)} defined on table ${label(table)}`,
      },
      returns,
      comment: raw.comment ?? resolved.fn.comment ?? null,
    });
  }
}

export function buildTrackedFunctions(
  functions: FunctionMetadata[],
  tables: Map<string, TableModel>,
  catalog: PgCatalog,
): Map<string, FunctionModel> {
  const models = new Map<string, FunctionModel>();
  const isTracked = (t: QualifiedTable) => tables.has(tableKey(t.schema, t.name));
  for (const meta of functions) {
    const configuration = (meta.configuration ?? {}) as FunctionConfiguration;
    const resolved = resolveTrackedFunction(overloads(catalog, meta.function), configuration, isTracked);
    if (resolved.kind !== "ok") continue;
    const returnTable = tables.get(tableKey(resolved.returnTable.schema, resolved.returnTable.name)) as TableModel;
    const base = configuration.custom_name ?? graphqlName(meta.function);
    const custom = configuration.custom_root_fields ?? {};
    const key = tableKey(meta.function.schema, meta.function.name);
    const what = resolved.exposedAs === "mutation" ? "execute VOLATILE function" : "execute function";
    models.set(key, {
      key,
      call: {
        schema: resolved.fn.schema,
        name: resolved.fn.name,
        args: resolved.args,
        argsTypeName: `${base}_args`,
        argsDescription: `input parameters for function ${JSON.stringify(custom.function ?? base)}`,
      },
      fieldName: custom.function ?? base,
      aggregateFieldName: custom.function_aggregate ?? `${base}_aggregate`,
      returnTable: returnTable.key,
      returnsSet: resolved.fn.returnsSet,
      exposedAs: resolved.exposedAs,
      description:
        (typeof meta.comment === "string" ? meta.comment : null) ??
        resolved.fn.comment ??
        `${what} ${label(meta.function)} which returns ${label(returnTable)}`,
      permissions: new Set(((meta.permissions ?? []) as Array<{ role?: unknown }>).map((p) => String(p.role))),
    });
  }
  return models;
}

/** The functions a source's metadata names: tracked functions and those of computed fields. */
export function functionsNamedBy(source: SourceMetadata | undefined): QualifiedTable[] {
  if (!source) return [];
  const named = [
    ...((source.functions ?? []) as FunctionMetadata[]).map((f) => f.function),
    ...source.tables.flatMap((t) => ((t.computed_fields ?? []) as ComputedFieldMetadata[]).map((c) => c.definition.function)),
  ];
  return [...new Map(named.map((f) => [`${f.schema}.${f.name}`, f])).values()];
}

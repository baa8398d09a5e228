/**
 * Custom types checked as Hasura checks them when it builds its schema cache
 * (validateCustomTypeDefinitions in server/src-lib/Hasura/RQL/DDL/CustomTypes.hs): unique type
 * names, unique enum values and fields, input fields of input types, object fields of scalar,
 * enum or object types without arguments, Postgres scalars (`uuid`, `geography`) allowed where a
 * scalar is, and relationships to tracked tables through non-list fields and existing columns.
 * Some problems stop the check at once (Hasura's `refute`), the others are collected (`dispute`).
 * The reasons are Hasura's words (showCustomTypeValidationError), spaces included.
 */
import { transformsOf } from "../transforms/config.js";
import { isObject, type Json } from "./args.js";
import type { CatalogView } from "./catalog-view.js";
import type { Metadata } from "./types.js";

/** GraphQL's own scalars, which every custom type may use. */
const DEFAULT_SCALARS = ["Int", "Float", "String", "Boolean", "ID"];

class Refuted extends Error {}

const list = (value: unknown): Json[] => (Array.isArray(value) ? value.filter(isObject) : []);
const nameOf = (entry: Json): string => String(entry.name ?? "");
/** `[Int!]!` → `Int`. */
const baseType = (type: unknown): string => String(type ?? "").replace(/[[\]!\s]/g, "");
const isListType = (type: unknown): boolean =>
  String(type ?? "")
    .trim()
    .startsWith("[");
const duplicates = (names: string[]): string[] => [...new Set(names.filter((n, i) => names.indexOf(n) !== i))].sort();
const quoted = (names: string[]): string => names.map((n) => JSON.stringify(n)).join(", ");

function tableOf(value: unknown): { schema: string; name: string } {
  if (isObject(value)) return { schema: String(value.schema ?? "public"), name: String(value.name ?? "") };
  return { schema: "public", name: String(value ?? "") };
}

/** The reasons Hasura gives for these custom types, in its order; empty when they are valid. */
export function customTypeProblems(types: unknown, metadata: Metadata, catalog: CatalogView): string[] {
  if (!isObject(types)) return [];
  const problems: string[] = [];
  const refute = (reason: string): never => {
    problems.push(reason);
    throw new Refuted(reason);
  };
  const scalars = list(types.scalars);
  const enums = list(types.enums);
  const inputs = list(types.input_objects);
  const objects = list(types.objects);
  const scalarNames = new Set([...scalars.map(nameOf), ...DEFAULT_SCALARS]);
  const enumNames = new Set(enums.map(nameOf));
  const inputNames = new Set(inputs.map(nameOf));
  const objectNames = new Set(objects.map(nameOf));
  const isPgScalar = (name: string) => catalog.isPgScalar?.(name) ?? false;
  try {
    const repeated = duplicates([...scalars, ...enums, ...inputs, ...objects].map(nameOf));
    if (repeated.length > 0) problems.push(`duplicate type names: ${quoted(repeated)}`);
    for (const e of enums) {
      const values = duplicates(list(e.values).map((v) => String(v.value ?? "")));
      if (values.length > 0) problems.push(`the enum type ${JSON.stringify(nameOf(e))} has duplicate values: ${quoted(values)}`);
    }
    for (const input of inputs) {
      const fields = list(input.fields);
      const repeatedFields = duplicates(fields.map(nameOf));
      if (repeatedFields.length > 0)
        problems.push(`the input object ${JSON.stringify(nameOf(input))} has duplicate fields: ${quoted(repeatedFields)}`);
      for (const field of fields) {
        const type = baseType(field.type);
        if (scalarNames.has(type) || enumNames.has(type) || inputNames.has(type) || isPgScalar(type)) continue;
        refute(
          `the type ${JSON.stringify(type)} for field ${JSON.stringify(nameOf(field))} in  input object type ${JSON.stringify(nameOf(input))} does not exist`,
        );
      }
    }
    for (const object of objects)
      checkObject(object, { scalarNames, enumNames, objectNames, isPgScalar }, metadata, catalog, problems, refute);
  } catch (error) {
    if (!(error instanceof Refuted)) throw error;
  }
  return problems;
}

interface Known {
  scalarNames: Set<string>;
  enumNames: Set<string>;
  objectNames: Set<string>;
  isPgScalar: (name: string) => boolean;
}

function checkObject(
  object: Json,
  known: Known,
  metadata: Metadata,
  catalog: CatalogView,
  problems: string[],
  refute: (reason: string) => never,
): void {
  const objectName = JSON.stringify(nameOf(object));
  const fields = list(object.fields);
  const relationships = list(object.relationships);
  const repeated = duplicates([...fields.map(nameOf), ...relationships.map(nameOf)]);
  if (repeated.length > 0) problems.push(`the object ${objectName} has duplicate fields: ${quoted(repeated)}`);
  const fieldTypes = new Map<string, unknown>();
  for (const field of fields) {
    fieldTypes.set(nameOf(field), field.type);
    if (field.arguments !== undefined && field.arguments !== null) problems.push(`the object ${objectName} can't have arguments`);
    const type = baseType(field.type);
    const { scalarNames, enumNames, objectNames, isPgScalar } = known;
    if (scalarNames.has(type) || enumNames.has(type) || objectNames.has(type) || isPgScalar(type)) continue;
    refute(`the type ${JSON.stringify(type)} for field ${JSON.stringify(nameOf(field))} in  object type ${objectName} does not exist`);
  }
  if (new Set(relationships.map((r) => String(r.source ?? "default"))).size > 1)
    refute(`the object ${objectName} has relationships refers to tables in multiple sources`);
  for (const rel of relationships) {
    const relName = JSON.stringify(nameOf(rel));
    const table = tableOf(rel.remote_table);
    const source = metadata.sources.find((s) => s.name === String(rel.source ?? "default"));
    const tracked = source?.tables.some((t) => t.table.schema === table.schema && t.table.name === table.name) ?? false;
    const tableName = JSON.stringify(table.schema === "public" ? table.name : `${table.schema}.${table.name}`);
    if (!tracked || !catalog.hasTable(table.schema, table.name))
      refute(`the remote table ${tableName} for relationship ${relName} of object type ${objectName} does not exist`);
    const columns = catalog.columns(table.schema, table.name) ?? [];
    const mapping = isObject(rel.field_mapping) ? rel.field_mapping : {};
    for (const [field, column] of Object.entries(mapping)) {
      if (!fieldTypes.has(field))
        problems.push(`the field ${JSON.stringify(field)} for relationship ${relName} in object type ${objectName} does not exist`);
      else if (isListType(fieldTypes.get(field)))
        problems.push(
          `the type of the field ${JSON.stringify(field)} for relationship ${relName} in object type ${objectName} is a list type`,
        );
      if (!columns.includes(String(column)))
        refute(
          `the column ${JSON.stringify(String(column))} of remote table ${tableName} for relationship ${relName} of object type ${objectName} does not exist`,
        );
    }
  }
}

/** Hasura's reason for invalid custom types: one problem, or the list of them. */
export function customTypesReason(problems: string[]): string {
  const [only] = problems;
  if (problems.length === 1 && only !== undefined) return `validation for the given custom types failed because ${only}`;
  return `validation for the given custom types failed for the following reasons:\n${problems.map((p) => `  • ${p}\n`).join("")}`;
}

/**
 * What Hasura refuses in an action's types when it resolves the action (resolveAction in
 * server/src-lib/Hasura/RQL/DDL/Action.hs): each argument's base type must be a Postgres scalar or
 * a custom scalar, enum or input object (GraphQL's own scalars included); the output's an object
 * or scalar type. Null when the types resolve.
 */
export function actionTypeProblem(definition: Json, types: unknown, catalog: CatalogView, name = ""): string | null {
  const custom = isObject(types) ? types : {};
  const names = (kind: string) => new Set(list(custom[kind]).map(nameOf));
  const scalars = new Set([...names("scalars"), ...DEFAULT_SCALARS]);
  const inputTypes = new Set([...scalars, ...names("enums"), ...names("input_objects")]);
  const isPgScalar = (type: string) => catalog.isPgScalar?.(type) ?? false;
  for (const argument of list(definition.arguments)) {
    const type = baseType(argument.type);
    if (!isPgScalar(type) && !inputTypes.has(type))
      return `the type: ${JSON.stringify(type)} is not defined in custom types or it is not a scalar/enum/input_object`;
  }
  const output = baseType(definition.output_type);
  const objects = names("objects");
  if (!isPgScalar(output) && !objects.has(output) && !scalars.has(output))
    return `the type: ${JSON.stringify(output)} is not an object or scalar type defined in custom types`;
  // An asynchronous action's output is read back by SQL (jsonb_to_record), which cannot join through nested objects.
  const object = list(custom.objects).find((o) => nameOf(o) === output);
  if (definition.kind === "asynchronous" && object && list(object.relationships).length > 0) {
    const nested = list(object.fields).filter((f) => objects.has(baseType(f.type)));
    if (nested.length > 0)
      return `in action ${JSON.stringify(name)}; Async action relations cannot be used with object fields: ${quoted(nested.map(nameOf))}`;
  }
  // Transforms of a shape Hasura's metadata decoding refuses (kept by replace_metadata).
  const transforms = transformsOf(definition);
  return "problem" in transforms ? transforms.problem : null;
}

const orNull = (value: unknown): unknown => (value === undefined ? null : value);

/**
 * Custom types as Hasura reports them in an inconsistent object (its CustomTypes JSON): every
 * list present, every optional key spelled out (`description: null`), relationships' tables
 * qualified and their source named.
 */
export function reportedCustomTypes(types: unknown): Json {
  const custom = isObject(types) ? types : {};
  const field = (f: Json) => ({ name: f.name, type: f.type, description: orNull(f.description) });
  return {
    input_objects: list(custom.input_objects).map((i) => ({ ...i, description: orNull(i.description), fields: list(i.fields).map(field) })),
    objects: list(custom.objects).map((o) => ({
      ...o,
      description: orNull(o.description),
      fields: list(o.fields).map((f) => ({ arguments: orNull(f.arguments), ...field(f) })),
      relationships: list(o.relationships).map((r) => ({
        ...r,
        remote_table: tableOf(r.remote_table),
        source: r.source ?? "default",
      })),
    })),
    scalars: list(custom.scalars).map((s) => ({ ...s, description: orNull(s.description) })),
    enums: list(custom.enums).map((e) => ({
      ...e,
      description: orNull(e.description),
      values: list(e.values).map((v) => ({ ...v, description: orNull(v.description), is_deprecated: orNull(v.is_deprecated) })),
    })),
  };
}

/**
 * An action as Hasura reports it in an inconsistent object (CreateAction: name, definition with
 * its defaults, comment): arguments with their descriptions, no client headers forwarded, no
 * headers, a 30 second timeout, a mutation unless a query; `kind` only for a mutation.
 */
export function reportedAction(action: Json): Json {
  const definition = isObject(action.definition) ? action.definition : {};
  const type = definition.type === "query" ? "query" : "mutation";
  const { kind: _kind, ...rest } = definition;
  return {
    name: action.name,
    definition: {
      ...rest,
      arguments: list(definition.arguments).map((a) => ({ ...a, description: orNull(a.description) })),
      forward_client_headers: definition.forward_client_headers ?? false,
      headers: definition.headers ?? [],
      ...(type === "mutation" ? { kind: definition.kind ?? "synchronous" } : {}),
      timeout: definition.timeout ?? 30,
      type,
    },
    comment: orNull(action.comment),
  };
}

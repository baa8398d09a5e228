/**
 * Actions and their custom types joined with the catalog, as Hasura's schema cache resolves them
 * (server/src-lib/Hasura/RQL/DDL/Action.hs resolveAction, CustomTypes.hs): custom types that
 * fail Hasura's checks serve no action, and an action whose types do not resolve is left out;
 * both are reported as inconsistent objects (metadata/unserved.ts).
 */
import { tableKey } from "../catalog/types.js";
import { isObject, type Json } from "../metadata/args.js";
import type { CatalogView } from "../metadata/catalog-view.js";
import { actionTypeProblem, customTypeProblems } from "../metadata/custom-types.js";
import type { Metadata } from "../metadata/types.js";
import { transformsOf } from "../transforms/config.js";
import type { ActionModel, CustomFieldModel, CustomTypesModel, HeaderModel, TableModel, TypeRef } from "./types.js";

/** Hasura's default handler timeout (ActionDefinition `timeout`, seconds). */
const DEFAULT_TIMEOUT_SECONDS = 30;

const list = (value: unknown): Json[] => (Array.isArray(value) ? value.filter(isObject) : []);
const text = (value: unknown): string | null => (typeof value === "string" && value.trim() !== "" ? value : null);

/** `[Int!]!` read into a TypeRef (the text has resolved, so it is well formed). */
export function typeRef(written: string): TypeRef {
  const type = written.trim();
  if (type.endsWith("!")) return { ...typeRef(type.slice(0, -1)), nullable: false };
  if (type.startsWith("[") && type.endsWith("]")) return { kind: "list", of: typeRef(type.slice(1, -1)), nullable: true };
  return { kind: "named", name: type, nullable: true };
}

function fields(value: unknown): CustomFieldModel[] {
  return list(value).map((f) => ({
    name: String(f.name),
    ref: typeRef(String(f.type)),
    description: text(f.description),
  }));
}

export function emptyCustomTypes(): CustomTypesModel {
  return { scalars: new Map(), enums: new Map(), inputs: new Map(), objects: new Map() };
}

function customTypes(types: Json, tables: Map<string, TableModel>): CustomTypesModel {
  const model = emptyCustomTypes();
  for (const s of list(types.scalars)) model.scalars.set(String(s.name), { name: String(s.name), description: text(s.description) });
  for (const e of list(types.enums))
    model.enums.set(String(e.name), {
      name: String(e.name),
      description: text(e.description),
      values: list(e.values).map((v) => ({
        value: String(v.value),
        description: text(v.description),
        deprecated: v.is_deprecated === true,
      })),
    });
  for (const i of list(types.input_objects))
    model.inputs.set(String(i.name), { name: String(i.name), description: text(i.description), fields: fields(i.fields) });
  for (const o of list(types.objects)) {
    const relationships = list(o.relationships).flatMap((r) => {
      const remote = isObject(r.remote_table)
        ? { schema: String(r.remote_table.schema ?? "public"), name: String(r.remote_table.name) }
        : { schema: "public", name: String(r.remote_table) };
      const target = tableKey(remote.schema, remote.name);
      if (!tables.has(target)) return [];
      const mapping = Object.entries(isObject(r.field_mapping) ? r.field_mapping : {}).map(([f, c]) => [f, String(c)] as [string, string]);
      return [{ name: String(r.name), kind: r.type === "array" ? ("array" as const) : ("object" as const), target, mapping }];
    });
    model.objects.set(String(o.name), { name: String(o.name), description: text(o.description), fields: fields(o.fields), relationships });
  }
  return model;
}

function headers(value: unknown): HeaderModel[] {
  return list(value).map((h) => ({
    name: String(h.name),
    ...(typeof h.value === "string" ? { value: h.value } : {}),
    ...(typeof h.value_from_env === "string" ? { valueFromEnv: h.value_from_env } : {}),
  }));
}

function action(entry: Json, definition: Json): ActionModel {
  const type = definition.type === "query" ? "query" : "mutation";
  const timeout = Number(definition.timeout);
  const transforms = transformsOf(definition);
  return {
    name: String(entry.name),
    type,
    // A query action is always synchronous (Hasura ignores `kind` for it).
    kind: type === "mutation" && definition.kind === "asynchronous" ? "asynchronous" : "synchronous",
    arguments: fields(definition.arguments),
    output: typeRef(String(definition.output_type)),
    handler: String(definition.handler),
    headers: headers(definition.headers),
    forwardClientHeaders: definition.forward_client_headers === true,
    timeoutSeconds: Number.isFinite(timeout) && timeout > 0 ? timeout : DEFAULT_TIMEOUT_SECONDS,
    // actionTypeProblem has refused an action whose transforms cannot be read.
    transforms: "transforms" in transforms ? transforms.transforms : {},
    description: text(entry.comment),
    permissions: new Set(list(entry.permissions).map((p) => String(p.role))),
  };
}

/** The served actions and custom types of `metadata`: none when the custom types are invalid. */
export function buildActions(
  metadata: Metadata,
  catalog: CatalogView,
  tables: Map<string, TableModel>,
): { actions: Map<string, ActionModel>; customTypes: CustomTypesModel } {
  const actions = new Map<string, ActionModel>();
  const raw = isObject(metadata.custom_types) ? metadata.custom_types : {};
  if (customTypeProblems(raw, metadata, catalog).length > 0) return { actions, customTypes: emptyCustomTypes() };
  for (const entry of list(metadata.actions)) {
    const definition = isObject(entry.definition) ? entry.definition : null;
    if (!definition || actionTypeProblem(definition, raw, catalog, String(entry.name)) !== null) continue;
    actions.set(String(entry.name), action(entry, definition));
  }
  return { actions, customTypes: customTypes(raw, tables) };
}

/**
 * Remote schema permissions (https://hasura.io/docs/2.0/remote-schemas/auth/remote-schema-permissions/):
 * a role's view of a remote schema is the schema document its permission gives, checked against
 * the remote's own schema (permission-validate.ts) as Hasura's resolveRoleBasedRemoteSchema
 * does (server/src-lib/Hasura/RemoteSchema/SchemaCache/Permission.hs). Hasura resolves the
 * permissions whether or not HASURA_GRAPHQL_ENABLE_REMOTE_SCHEMA_PERMISSIONS is set; the setting
 * decides what a role sees: with it on, a role other than admin sees a remote only through its
 * permission; with it off, every role sees every remote whole.
 */
import { type DocumentNode, parse } from "graphql";
import { type HasuraError, remotePermissionForAdmin, remotePermissionInvalid, remoteSchemaError } from "../errors/index.js";
import { isObject } from "../metadata/args.js";
import type { TypeRef } from "../model/types.js";
import { ADMIN_ROLE } from "../request/session.js";
import { validateRoleSchema } from "./permission-validate.js";
import { argsByName } from "./relationships.js";
import type { RemoteFieldDef, RemoteIntrospection, RemoteSchemaModel, RemoteTypeDef } from "./types.js";
import { checkRemoteSchema, RemoteSchemaProblem } from "./validate.js";
import { RoleSchemaInvalid } from "./validation.js";

/** The schema document of a permission's `definition`, or undefined when it is not one (the command refuses those first). */
function documentOf(definition: unknown): DocumentNode | undefined {
  const schema = isObject(definition) ? definition.schema : undefined;
  if (typeof schema !== "string") return undefined;
  try {
    return parse(schema, { noLocation: true });
  } catch {
    return undefined;
  }
}

/** The role's view of `upstream` that a permission's `definition` gives; Hasura's error (at `$.args`) when it cannot. */
export function rolePermissionView(upstream: RemoteIntrospection, role: string, definition: unknown): RemoteIntrospection | HasuraError {
  if (role === ADMIN_ROLE) return remotePermissionForAdmin();
  const document = documentOf(definition);
  if (!document) return remotePermissionInvalid(["the permission's schema is not a GraphQL schema document"]);
  try {
    const view = validateRoleSchema(upstream, document);
    // The role's schema is built from the view as the remote's is: what it names must exist.
    checkRemoteSchema(view);
    return view;
  } catch (error) {
    if (error instanceof RoleSchemaInvalid) return remotePermissionInvalid(error.reasons);
    if (error instanceof RemoteSchemaProblem) return remoteSchemaError(error.message, "$.args", error.code);
    throw error;
  }
}

const baseName = (t: TypeRef): string => (t.kind === "named" ? t.name : baseName(t.of));

/**
 * Whether the view's input object `name` has no field the role may give: each one preset, or of
 * such a type. The role's schema leaves it out and the engine sends its presets (Hasura's
 * remoteInputObjectParser, server/src-lib/Hasura/GraphQL/Schema/Remote.hs). A type met again
 * while it is being decided counts as having a field the role gives.
 */
export function onlyPresets(view: RemoteIntrospection, name: string, deciding = new Set<string>()): boolean {
  if (!view.presets || deciding.has(name)) return false;
  const def = view.types.get(name);
  if (def?.kind !== "INPUT_OBJECT" || def.fields.length === 0) return false;
  deciding.add(name);
  const only = def.fields.every((f) => f.preset !== undefined || onlyPresets(view, baseName(f.type), deciding));
  deciding.delete(name);
  return only;
}

/** What `role` sees of `remote`: all of it for admin or with permissions off, else its permission's view, or nothing. */
export function remoteView(remote: RemoteSchemaModel, role: string, permissionsOn: boolean | undefined): RemoteIntrospection | null {
  if (!permissionsOn || role === ADMIN_ROLE) return remote.introspection;
  return remote.permissions?.get(role) ?? null;
}

/** The field a remote relationship's path reaches in `view` (from its query root), if the view has every step. */
function remotePathField(view: RemoteIntrospection, path: ReadonlyArray<{ field: string }>): RemoteFieldDef | undefined {
  let typeName = view.queryRoot;
  let field: RemoteFieldDef | undefined;
  for (const step of path) {
    const def: RemoteTypeDef | undefined = view.types.get(typeName);
    if (def?.kind !== "OBJECT" && def?.kind !== "INTERFACE") return undefined;
    field = def.fields.find((f) => f.name === step.field);
    if (!field) return undefined;
    typeName = baseName(field.type);
  }
  return field;
}

/** A remote relationship's field as `view` has it (its arguments in the relationship's order: by name), if the view reaches it. */
export function relationshipField(
  rel: { remote: RemoteSchemaModel; path: ReadonlyArray<{ field: string }>; field: RemoteFieldDef },
  view: RemoteIntrospection,
): RemoteFieldDef | undefined {
  if (view === rel.remote.introspection) return rel.field;
  const field = remotePathField(view, rel.path);
  return field && argsByName(field);
}

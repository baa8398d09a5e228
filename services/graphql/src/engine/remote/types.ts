/**
 * A remote schema as the engine keeps it: the remote's own type definitions read from its
 * introspection (Hasura's IntrospectionResult in server/src-lib/Hasura/RemoteSchema/SchemaCache/Types.hs),
 * how its names are customized, and how it is called
 * (https://hasura.io/docs/latest/remote-schemas/overview/).
 */
import type { HeaderModel, TypeRef } from "../model/types.js";

/** An argument or an input object's field; `defaultValue` is GraphQL literal text, as introspection gives it. */
export interface RemoteInputValue {
  name: string;
  description: string | null;
  type: TypeRef;
  defaultValue: string | null;
}

export interface RemoteFieldDef {
  name: string;
  description: string | null;
  args: RemoteInputValue[];
  type: TypeRef;
}

export type RemoteTypeDef =
  | { kind: "SCALAR"; name: string; description: string | null }
  | { kind: "OBJECT"; name: string; description: string | null; fields: RemoteFieldDef[]; interfaces: string[] }
  | { kind: "INTERFACE"; name: string; description: string | null; fields: RemoteFieldDef[]; possibleTypes: string[] }
  | { kind: "UNION"; name: string; description: string | null; possibleTypes: string[] }
  | { kind: "ENUM"; name: string; description: string | null; values: Array<{ name: string; description: string | null }> }
  | { kind: "INPUT_OBJECT"; name: string; description: string | null; fields: RemoteInputValue[] };

/** The remote's schema, its own names; `mutationRoot` defaults to an object named `Mutation`, as Hasura's does. */
export interface RemoteIntrospection {
  types: Map<string, RemoteTypeDef>;
  queryRoot: string;
  mutationRoot: string | null;
  subscriptionRoot: string | null;
}

/** The `customization` of a remote schema definition, as given. */
export interface RemoteCustomization {
  rootFieldsNamespace: string | null;
  typeNames: { prefix: string | null; suffix: string | null; mapping: Record<string, string> } | null;
  fieldNames: Array<{ parentType: string; prefix: string | null; suffix: string | null; mapping: Record<string, string> }>;
}

/** The remote's names as this engine's schema shows them (Hasura's RemoteSchemaCustomizer). */
export interface RemoteCustomizer {
  namespace: string | null;
  /** The remote's type name -> the name in our schema (absent: unchanged). */
  typeNames: Map<string, string>;
  /** The remote's type name -> its field name -> the name in our schema. */
  fieldNames: Map<string, Map<string, string>>;
}

/** How the remote is reached: `url` (`{{ENV}}` templates unresolved) or `urlFromEnv`, and what is sent. */
export interface RemoteSchemaDefinition {
  url: string | null;
  urlFromEnv: string | null;
  headers: HeaderModel[];
  forwardClientHeaders: boolean;
  timeoutSeconds: number;
  customization: RemoteCustomization | null;
}

/** A remote schema served: fetched, valid, and without conflicts with the rest of the schema. */
export interface RemoteSchemaModel {
  name: string;
  definition: RemoteSchemaDefinition;
  introspection: RemoteIntrospection;
  customizer: RemoteCustomizer;
}

/** The customized name of one of the remote's types. */
export function customTypeName(customizer: RemoteCustomizer, name: string): string {
  return customizer.typeNames.get(name) ?? name;
}

/** The customized name of a field of one of the remote's types. */
export function customFieldName(customizer: RemoteCustomizer, typeName: string, field: string): string {
  return customizer.fieldNames.get(typeName)?.get(field) ?? field;
}

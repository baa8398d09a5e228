/**
 * `set_graphql_schema_introspection_options` (https://hasura.io/docs/2.0/api-reference/metadata-api/introspection/):
 * `disabled_for_roles` lists the roles whose `__schema` and `__type` queries are refused; the
 * call replaces the options. Kept in metadata as `graphql_schema_introspection`, and in a
 * metadata directory as graphql_schema_introspection.yaml.
 */
import { asArray, asObject, asString, at } from "./args.js";
import { type Operation, success } from "./edit.js";
import type { Metadata } from "./types.js";

const ARGS = "$.args";

export const setIntrospectionOptions: Operation = (metadata, args) => {
  const obj = asObject(args ?? {}, ARGS);
  const raw = obj.disabled_for_roles ?? [];
  const roles = asArray(raw, at(ARGS, "disabled_for_roles")).map((r, i) => asString(r, at(at(ARGS, "disabled_for_roles"), i)));
  const { graphql_schema_introspection: _, ...rest } = metadata;
  const unique = [...new Set(roles)];
  return success(
    unique.length > 0 ? ({ ...rest, graphql_schema_introspection: { disabled_for_roles: unique } } as Metadata) : (rest as Metadata),
  );
};

/** The roles metadata disables introspection for. */
export function introspectionDisabledRoles(metadata: Metadata): Set<string> {
  const options = metadata.graphql_schema_introspection as { disabled_for_roles?: unknown } | undefined;
  const roles = Array.isArray(options?.disabled_for_roles) ? options.disabled_for_roles : [];
  return new Set(roles.filter((r): r is string => typeof r === "string"));
}

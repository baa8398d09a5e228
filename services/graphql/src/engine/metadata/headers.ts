import { asArray, at, isObject, type Json, optionalString, parseFailed, requireString } from "./args.js";

/**
 * A header of an action (or remote schema) as Hasura's HeaderConf parser reads it
 * (server/src-lib/Hasura/RQL/Types/Headers.hs): a name and exactly one of `value` and
 * `value_from_env`, the engine's own HASURA_GRAPHQL_ variables never readable that way.
 */
function headerConf(value: unknown, path: string): Json {
  const header = isObject(value) ? value : null;
  if (!header) throw parseFailed("expecting object for headers", path);
  requireString(header, "name", path);
  const given = optionalString(header, "value", path);
  const fromEnv = optionalString(header, "value_from_env", path);
  if (given === undefined && fromEnv === undefined) throw parseFailed("expecting value or value_from_env keys", path);
  if (given !== undefined && fromEnv !== undefined) throw parseFailed("expecting only one of value or value_from_env keys", path);
  if (fromEnv?.startsWith("HASURA_GRAPHQL_"))
    throw parseFailed(`env variables starting with "HASURA_GRAPHQL_" are not allowed in value_from_env: ${fromEnv}`, path);
  return header;
}

/** The `headers` of a definition (absent or null: none), each checked as HeaderConf. */
export function checkHeaders(definition: Json, path: string): void {
  if (definition.headers === undefined || definition.headers === null) return;
  const headersPath = at(path, "headers");
  for (const [i, header] of asArray(definition.headers, headersPath).entries()) headerConf(header, at(headersPath, i));
}

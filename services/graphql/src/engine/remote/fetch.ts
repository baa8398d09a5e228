/**
 * Fetching a remote's schema and making it servable, as Hasura's fetchRemoteSchema does
 * (server/src-lib/Hasura/GraphQL/RemoteServer.hs): POST the introspection query with the
 * configured headers and `x-hasura-role: admin`, read the answer, then (apart, since the answer
 * is kept per URL and headers) apply the customization and check the customized schema.
 */
import { type HasuraError, remoteSchemaError } from "../errors/index.js";
import { parseJsonBody } from "../json/parse.js";
import { checkCustomizer, makeCustomizer } from "./customize.js";
import { type Env, postToRemote } from "./http.js";
import { INTROSPECTION_QUERY, IntrospectionFailure, readIntrospection } from "./introspection.js";
import type { RemoteIntrospection, RemoteSchemaDefinition, RemoteSchemaModel } from "./types.js";
import { checkRemoteSchema, RemoteSchemaProblem } from "./validate.js";

/** The remote's schema as its introspection gives it; throws Hasura's error (at `$`). */
export async function fetchIntrospection(definition: RemoteSchemaDefinition, env: Env): Promise<RemoteIntrospection> {
  const caller = { sessionVariables: { "x-hasura-role": "admin" }, clientHeaders: {} };
  const response = await postToRemote(definition, env, caller, JSON.stringify({ query: INTROSPECTION_QUERY }));
  let answer: unknown;
  try {
    answer = parseJsonBody(response.text);
  } catch (error) {
    throw remoteSchemaError(`Error in $: ${(error as Error).message}`);
  }
  try {
    return { ...readIntrospection(answer), answer };
  } catch (error) {
    if (error instanceof IntrospectionFailure) throw remoteSchemaError(error.message);
    throw error;
  }
}

/** The remote schema served from its fetched introspection, or Hasura's error for it (at `$`). */
export function servable(
  name: string,
  definition: RemoteSchemaDefinition,
  introspection: RemoteIntrospection,
): RemoteSchemaModel | HasuraError {
  try {
    const customizer = makeCustomizer(introspection, definition.customization);
    checkCustomizer(introspection, customizer);
    checkRemoteSchema(introspection);
    return { name, definition, introspection, customizer };
  } catch (error) {
    if (error instanceof RemoteSchemaProblem) return remoteSchemaError(error.message, "$", error.code);
    throw error;
  }
}

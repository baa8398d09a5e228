/**
 * Local stand-ins for what MetaGame's Hasura metadata points at: its backend's remote schema (a
 * graphql-js server over the backend's own SDL, every field answering null or an empty list) and
 * one HTTP sink for the action handlers and event trigger webhooks (never called while the
 * schema is checked).
 */
import { type HttpSink, startHttpSink } from "@platform/core";
import { type GraphQLSchema, getNullableType, isListType } from "graphql";
import { type GraphqlServer, schemaOf, startGraphqlServer } from "../../test/support/graphql-server.js";

export const REMOTE_PATH = "/graphql";

export interface RemoteStandIn {
  server: GraphqlServer;
  schema: GraphQLSchema;
  url: string;
}

/** Null for every field, or `[]` where the field is a list (so `[T!]!` fields answer too). */
function emptyRoot(schema: GraphQLSchema): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const type of [schema.getQueryType(), schema.getMutationType()])
    for (const field of Object.values(type?.getFields() ?? {}))
      root[field.name] = () => (isListType(getNullableType(field.type)) ? [] : null);
  return root;
}

export async function startRemoteStandIn(sdl: string): Promise<RemoteStandIn> {
  const schema = schemaOf(sdl);
  const server = await startGraphqlServer();
  server.route(REMOTE_PATH, { schema, root: emptyRoot(schema) });
  return { server, schema, url: `${server.url}${REMOTE_PATH}` };
}

export function startWebhookSink(): Promise<HttpSink> {
  return startHttpSink();
}

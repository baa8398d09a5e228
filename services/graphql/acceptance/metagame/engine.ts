/**
 * The engine started in-process the way `npm run start:graphql` starts it (readGraphqlConfig +
 * startGraphql, listening on 127.0.0.1), over a database the run owns, and the requests the
 * acceptance run sends it.
 */
import { createLogger, type Database } from "@platform/core";
import { buildClientSchema, type GraphQLSchema, getIntrospectionQuery, type IntrospectionQuery } from "graphql";
import { readGraphqlConfig } from "../../src/config.js";
import { startGraphql } from "../../src/server.js";

export const ADMIN_SECRET = "metagame-acceptance-secret";

export interface Engine {
  url: string;
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<{ status: number; body: unknown }>;
  /** The schema `headers` (beside the admin secret) give, read by introspection. */
  schema(headers?: Record<string, string>): Promise<GraphQLSchema>;
  metadata(type: string, args?: unknown): Promise<unknown>;
  close(): Promise<void>;
}

export async function startEngine(db: Database, env: Record<string, string>, logLevel = "silent"): Promise<Engine> {
  const config = readGraphqlConfig({
    HASURA_GRAPHQL_SERVER_HOST: "127.0.0.1",
    HASURA_GRAPHQL_SERVER_PORT: "0",
    HASURA_GRAPHQL_ADMIN_SECRET: ADMIN_SECRET,
    HASURA_GRAPHQL_ENABLE_CONSOLE: "false",
    HASURA_GRAPHQL_METADATA_POLL_INTERVAL_MS: "60000",
    HASURA_GRAPHQL_ASYNC_ACTIONS_FETCH_INTERVAL: "0",
    ...env,
  });
  const service = await startGraphql(config, createLogger({ level: logLevel, name: "graphql" }), { db });
  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${service.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-hasura-admin-secret": ADMIN_SECRET, ...headers },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as unknown };
  };
  return {
    url: service.url,
    post,
    async schema(headers = {}) {
      const { status, body } = await post("/v1/graphql", { query: getIntrospectionQuery() }, headers);
      const data = (body as { data?: IntrospectionQuery }).data;
      if (status !== 200 || !data) throw new Error(`introspection (${JSON.stringify(headers)}) failed: ${JSON.stringify(body)}`);
      return buildClientSchema(data);
    },
    async metadata(type, args = {}) {
      const { status, body } = await post("/v1/metadata", { type, args });
      if (status !== 200) throw new Error(`${type} failed: ${JSON.stringify(body)}`);
      return body;
    },
    close: () => service.close(),
  };
}

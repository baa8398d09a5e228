/**
 * POST /remote-schemas/graphql: the remote schema `backend` the engine merges into query_root
 * (metadata/remote_schemas.yaml, REMOTE_SCHEMA_ENDPOINT). GraphQL over HTTP with JSON bodies:
 * every well-formed request is answered 200 with `data` and/or `errors`, as the spec's
 * application/json responses are (https://graphql.github.io/graphql-over-http/draft/#sec-application-json),
 * which is also how the engine reads a remote's answer. Provider failures are field errors with
 * their message; anything unexpected is logged with an id and reported by that id only.
 */
import { randomUUID } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { type DocumentNode, execute, GraphQLError, parse, validate } from "graphql";
import type { BackendDeps } from "../app.js";
import { EngineRequestError } from "../engine-client.js";
import { BackendError } from "../errors.js";
import { createRemoteContext } from "./context.js";
import { ProviderError } from "./http-json.js";
import { buildRemoteSchema } from "./schema.js";

export const REMOTE_SCHEMA_PATH = "/remote-schemas/graphql";

interface GraphqlBody {
  query: string;
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
}

const bodySchema = {
  type: "object",
  required: ["query"],
  properties: {
    query: { type: "string", minLength: 1 },
    variables: { type: ["object", "null"] },
    operationName: { type: ["string", "null"] },
  },
} as const;

/** A field error as the client may see it: ours verbatim, anything else by an id in the log. */
function shown(error: GraphQLError, log: FastifyInstance["log"]): GraphQLError {
  const cause = error.originalError;
  if (!cause || cause instanceof GraphQLError || cause instanceof ProviderError || cause instanceof BackendError) return error;
  if (cause instanceof EngineRequestError)
    return new GraphQLError(`the data service refused a lookup: ${cause.message}`, { path: error.path });
  const id = randomUUID();
  log.error({ err: cause, errorId: id, path: error.path }, "remote schema field failed");
  return new GraphQLError(`internal error (id ${id})`, { path: error.path });
}

export async function registerRemoteSchema(app: FastifyInstance, deps: BackendDeps): Promise<void> {
  const schema = buildRemoteSchema();
  app.post<{ Body: GraphqlBody }>(REMOTE_SCHEMA_PATH, { schema: { body: bodySchema } }, async (request) => {
    const { query, variables, operationName } = request.body;
    let document: DocumentNode;
    try {
      document = parse(query);
    } catch (error) {
      return { errors: [(error as GraphQLError).toJSON()] };
    }
    const invalid = validate(schema, document);
    if (invalid.length > 0) return { errors: invalid.map((e) => e.toJSON()) };
    const result = await execute({
      schema,
      document,
      variableValues: variables ?? undefined,
      operationName: operationName ?? undefined,
      contextValue: createRemoteContext(deps, request.log),
    });
    if (!result.errors) return { data: result.data };
    const errors = result.errors.map((e) => shown(e, request.log).toJSON());
    // No `data` when the request failed before execution (variables that do not fit), as the spec says.
    return result.data === undefined ? { errors } : { data: result.data, errors };
  });
}

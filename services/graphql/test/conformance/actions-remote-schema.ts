/**
 * The remote schema the actions tests join against, ported: hasura/graphql-engine server/tests-py
 * remote_schemas/nodejs/actions_remote_join_schema.js (an Apollo Server 3 `apollo-server`, started
 * by test_actions.py's `graphql_service` fixture, whose URL the engine gets as
 * GRAPHQL_SERVICE_HANDLER). Same type definitions, resolvers and `formatError` (extensions
 * dropped); served with graphql-js on every path, as apollo-server mounts its middleware on `/`.
 * Like Apollo Server 3, a request that does not parse or validate is answered 400, an executed one
 * 200.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import {
  buildSchema,
  execute,
  type GraphQLError,
  GraphQLError as GraphQLErrorClass,
  type GraphQLInterfaceType,
  type GraphQLObjectType,
  parse,
  validate,
} from "graphql";

const typeDefs = `
  interface Communication {
    id: Int!
    msg: String!
  }

  type Message implements Communication {
    id: Int!
    name: String!
    msg: String!
    errorMsg: String
  }

  type Query {
    hello: String
    message(id: Int!) : Message
  }
`;

const allMessages = [
  { id: 1, name: "Clarke", msg: "Welcome to the team, Clarke" },
  { id: 2, name: "Alice", msg: "Welcome to the team, Alice" },
];

function makeSchema() {
  const schema = buildSchema(typeDefs);
  const query = schema.getQueryType() as GraphQLObjectType;
  const fields = query.getFields();
  (fields.hello as { resolve?: unknown }).resolve = () => "world";
  // biome-ignore lint/suspicious/noDoubleEquals: the original compares with `==` (`m.id == id`).
  (fields.message as { resolve?: unknown }).resolve = (_: unknown, { id }: { id: unknown }) => allMessages.find((m) => m.id == id);
  const message = schema.getType("Message") as GraphQLObjectType;
  (message.getFields().errorMsg as { resolve?: unknown }).resolve = () => {
    // new ApolloError("intentional-error", "you asked for it"): message, then code (dropped by formatError).
    throw new GraphQLErrorClass("intentional-error");
  };
  const communication = schema.getType("Communication") as GraphQLInterfaceType;
  communication.resolveType = (value: unknown) => ((value as { name?: unknown }).name ? "Message" : undefined);
  return schema;
}

/** Apollo's `formatError: (err) => { delete err.extensions; return err; }`. */
function formatError(error: GraphQLError): Record<string, unknown> {
  const { extensions: _dropped, ...rest } = error.toJSON();
  return rest;
}

export interface RemoteSchemaServer {
  readonly url: string;
  close(): Promise<void>;
}

export async function startActionsRemoteJoinSchema(): Promise<RemoteSchemaServer> {
  const schema = makeSchema();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", async () => {
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { "Content-Type": "application/json; charset=utf-8" });
        res.end(`${JSON.stringify(body)}\n`);
      };
      if (req.method !== "POST") return send(400, { errors: [{ message: "GET query missing." }] });
      let request: { query?: unknown; variables?: Record<string, unknown>; operationName?: string };
      try {
        request = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch (error) {
        return send(400, { errors: [{ message: (error as Error).message }] });
      }
      if (typeof request.query !== "string")
        return send(400, { errors: [{ message: "POST body missing, invalid Content-Type, or JSON object has no keys." }] });
      let document: ReturnType<typeof parse>;
      try {
        document = parse(request.query);
      } catch (error) {
        return send(400, { errors: [formatError(error as GraphQLError)] });
      }
      const invalid = validate(schema, document);
      if (invalid.length > 0) return send(400, { errors: invalid.map(formatError) });
      const result = await execute({
        schema,
        document,
        variableValues: request.variables ?? undefined,
        operationName: request.operationName ?? undefined,
      });
      send(200, {
        ...(result.errors ? { errors: result.errors.map(formatError) } : {}),
        ...("data" in result ? { data: result.data } : {}),
      });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${address.address}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

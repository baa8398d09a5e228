/**
 * How the Apollo Server 3 (`apollo-server`) remotes of hasura/graphql-engine server/tests-py
 * remote_schemas/nodejs/ answer, served with graphql-js on every path (apollo-server mounts its
 * middleware on `/`), with Apollo Server 3's status codes: a request that does not parse,
 * validate or coerce its variables (errors and no `data`) is answered 400, an executed one 200;
 * errors lose their `extensions` (those servers' `formatError`).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { type ExecutionResult, execute, type GraphQLError, type GraphQLSchema, parse, validate } from "graphql";

/** Apollo's `formatError: (err) => { delete err.extensions; return err; }`. */
function formatError(error: GraphQLError): Record<string, unknown> {
  const { extensions: _dropped, ...rest } = error.toJSON();
  return rest;
}

interface Request {
  query?: unknown;
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
}

/** Apollo Server 3's answer to one request: its status and body. */
async function answer(schema: GraphQLSchema, request: Request): Promise<{ status: number; body: unknown }> {
  if (typeof request.query !== "string" || request.query === "")
    return {
      status: 400,
      body: { errors: [{ message: "GraphQL operations must contain a non-empty `query` or a `persistedQuery` extension." }] },
    };
  let document: ReturnType<typeof parse>;
  try {
    document = parse(request.query);
  } catch (error) {
    return { status: 400, body: { errors: [formatError(error as GraphQLError)] } };
  }
  const invalid = validate(schema, document);
  if (invalid.length > 0) return { status: 400, body: { errors: invalid.map(formatError) } };
  const result = (await execute({
    schema,
    document,
    variableValues: request.variables ?? undefined,
    operationName: request.operationName ?? undefined,
  })) as ExecutionResult;
  const body = {
    ...(result.errors ? { errors: result.errors.map(formatError) } : {}),
    ...("data" in result && result.data !== undefined ? { data: result.data } : {}),
  };
  // Errors without data (variables that do not coerce, an unknown operation) are a 400 in Apollo Server 3.
  return { status: result.errors && result.data === undefined ? 400 : 200, body };
}

export interface RemoteSchemaServer {
  readonly url: string;
  close(): Promise<void>;
}

/** An Apollo-like server of `schema` on a free loopback port. */
export async function startApolloServer(schema: GraphQLSchema): Promise<RemoteSchemaServer> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", async () => {
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { "Content-Type": "application/json; charset=utf-8" });
        res.end(`${JSON.stringify(body)}\n`);
      };
      if (req.method !== "POST") return send(400, { errors: [{ message: "GET query missing." }] });
      let request: Request;
      try {
        request = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Request;
      } catch (error) {
        return send(400, { errors: [{ message: (error as Error).message }] });
      }
      if (request === null || typeof request !== "object" || Object.keys(request).length === 0)
        return send(400, { errors: [{ message: "POST body missing, invalid Content-Type, or JSON object has no keys." }] });
      const { status, body } = await answer(schema, request);
      send(status, body);
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

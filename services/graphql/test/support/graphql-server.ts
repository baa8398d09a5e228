/**
 * A real GraphQL server standing in for a remote schema: graphql-js's `graphql()` over node:http on
 * 127.0.0.1 (a free port). Each path serves a schema of its own (SDL and resolvers given by the
 * test); every request is recorded (path, headers, parsed body). A path can be made slow, and the
 * server can be stopped and started again on the same port.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { buildSchema, type GraphQLSchema, graphql } from "graphql";

export interface RemoteRequest {
  path: string;
  headers: IncomingMessage["headers"];
  body: { query?: string; variables?: Record<string, unknown>; operationName?: string };
}

export interface RemoteRoute {
  schema: GraphQLSchema;
  /** The root value: resolvers of the root types' fields by name. */
  root?: Record<string, unknown>;
  /** Answer this late (ms). */
  delayMs?: number;
  /** Extra response headers. */
  headers?: Record<string, string>;
}

export interface GraphqlServer {
  url: string;
  requests: RemoteRequest[];
  route(path: string, route: RemoteRoute): void;
  /** Stops listening (connections refused) until `start`. */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

/** A schema from SDL; `resolveTypes` names the type of an abstract value (graphql-js's default reads `__typename`). */
export function schemaOf(sdl: string): GraphQLSchema {
  return buildSchema(sdl);
}

export async function startGraphqlServer(): Promise<GraphqlServer> {
  const routes = new Map<string, RemoteRoute>();
  const requests: RemoteRequest[] = [];
  let server: Server | undefined;
  let port = 0;
  const listen = async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", async () => {
        const text = Buffer.concat(chunks).toString("utf8");
        const request: RemoteRequest = { path: req.url ?? "", headers: req.headers, body: text ? JSON.parse(text) : {} };
        requests.push(request);
        const route = routes.get(request.path);
        if (!route) {
          res.writeHead(404, { "Content-Type": "application/json" });
          res.end(JSON.stringify({ errors: [{ message: "no such path" }] }));
          return;
        }
        if (route.delayMs) await new Promise((resolve) => setTimeout(resolve, route.delayMs));
        const result = await graphql({
          schema: route.schema,
          source: request.body.query ?? "",
          rootValue: route.root,
          variableValues: request.body.variables ?? null,
          operationName: request.body.operationName ?? null,
          contextValue: request,
        });
        if (res.destroyed) return;
        res.writeHead(200, { "Content-Type": "application/json", ...route.headers });
        res.end(JSON.stringify(result));
      });
    });
    await new Promise<void>((resolve) => server?.listen(port, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  };
  const stop = () =>
    new Promise<void>((resolve) => {
      server?.closeAllConnections();
      server?.close(() => resolve());
    });
  await listen();
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    route: (path, route) => routes.set(path, route),
    stop,
    start: listen,
    close: stop,
  };
}

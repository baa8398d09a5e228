/**
 * conftest.py's `gql_server` (hasura/graphql-engine server/tests-py graphql_server.py) ported: one
 * HTTP server whose paths each answer a GraphQL schema (remote-schemas-schemas.ts) as the Python
 * handlers do: POST only (GET is 405), a body without JSON is 400, the query run with the
 * variables only where the handler passes them, and the answers some handlers alter (an
 * introspection with a broken interface or union, the request echoed back, extensions, a
 * Set-Cookie). The engine gets its URL as REMOTE_SCHEMAS_WEBHOOK_DOMAIN. The server can be
 * stopped and started again on the same port (TestRemoteSchemaReload).
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type ExecutionResult, type GraphQLSchema, graphql } from "graphql";
import {
  characterSchema,
  countrySchema,
  echoSchema,
  headerSchema,
  helloSchema,
  jsonSchema,
  messagesSchema,
  personSchema,
  sampleAuthSchema,
  unionSchema,
  userSchema,
} from "./remote-schemas-schemas.js";

type Json = Record<string, unknown>;
type TypeDef = Json & { kind: string; name: string; fields?: Json[]; interfaces?: Json[]; possibleTypes?: Json[] };

interface Route {
  schema: GraphQLSchema;
  /** Whether the handler passes the request's variables (only the character and echo handlers do). */
  variables?: boolean;
  /** Changes the handler makes to an introspection answer's types. */
  types?: (types: TypeDef[]) => void;
  /** Changes to the whole answer given the request body. */
  answer?: (result: Json, body: Json) => Json;
  headers?: Record<string, string>;
  /** Types an introspection lists first, as graphene lists them (graphql-js puts argument types before field types). */
  leading?: string[];
}

const ifaceArg = () => ({
  name: "ifaceArg",
  description: null,
  type: { kind: "NON_NULL", name: null, ofType: { kind: "SCALAR", name: "Int", ofType: null } },
  defaultValue: null,
});

const fieldsOf = (t: TypeDef) => (t.fields ?? []) as Array<Json & { name: string; args: Json[]; type: Json }>;
const droidId = (types: TypeDef[]) =>
  fieldsOf(types.find((t) => t.kind === "OBJECT" && t.name === "Droid") as TypeDef).find((f) => f.name === "id");

function routes(): Record<string, Route> {
  const hello = helloSchema();
  const character = characterSchema();
  const union = unionSchema();
  const unionOrder = ["UnionQuery", "CharacterSearchResult"];
  return {
    "/hello-graphql": { schema: hello },
    "/hello-echo-request-graphql": {
      schema: hello,
      // The request itself as `hello`, unless the query is an introspection.
      answer: (result, body) => {
        const data = result.data as Json | undefined;
        if (data?.__schema) return result;
        return { ...result, data: { ...data, hello: body } };
      },
    },
    "/hello-graphql-extensions": {
      schema: hello,
      answer: (result) => ({ ...result, extensions: { message: "an extra field in response object" } }),
    },
    "/user-graphql": { schema: userSchema() },
    "/country-graphql": { schema: countrySchema() },
    "/character-iface-graphql": { schema: character, variables: true },
    "/iface-graphql-err-empty-field-list": {
      schema: character,
      types: (types) => {
        for (const t of types) if (t.kind === "INTERFACE") t.fields = [];
      },
    },
    "/iface-graphql-err-unknown-iface": {
      schema: character,
      types: (types) => {
        const droid = types.find((t) => t.kind === "OBJECT" && t.name === "Droid");
        if (droid?.interfaces?.[0]) droid.interfaces[0].name = "UnknownIFace";
      },
    },
    "/iface-graphql-err-missing-field": {
      schema: character,
      types: (types) => {
        const droid = types.find((t) => t.kind === "OBJECT" && t.name === "Droid");
        if (droid) droid.fields = fieldsOf(droid).filter((f) => f.name !== "id");
      },
    },
    "/iface-graphql-err-wrong-field-type": {
      schema: character,
      types: (types) => {
        const id = droidId(types);
        if (id) ((id.type as Json).ofType as Json).name = "String";
      },
    },
    "/iface-graphql-err-missing-arg": {
      schema: character,
      types: (types) => {
        for (const t of types) if (t.kind === "INTERFACE") for (const f of fieldsOf(t)) if (f.name === "id") f.args.push(ifaceArg());
      },
    },
    "/iface-graphql-err-wrong-arg-type": {
      schema: character,
      types: (types) => {
        for (const t of types) if (t.kind === "INTERFACE") for (const f of fieldsOf(t)) if (f.name === "id") f.args.push(ifaceArg());
        for (const t of types.filter((ty) => ty.name === "Droid" || ty.name === "Human"))
          for (const f of fieldsOf(t))
            if (f.name === "id") {
              const arg = ifaceArg();
              if (t.name === "Human") (arg.type.ofType as Json).name = "String";
              f.args.push(arg);
            }
      },
    },
    "/iface-graphql-err-extra-non-null-arg": {
      schema: character,
      types: (types) => {
        droidId(types)?.args.push({ ...ifaceArg(), name: "extraArg" });
      },
    },
    "/union-graphql": { schema: union, leading: unionOrder },
    "/union-graphql-err-unknown-types": {
      schema: union,
      leading: unionOrder,
      types: (types) => {
        for (const t of types) if (t.kind === "UNION") for (const [i, p] of (t.possibleTypes ?? []).entries()) p.name = `Unknown${i}`;
      },
    },
    "/union-graphql-err-subtype-iface": {
      schema: union,
      leading: unionOrder,
      types: (types) => {
        for (const t of types) if (t.kind === "UNION") for (const p of t.possibleTypes ?? []) p.name = "Character";
      },
    },
    "/union-graphql-err-no-member-types": {
      schema: union,
      leading: unionOrder,
      types: (types) => {
        for (const t of types) if (t.kind === "UNION") t.possibleTypes = [];
      },
    },
    "/union-graphql-err-wrapped-type": {
      schema: union,
      leading: unionOrder,
      types: (types) => {
        for (const t of types)
          if (t.kind === "UNION") t.possibleTypes = (t.possibleTypes ?? []).map((p) => ({ kind: "NON_NULL", name: null, ofType: p }));
      },
    },
    "/default-value-echo-graphql": { schema: echoSchema(), variables: true },
    "/person-graphql": { schema: personSchema() },
    "/header-graphql": { schema: headerSchema() },
    "/messages-graphql": { schema: messagesSchema() },
    "/auth-graphql": { schema: sampleAuthSchema(), headers: { "Set-Cookie": "abcd", "Custom-Header": "custom-value" } },
    "/json-scalar-graphql": { schema: jsonSchema() },
  };
}

/** graphene's `ExecutionResult.to_dict()`: errors when there are any, data unless the request was invalid. */
function toDict(result: ExecutionResult): Json {
  return {
    ...(result.errors ? { errors: result.errors.map((e) => e.toJSON()) } : {}),
    ...("data" in result ? { data: result.data ?? null } : {}),
  };
}

async function answer(route: Route, body: Json, request: IncomingMessage): Promise<Json> {
  const result = await graphql({
    schema: route.schema,
    source: String(body.query ?? ""),
    variableValues: route.variables ? ((body.variables as Json | null | undefined) ?? null) : null,
    contextValue: { headers: request.headers },
  });
  let dict = toDict(result);
  const types = ((dict.data as Json | undefined)?.__schema as Json | undefined)?.types as TypeDef[] | undefined;
  if (types && route.leading) {
    const rank = (t: TypeDef) => {
      const i = route.leading?.indexOf(t.name) ?? -1;
      return i < 0 ? Number.MAX_SAFE_INTEGER : i;
    };
    const sorted = types.map((t, i) => ({ t, i })).sort((a, b) => rank(a.t) - rank(b.t) || a.i - b.i);
    types.splice(0, types.length, ...sorted.map((x) => x.t));
  }
  if (types && route.types) route.types(types);
  if (route.answer) dict = route.answer(dict, body);
  return dict;
}

export interface GqlServer {
  readonly url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

/** The server of the class running now (TestRemoteSchemaReload stops and restarts it). */
let current: GqlServer | undefined;

export function currentGqlServer(): GqlServer {
  if (!current) throw new Error("no gql_server is running");
  return current;
}

export async function startGqlServer(): Promise<GqlServer> {
  const table = routes();
  let server: Server | undefined;
  let port = 0;
  const listen = async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", async () => {
        const route = table[req.url ?? ""];
        if (!route) {
          res.writeHead(404);
          res.end();
          return;
        }
        if (req.method !== "POST") {
          res.writeHead(405);
          res.end();
          return;
        }
        let body: Json | undefined;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Json;
        } catch {
          // Not JSON: the Python handlers answer 400 (`if not request.json`).
          body = undefined;
        }
        if (!body || Object.keys(body).length === 0) {
          res.writeHead(400);
          res.end();
          return;
        }
        const dict = await answer(route, body, req);
        if (res.destroyed) return;
        res.writeHead(200, { "Content-Type": "application/json", ...route.headers });
        res.end(JSON.stringify(dict));
      });
    });
    await new Promise<void>((resolve) => server?.listen(port, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  };
  const stop = () =>
    new Promise<void>((resolve) => {
      if (!server?.listening) return resolve();
      server.closeAllConnections();
      server.close(() => resolve());
    });
  await listen();
  const gql: GqlServer = {
    url: `http://127.0.0.1:${port}`,
    stop,
    start: listen,
    close: async () => {
      await stop();
      if (current === gql) current = undefined;
    },
  };
  current = gql;
  return gql;
}

/**
 * The query a remote relationship sends, as Hasura sends it: laid out on one line by its printer
 * (graphql-parser-hs), each distinct join value an alias `f<n>` numbered across all the joins of a
 * root field in the order the answer is read. A remote's errors come back to the client with
 * their `path` and `locations` in that query, so server/tests-py's query_with_errors_* cases
 * depend on both.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestDatabase, type TestDatabase, testBackends } from "./support/db.js";
import { type GraphqlServer, schemaOf, startGraphqlServer } from "./support/graphql-server.js";
import { ADMIN_HEADERS, admin, graphql, openService, type Service } from "./support/limits.js";

const SDL = `
  type Message { id: Int! msg: String! errorMsg: String }
  input IdFilter { eq: Int }
  input MessageWhere { id: IdFilter, name: String }
  type Query {
    message(id: Int!): Message
    messages(where: MessageWhere): [Message]
    hello(name: String): String
  }
`;

const messages = [
  { id: 1, msg: "one" },
  { id: 2, msg: "two" },
];

function root() {
  const withError = (m: { id: number; msg: string }) => ({
    ...m,
    errorMsg: () => {
      throw new Error("intentional-error");
    },
  });
  return {
    message: ({ id }: { id: number }) => {
      const found = messages.find((m) => m.id === id);
      return found ? withError(found) : null;
    },
    messages: ({ where }: { where?: { id?: { eq?: number } } }) =>
      messages.filter((m) => where?.id?.eq === undefined || m.id === where.id.eq).map(withError),
    hello: ({ name }: { name?: string }) => `hello ${name}`,
  };
}

describe.each(testBackends)("remote relationship requests [%s]", (backend) => {
  let handle: TestDatabase;
  let service: Service;
  let remote: GraphqlServer;
  const run = (query: string) => graphql(service, { query }, ADMIN_HEADERS).then((r) => r.body as Record<string, unknown>);
  const metadata = (body: unknown) => admin(service, "/v1/metadata", body);
  const sent = () => remote.requests.filter((r) => !String(r.body.query).includes("__schema")).map((r) => r.body.query);

  beforeAll(async () => {
    remote = await startGraphqlServer();
    remote.route("/messages", { schema: schemaOf(SDL), root: root() });
    handle = await openTestDatabase(backend);
    service = await openService(handle.db, { REMOTE_BASE: remote.url, HASURA_GRAPHQL_ADMIN_INTERNAL_ERRORS: "true" });
    const sqlDone = await admin(service, "/v2/query", {
      type: "run_sql",
      args: {
        sql: "CREATE TABLE profiles (id int PRIMARY KEY, name text NOT NULL); INSERT INTO profiles VALUES (1, 'a'), (2, 'b'), (3, 'a');",
      },
    });
    expect(sqlDone.status, JSON.stringify(sqlDone.body)).toBe(200);
    const rel = (name: string, lhs: string, remoteField: Record<string, unknown>) => ({
      type: "pg_create_remote_relationship",
      args: {
        table: "profiles",
        name,
        definition: { to_remote_schema: { remote_schema: "messages", lhs_fields: [lhs], remote_field: remoteField } },
      },
    });
    const setup = await metadata({
      type: "bulk",
      args: [
        { type: "pg_track_table", args: { table: "profiles" } },
        { type: "add_remote_schema", args: { name: "messages", definition: { url: "{{REMOTE_BASE}}/messages" } } },
        rel("message", "id", { message: { arguments: { id: "$id" } } }),
        rel("filtered", "id", { messages: { arguments: { where: { id: { eq: "$id" } } } } }),
        rel("greeting", "name", { hello: { arguments: { name: "$name" } } }),
      ],
    });
    expect(setup.status, JSON.stringify(setup.body)).toBe(200);
  }, 60_000);

  afterAll(async () => {
    await service?.close();
    await handle?.dispose();
    await remote?.close();
  });

  it("sends the query on one line, laid out as Hasura's printer lays it out", async () => {
    const before = sent().length;
    const body = await run("{ profiles(where: {id: {_lte: 2}}, order_by: {id: asc}) { id filtered { msg } } }");
    expect(body).toEqual({
      data: {
        profiles: [
          { id: 1, filtered: [{ msg: "one" }] },
          { id: 2, filtered: [{ msg: "two" }] },
        ],
      },
    });
    expect(sent().slice(before)).toEqual([
      "query  { f0: messages(where: {id: {eq: 1}}) { msg  } f1: messages(where: {id: {eq: 2}}) { msg  } }",
    ]);
  });

  it("numbers the join values across the joins of a root field, in the order it reads the rows", async () => {
    const before = sent().length;
    const body = await run("{ profiles(order_by: {id: asc}) { message { id } greeting } }");
    expect(body).toEqual({
      data: {
        profiles: [
          { message: { id: 1 }, greeting: "hello a" },
          { message: { id: 2 }, greeting: "hello b" },
          { message: null, greeting: "hello a" },
        ],
      },
    });
    // Rows 1, 2, 3: message(1) f0, hello("a") f1, message(2) f2, hello("b") f3, message(3) f4, hello("a") again f1.
    expect(new Set(sent().slice(before))).toEqual(
      new Set([
        "query  { f0: message(id: 1) { id  } f2: message(id: 2) { id  } f4: message(id: 3) { id  } }",
        'query  { f1: hello(name: "a")  f3: hello(name: "b")  }',
      ]),
    );
  });

  it("answers the remote's errors with their paths and locations in that query", async () => {
    const body = await run("{ profiles(where: {id: {_lte: 2}}, order_by: {id: asc}) { id message { msg errorMsg } } }");
    expect(body).toEqual({
      errors: [
        {
          message: "Errors from remote server",
          extensions: {
            path: "$",
            code: "unexpected",
            internal: {
              errors: [
                { message: "intentional-error", locations: [{ line: 1, column: 36 }], path: ["f0", "errorMsg"] },
                { message: "intentional-error", locations: [{ line: 1, column: 74 }], path: ["f1", "errorMsg"] },
              ],
            },
          },
        },
      ],
    });
  });
});

/**
 * The type of a remote relationship's field is the remote field's type as the remote declares
 * it, non-null wrappers included: Hasura wraps the field's parser with that type
 * (`P.wrapFieldParser nestedFieldType` in remoteRelationshipToSchemaField,
 * server/src-lib/Hasura/GraphQL/Schema/RemoteRelationship.hs), as it did before v2. A row whose
 * join value is null still answers null, as Hasura answers it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestDatabase, type TestDatabase, testBackends } from "./support/db.js";
import { type GraphqlServer, schemaOf, startGraphqlServer } from "./support/graphql-server.js";
import { ADMIN_HEADERS, admin, graphql, openService, type Service } from "./support/limits.js";

const SDL = `
  type Badge { key: String! }
  type Query {
    badges(owner: String): [Badge!]!
    badge(owner: String): Badge
  }
`;

const root = {
  badges: ({ owner }: { owner: string }) => [{ key: `${owner}-1` }, { key: `${owner}-2` }],
  badge: ({ owner }: { owner: string }) => ({ key: `${owner}-main` }),
};

type TypeRef = { kind: string; name: string | null; ofType: TypeRef | null };

/** `[Badge!]!`-style text of an introspected type. */
const text = (t: TypeRef): string =>
  t.kind === "NON_NULL" ? `${text(t.ofType as TypeRef)}!` : t.kind === "LIST" ? `[${text(t.ofType as TypeRef)}]` : String(t.name);

describe.each(testBackends)("remote relationship field types [%s]", (backend) => {
  let handle: TestDatabase;
  let service: Service;
  let remote: GraphqlServer;
  const run = async (query: string) => (await graphql(service, { query }, ADMIN_HEADERS)).body;

  beforeAll(async () => {
    remote = await startGraphqlServer();
    remote.route("/badges", { schema: schemaOf(SDL), root });
    handle = await openTestDatabase(backend);
    service = await openService(handle.db, { BADGES_URL: `${remote.url}/badges` });
    const created = await admin(service, "/v2/query", {
      type: "run_sql",
      args: { sql: "CREATE TABLE owners (id int PRIMARY KEY, handle text); INSERT INTO owners VALUES (1, 'ada'), (2, NULL);" },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const rel = (name: string, field: string) => ({
      type: "pg_create_remote_relationship",
      args: {
        table: "owners",
        name,
        definition: {
          to_remote_schema: {
            remote_schema: "badges",
            lhs_fields: ["handle"],
            remote_field: { [field]: { arguments: { owner: "$handle" } } },
          },
        },
      },
    });
    const setup = await admin(service, "/v1/metadata", {
      type: "bulk",
      args: [
        { type: "pg_track_table", args: { table: "owners" } },
        { type: "add_remote_schema", args: { name: "badges", definition: { url: "{{BADGES_URL}}" } } },
        rel("badges", "badges"),
        rel("badge", "badge"),
      ],
    });
    expect(setup.status, JSON.stringify(setup.body)).toBe(200);
  });

  afterAll(async () => {
    await service?.close();
    await handle?.dispose();
    await remote?.close();
  });

  it("keeps the remote field's declared type", async () => {
    const body = (await run(
      `{ __type(name: "owners") { fields { name type { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } } }`,
    )) as { data: { __type: { fields: { name: string; type: TypeRef }[] } } };
    const types = Object.fromEntries(body.data.__type.fields.map((f) => [f.name, text(f.type)]));
    expect(types.badges).toBe("[Badge!]!");
    expect(types.badge).toBe("Badge");
  });

  it("answers null for a row whose join value is null", async () => {
    expect(await run("{ owners(order_by: {id: asc}) { id badges { key } badge { key } } }")).toEqual({
      data: {
        owners: [
          { id: 1, badges: [{ key: "ada-1" }, { key: "ada-2" }], badge: { key: "ada-main" } },
          { id: 2, badges: null, badge: null },
        ],
      },
    });
  });
});

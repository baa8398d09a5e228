/** Tracked SQL functions through the engine core: root fields, args, aggregates, permissions, session arguments, mutations. */
import { describe, expect, it } from "vitest";
import type { Metadata } from "../src/engine/metadata/types.js";
import type { Session } from "../src/engine/request/session.js";
import { testBackends } from "./support/db.js";
import { ADMIN, asRole, metadataWith, useTestEngine, withRoleVariable } from "./support/engine.js";

const SCHEMA = `
CREATE TABLE article (id serial PRIMARY KEY, title text NOT NULL, owner int NOT NULL, published boolean NOT NULL DEFAULT false, views int NOT NULL DEFAULT 0);
CREATE TABLE sum_result (result integer);
INSERT INTO article (title, owner, published) VALUES ('GraphQL intro', 1, true), ('GraphQL drafts', 1, false), ('SQL tips', 2, true);
CREATE FUNCTION search_articles(search text) RETURNS SETOF article AS $$
  SELECT * FROM article WHERE title ILIKE '%' || search || '%'
$$ LANGUAGE sql STABLE;
CREATE FUNCTION my_articles(hasura_session json) RETURNS SETOF article AS $$
  SELECT * FROM article WHERE owner = (hasura_session ->> 'x-hasura-user-id')::int
$$ LANGUAGE sql STABLE;
CREATE FUNCTION my_add(first integer, second integer DEFAULT 10) RETURNS SETOF sum_result AS $$
  SELECT first + second
$$ LANGUAGE sql IMMUTABLE;
CREATE FUNCTION positional_add(integer, integer DEFAULT 5) RETURNS SETOF sum_result AS $$
  SELECT $1 + $2
$$ LANGUAGE sql IMMUTABLE;
CREATE FUNCTION newest_article() RETURNS article AS $$
  SELECT * FROM article ORDER BY id DESC LIMIT 1
$$ LANGUAGE sql STABLE;
CREATE FUNCTION view_article(article_id integer) RETURNS SETOF article AS $$
  UPDATE article SET views = views + 1 WHERE id = article_id RETURNING *
$$ LANGUAGE sql VOLATILE;
CREATE FUNCTION all_articles_volatile() RETURNS SETOF article AS $$
  SELECT * FROM article
$$ LANGUAGE sql VOLATILE;
`;

const name = (n: string) => ({ schema: "public", name: n });

function metadata(): Metadata {
  return metadataWith(
    [
      {
        table: name("article"),
        select_permissions: [
          { role: "user", permission: { columns: ["id", "title", "owner"], filter: { published: { _eq: true } } } },
          { role: "owner", permission: { columns: "*", filter: {}, allow_aggregations: true } },
        ],
      },
      { table: name("sum_result") },
    ],
    [
      { function: name("search_articles") },
      { function: name("my_articles"), configuration: { session_argument: "hasura_session" } },
      { function: name("my_add") },
      { function: name("positional_add"), configuration: { custom_name: "add_positional" } },
      { function: name("newest_article"), configuration: { custom_root_fields: { function: "latest_article" } } },
      { function: name("view_article"), permissions: [{ role: "owner" }] },
      { function: name("all_articles_volatile"), configuration: { exposed_as: "query" } },
    ],
  );
}

// Sessions carry their role as x-hasura-role too, as Hasura gives them to SQL functions.
const admin = withRoleVariable(ADMIN);
const as = (role: string, variables?: Record<string, string>): Session => withRoleVariable(asRole(role, variables));

const ROOTS = `{ __schema { queryType { fields { name description args { name type { kind name ofType { name } } } type { kind name } } }
  mutationType { fields { name } } subscriptionType { fields { name } } } }`;

describe.each(testBackends)("tracked functions on %s", (backend) => {
  const { run } = useTestEngine(backend, { schema: SCHEMA, metadata, session: admin });
  const names = (list: Array<{ name: string }> | null | undefined) => (list ?? []).map((f) => f.name);

  describe("schema", () => {
    it("exposes functions as query, subscription and mutation root fields", async () => {
      const schema = (await run(ROOTS)).data.__schema;
      const query = names(schema.queryType.fields);
      expect(query).toEqual(
        expect.arrayContaining([
          "search_articles",
          "search_articles_aggregate",
          "my_articles",
          "my_add",
          "add_positional",
          "add_positional_aggregate",
          "latest_article",
          "newest_article_aggregate",
          "all_articles_volatile",
        ]),
      );
      expect(query).not.toContain("view_article");
      expect(names(schema.mutationType.fields)).toEqual(expect.arrayContaining(["view_article"]));
      expect(names(schema.subscriptionType.fields)).toEqual(expect.arrayContaining(["search_articles", "search_articles_aggregate"]));
      const field = (n: string) => schema.queryType.fields.find((f: { name: string }) => f.name === n);
      expect(field("search_articles").description).toBe(`execute function "search_articles" which returns "article"`);
      expect(field("search_articles_aggregate").description).toBe(
        `execute function "search_articles" and query aggregates on result of table type "article"`,
      );
      expect(names(field("search_articles").args)).toEqual(["args", "distinct_on", "limit", "offset", "order_by", "where"]);
      expect(field("search_articles").args[0].type).toEqual({ kind: "NON_NULL", name: null, ofType: { name: "search_articles_args" } });
      // No user inputs (the session argument is implicit): no args argument.
      expect(names(field("my_articles").args)).toEqual(["distinct_on", "limit", "offset", "order_by", "where"]);
      expect(field("add_positional").args[0].type).toEqual({ kind: "NON_NULL", name: null, ofType: { name: "add_positional_args" } });
      // A function returning one row is a nullable object field.
      expect(field("latest_article").type).toEqual({ kind: "OBJECT", name: "article" });
    });

    it("names input fields after the SQL arguments, arg_<n> for unnamed ones", async () => {
      const q = `query ($n: String!) { __type(name: $n) { inputFields { name type { kind name } } } }`;
      expect((await run(q, admin, { n: "my_add_args" })).data.__type.inputFields).toEqual([
        { name: "first", type: { kind: "SCALAR", name: "Int" } },
        { name: "second", type: { kind: "SCALAR", name: "Int" } },
      ]);
      expect(names((await run(q, admin, { n: "add_positional_args" })).data.__type.inputFields)).toEqual(["arg_1", "arg_2"]);
    });

    it("follows the returned table's select permission for each role", async () => {
      const user = (await run(ROOTS, as("user"))).data.__schema;
      expect(names(user.queryType.fields)).toEqual(expect.arrayContaining(["search_articles", "my_articles"]));
      expect(names(user.queryType.fields)).not.toContain("search_articles_aggregate");
      expect(names(user.queryType.fields)).not.toContain("my_add");
      expect(user.mutationType).toBeNull();
      const owner = (await run(ROOTS, as("owner"))).data.__schema;
      expect(names(owner.queryType.fields)).toContain("search_articles_aggregate");
      expect(names(owner.mutationType.fields)).toEqual(["view_article"]);
      const anonymous = (await run(ROOTS, as("anonymous"))).data.__schema;
      expect(names(anonymous.queryType.fields)).toEqual(["no_queries_available"]);
    });
  });

  describe("queries", () => {
    it("calls the function with args and applies where, order_by and limit", async () => {
      const body = await run(`{
        all: search_articles(args: {search: "graphql"}, order_by: {id: desc}) { id title }
        published: search_articles(args: {search: "graphql"}, where: {published: {_eq: true}}) { id }
        one: search_articles(args: {search: ""}, order_by: {id: asc}, limit: 1, offset: 1) { id }
      }`);
      expect(body.data).toEqual({
        all: [
          { id: 2, title: "GraphQL drafts" },
          { id: 1, title: "GraphQL intro" },
        ],
        published: [{ id: 1 }],
        one: [{ id: 2 }],
      });
    });

    it("aggregates over the function's rows", async () => {
      const body = await run(`{ search_articles_aggregate(args: {search: "graphql"}) { aggregate { count max { id } } nodes { id } } }`);
      expect(body.data.search_articles_aggregate).toEqual({ aggregate: { count: 2, max: { id: 2 } }, nodes: [{ id: 1 }, { id: 2 }] });
    });

    it("binds args from variables and reuses the plan", async () => {
      const query = `query ($s: String!) { search_articles(args: {search: $s}) { id } }`;
      expect((await run(query, admin, { s: "sql" })).data.search_articles).toEqual([{ id: 3 }]);
      expect((await run(query, admin, { s: "intro" })).data.search_articles).toEqual([{ id: 1 }]);
    });

    it("uses defaults for omitted arguments and passes explicit nulls", async () => {
      const body = await run(`{
        a: my_add(args: {first: 2, second: 3}) { result }
        b: my_add(args: {first: 2}) { result }
        c: my_add(args: {first: null, second: 3}) { result }
        d: add_positional(args: {arg_1: 1}) { result }
      }`);
      expect(body.data).toEqual({ a: [{ result: 5 }], b: [{ result: 12 }], c: [{ result: null }], d: [{ result: 6 }] });
    });

    it("refuses an omitted argument that has no default, as Hasura does", async () => {
      const missing = await run(`{ my_add(args: {second: 3}) { result } }`);
      expect(missing.errors[0]).toEqual({
        message: "Non default arguments cannot be omitted",
        extensions: { code: "not-supported", path: "$.selectionSet.my_add.args.args" },
      });
      const notLast = await run(`{ add_positional(args: {arg_2: 3}) { result } }`);
      expect(notLast.errors[0].message).toBe("Non default arguments cannot be omitted");
    });

    it("returns a single row for a function that is not SETOF", async () => {
      const body = await run(`{ latest_article { id title } newest_article_aggregate { aggregate { count } } }`);
      expect(body.data).toEqual({ latest_article: { id: 3, title: "SQL tips" }, newest_article_aggregate: { aggregate: { count: 1 } } });
    });

    it("exposes a VOLATILE function as a query when configured so", async () => {
      const body = await run(`{ all_articles_volatile_aggregate { aggregate { count } } }`);
      expect(body.data.all_articles_volatile_aggregate.aggregate.count).toBe(3);
    });

    it("answers an unknown function with Hasura's validation error", async () => {
      const body = await run(`{ search_everything(args: {search: "x"}) { id } }`);
      expect(body.errors[0]).toEqual({
        message: expect.stringMatching(/^field .search_everything. not found in type: 'query_root'$/),
        extensions: { code: "validation-failed", path: "$.selectionSet.search_everything" },
      });
    });
  });

  describe("permissions and session", () => {
    it("filters the function's rows with the role's select permission", async () => {
      const body = await run(`{ search_articles(args: {search: "graphql"}) { id title } }`, as("user"));
      expect(body.data.search_articles).toEqual([{ id: 1, title: "GraphQL intro" }]);
      const hidden = await run(`{ search_articles(args: {search: "graphql"}) { published } }`, as("user"));
      expect(hidden.errors[0].extensions.code).toBe("validation-failed");
    });

    it("passes the session to the session argument", async () => {
      const query = `{ my_articles(order_by: {id: asc}) { id } }`;
      expect((await run(query, as("owner", { "x-hasura-user-id": "1" }))).data.my_articles).toEqual([{ id: 1 }, { id: 2 }]);
      expect((await run(query, as("owner", { "x-hasura-user-id": "2" }))).data.my_articles).toEqual([{ id: 3 }]);
      expect((await run(query, as("user", { "x-hasura-user-id": "1" }))).data.my_articles).toEqual([{ id: 1 }]);
    });
  });

  describe("mutations", () => {
    it("runs a VOLATILE function in mutation_root, in the request's transaction", async () => {
      const body = await run(`mutation { view_article(args: {article_id: 3}) { id views } }`, as("owner"));
      expect(body.data.view_article).toEqual([{ id: 3, views: 1 }]);
      const again = await run(
        `mutation { a: view_article(args: {article_id: 3}) { views } b: view_article(args: {article_id: 3}) { views } }`,
      );
      expect(again.data).toEqual({ a: [{ views: 2 }], b: [{ views: 3 }] });
      const denied = await run(`mutation { view_article(args: {article_id: 3}) { id } }`, as("user"));
      expect(denied.errors[0].extensions.code).toBe("validation-failed");
    });
  });
});

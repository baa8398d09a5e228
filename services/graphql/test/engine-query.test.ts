/** Queries through the engine core: one SQL statement per operation, Hasura's shapes and errors. */
import { describe, expect, it } from "vitest";
import type { Metadata } from "../src/engine/metadata/types.js";
import { testBackends } from "./support/db.js";
import { ADMIN, asRole, metadataWith, useTestEngine } from "./support/engine.js";

const SCHEMA = `
CREATE TABLE author (id serial PRIMARY KEY, name text NOT NULL, bio jsonb, email text);
CREATE TABLE article (
  id serial PRIMARY KEY, title text NOT NULL, content text, author_id int NOT NULL REFERENCES author(id),
  is_published boolean NOT NULL DEFAULT false, rating numeric, published_on timestamptz
);
INSERT INTO author (name, bio, email) VALUES
  ('Alice', '{"lang": "en", "tags": ["a"]}', 'alice@example.com'),
  ('Bob', '{"lang": "de"}', 'bob@example.com'),
  ('Carol', NULL, NULL);
INSERT INTO article (title, content, author_id, is_published, rating, published_on) VALUES
  ('A1', 'first by alice', 1, true, 4.5, '2026-01-01T10:00:00Z'),
  ('A2', 'second by alice', 1, false, 3, NULL),
  ('B1', 'only by bob', 2, true, 5, '2026-02-01T00:00:00Z');
`;

function metadata(): Metadata {
  return metadataWith([
    {
      table: { schema: "public", name: "author" },
      array_relationships: [
        { name: "articles", using: { foreign_key_constraint_on: { table: { schema: "public", name: "article" }, column: "author_id" } } },
      ],
      select_permissions: [
        { role: "user", permission: { columns: ["id", "name"], filter: {}, allow_aggregations: false } },
        { role: "self", permission: { columns: "*", filter: { id: { _eq: "X-Hasura-User-Id" } } } },
      ],
    },
    {
      table: { schema: "public", name: "article" },
      object_relationships: [{ name: "author", using: { foreign_key_constraint_on: "author_id" } }],
      select_permissions: [
        {
          role: "user",
          permission: {
            columns: ["id", "title", "author_id"],
            filter: { is_published: { _eq: true } },
            limit: 1,
            allow_aggregations: true,
          },
        },
        { role: "self", permission: { columns: "*", filter: { author: { id: { _eq: "X-Hasura-User-Id" } } }, allow_aggregations: true } },
      ],
    },
  ]);
}

describe.each(testBackends)("%s", (backend) => {
  const suite = useTestEngine(backend, { schema: SCHEMA, metadata });
  const { run } = suite;

  describe("select", () => {
    it("lists rows with nested object and array relationships in selection order", async () => {
      const body = await run(`{ author(order_by: {id: asc}) { name id articles(order_by: {id: desc}) { title author { name } } } }`);
      expect(JSON.stringify(body.data.author[0])).toBe(
        JSON.stringify({
          name: "Alice",
          id: 1,
          articles: [
            { title: "A2", author: { name: "Alice" } },
            { title: "A1", author: { name: "Alice" } },
          ],
        }),
      );
      expect(body.data.author[2]).toEqual({ name: "Carol", id: 3, articles: [] });
    });

    it("filters with operators, relationships and boolean combinators", async () => {
      const q = (where: string) => run(`{ article(where: ${where}, order_by: {id: asc}) { title } }`);
      expect((await q(`{title: {_in: []}}`)).data.article).toEqual([]);
      expect((await q(`{title: {_ilike: "a%"}}`)).data.article).toEqual([{ title: "A1" }, { title: "A2" }]);
      expect((await q(`{author: {name: {_eq: "Bob"}}}`)).data.article).toEqual([{ title: "B1" }]);
      expect((await q(`{_or: [{title: {_eq: "A1"}}, {rating: {_gte: 5}}]}`)).data.article).toEqual([{ title: "A1" }, { title: "B1" }]);
      expect((await q(`{_not: {is_published: {_eq: true}}}`)).data.article).toEqual([{ title: "A2" }]);
      expect((await q(`{published_on: {_is_null: true}}`)).data.article).toEqual([{ title: "A2" }]);
      const authors = await run(`{ author(where: {bio: {_has_key: "tags"}}) { name } }`);
      expect(authors.data.author).toEqual([{ name: "Alice" }]);
      const contains = await run(`{ author(where: {bio: {_contains: {lang: "de"}}}) { name } }`);
      expect(contains.data.author).toEqual([{ name: "Bob" }]);
    });

    it("orders by object relationships and array aggregates, pages with limit and offset", async () => {
      const byAuthor = await run(`{ article(order_by: [{author: {name: desc}}, {id: asc}]) { title } }`);
      expect(byAuthor.data.article.map((a: { title: string }) => a.title)).toEqual(["B1", "A1", "A2"]);
      const byCount = await run(`{ author(order_by: {articles_aggregate: {count: desc}}, limit: 2) { name } }`);
      expect(byCount.data.author).toEqual([{ name: "Alice" }, { name: "Bob" }]);
      const paged = await run(`{ article(order_by: {id: asc}, limit: 1, offset: 1) { id } }`);
      expect(paged.data.article).toEqual([{ id: 2 }]);
    });

    it("applies distinct_on with its ordering rule", async () => {
      const ok = await run(`{ article(distinct_on: [author_id], order_by: [{author_id: asc}, {id: desc}]) { title } }`);
      expect(ok.data.article).toEqual([{ title: "A2" }, { title: "B1" }]);
      const bad = await run(`{ article(distinct_on: [author_id], order_by: {id: asc}) { title } }`);
      expect(bad).toEqual({
        errors: [
          {
            message: '"distinct_on" columns must match initial "order_by" columns',
            extensions: { path: "$.selectionSet.article.args", code: "validation-failed" },
          },
        ],
      });
    });

    it("reports unknown operators and directives in Hasura's words, at the argument's path", async () => {
      const op = await run(`{ author(where: {name: {_ne: "x"}}) { id } }`);
      expect(op.errors[0]).toEqual({
        message: "field '_ne' not found in type: 'String_comparison_exp'",
        extensions: { path: "$.selectionSet.author.args.where.name._ne", code: "validation-failed" },
      });
      const directive = await run(`{ author { id @exclude } }`);
      expect(directive.errors[0].message).toBe('directive "exclude" is not defined in the schema');
      const negative = await run(`{ author(limit: -1) { id } }`);
      expect(negative.errors[0].extensions).toEqual({ path: "$.selectionSet.author.args.limit", code: "validation-failed" });
    });

    it("compares jsonb with JSON values, a string being a JSON string", async () => {
      const body = await run(`query ($v: jsonb) { author(where: {bio: {_contains: $v}}) { name } }`, ADMIN, { v: { tags: ["a"] } });
      expect(body.data.author).toEqual([{ name: "Alice" }]);
      const text = await run(`query ($v: jsonb) { author(where: {bio: {_eq: $v}}) { name } }`, ADMIN, { v: "en" });
      expect(text).toEqual({ data: { author: [] } });
    });

    it("fetches by primary key, null when absent, with variables", async () => {
      const query = `query ($id: Int!) { author_by_pk(id: $id) { name } }`;
      expect((await run(query, ADMIN, { id: 2 })).data).toEqual({ author_by_pk: { name: "Bob" } });
      expect((await run(query, ADMIN, { id: 99 })).data).toEqual({ author_by_pk: null });
    });

    it("aggregates with aliases and nodes", async () => {
      const body = await run(
        `{ article_aggregate(where: {is_published: {_eq: true}}) { aggregate { total: count sum { rating } max { title } avg { rating } } nodes { id } } }`,
      );
      expect(body.data.article_aggregate.aggregate.total).toBe(2);
      expect(body.data.article_aggregate.aggregate.sum.rating).toBe(9.5);
      expect(body.data.article_aggregate.aggregate.max.title).toBe("B1");
      expect(body.data.article_aggregate.nodes).toEqual([{ id: 1 }, { id: 3 }]);
      const nested = await run(
        `{ author(where: {id: {_eq: 1}}) { articles_aggregate { aggregate { count(columns: [is_published], distinct: true) } } } }`,
      );
      expect(nested.data.author[0].articles_aggregate.aggregate.count).toBe(2);
    });

    it("stringifies bigint and numeric values with HASURA_GRAPHQL_STRINGIFY_NUMERIC_TYPES", async () => {
      const stringify = suite.engineWith({ stringifyNumeric: true });
      const body = JSON.parse(
        await stringify.execute(
          {
            query: `{ article(where: {id: {_eq: 1}}) { id rating } article_aggregate { aggregate { avg { rating } sum { rating } max { id } } } }`,
          },
          ADMIN,
        ),
      );
      expect(body.data.article).toEqual([{ id: 1, rating: "4.5" }]);
      // Statistical aggregates are Float in Hasura's schema: numbers even when numerics are stringified.
      expect(body.data.article_aggregate.aggregate.avg.rating).toBeCloseTo(12.5 / 3);
      expect(body.data.article_aggregate.aggregate.sum.rating).toBe("12.5");
      expect(body.data.article_aggregate.aggregate.max.id).toBe(3);
    });

    it("answers __typename and introspection", async () => {
      const typename = await run(`{ __typename author(limit: 1) { __typename id } }`);
      expect(typename.data).toEqual({ __typename: "query_root", author: [{ __typename: "author", id: 1 }] });
      const intro = await run(`{ __type(name: "author") { fields { name } } author(limit: 1) { id } }`);
      expect(intro.data.__type.fields.map((f: { name: string }) => f.name)).toEqual([
        "articles",
        "articles_aggregate",
        "bio",
        "email",
        "id",
        "name",
      ]);
      expect(intro.data.author).toEqual([{ id: 1 }]);
    });

    it("has subscription_root with the list, aggregate, by_pk and _stream fields and the stream cursor types", async () => {
      const root = await run(`{ __schema { subscriptionType { fields { name args { name type { kind name ofType { name } } } } } } }`);
      const fields = root.data.__schema.subscriptionType.fields as Array<{ name: string; args: Array<{ name: string; type: unknown }> }>;
      expect(fields.map((f) => f.name)).toEqual([
        "article",
        "article_aggregate",
        "article_by_pk",
        "article_stream",
        "author",
        "author_aggregate",
        "author_by_pk",
        "author_stream",
      ]);
      expect(fields.find((f) => f.name === "article_stream")?.args).toEqual([
        { name: "batch_size", type: { kind: "NON_NULL", name: null, ofType: { name: "Int" } } },
        { name: "cursor", type: { kind: "NON_NULL", name: null, ofType: { name: null } } },
        { name: "where", type: { kind: "INPUT_OBJECT", name: "article_bool_exp", ofType: null } },
      ]);
      const cursor = await run(`{ __type(name: "article_stream_cursor_input") { inputFields { name type { name ofType { name } } } } }`);
      expect(cursor.data.__type.inputFields).toEqual([
        { name: "initial_value", type: { name: null, ofType: { name: "article_stream_cursor_value_input" } } },
        { name: "ordering", type: { name: "cursor_ordering", ofType: null } },
      ]);
      const user = await run(`{ __schema { subscriptionType { fields { name } } } }`, asRole("user"));
      expect(user.data.__schema.subscriptionType.fields.map((f: { name: string }) => f.name)).toEqual([
        "article",
        "article_aggregate",
        "article_by_pk",
        "article_stream",
        "author",
        "author_by_pk",
        "author_stream",
      ]);
    });
  });

  describe("permissions", () => {
    it("limits columns, rows and row count per role", async () => {
      const body = await run(`{ article(order_by: {id: asc}) { id title } }`, asRole("user"));
      expect(body).toEqual({ data: { article: [{ id: 1, title: "A1" }] } });
      const hidden = await run(`{ author { email } }`, asRole("user"));
      expect(hidden).toEqual({
        errors: [
          {
            message: `field 'email' not found in type: 'author'`,
            extensions: { path: "$.selectionSet.author.selectionSet.email", code: "validation-failed" },
          },
        ],
      });
      const noAgg = await run(`{ author_aggregate { aggregate { count } } }`, asRole("user"));
      expect(noAgg.errors[0]).toEqual({
        message: `field 'author_aggregate' not found in type: 'query_root'`,
        extensions: { path: "$.selectionSet.author_aggregate", code: "validation-failed" },
      });
    });

    it("filters by session variables through relationships", async () => {
      const body = await run(`{ author { name } article(order_by: {id: asc}) { title } }`, asRole("self", { "x-hasura-user-id": "2" }));
      expect(body.data).toEqual({ author: [{ name: "Bob" }], article: [{ title: "B1" }] });
      const missing = await run(`{ author { name } }`, asRole("self"));
      expect(missing.errors[0].extensions.code).toBe("not-found");
    });

    it("answers 'no mutations exist' to a role without mutation permissions", async () => {
      const body = await run(`mutation { insert_author(objects: []) { affected_rows } }`, asRole("user"));
      expect(body).toEqual({ errors: [{ message: "no mutations exist", extensions: { path: "$", code: "validation-failed" } }] });
    });
  });
});

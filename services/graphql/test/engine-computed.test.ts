/** Computed fields through the engine core: schema per role, select, where, order_by, permissions, session arguments. */
import { describe, expect, it } from "vitest";
import type { Metadata } from "../src/engine/metadata/types.js";
import type { Session } from "../src/engine/request/session.js";
import { testBackends } from "./support/db.js";
import { ADMIN, asRole, metadataWith, useTestEngine, withRoleVariable } from "./support/engine.js";

const SCHEMA = `
CREATE TABLE author (id serial PRIMARY KEY, first_name text NOT NULL, last_name text);
CREATE TABLE article (
  id serial PRIMARY KEY, title text NOT NULL, author_id int NOT NULL REFERENCES author(id), published boolean NOT NULL DEFAULT false
);
INSERT INTO author (first_name, last_name) VALUES ('Ada', 'Lovelace'), ('Alan', NULL), ('Grace', 'Hopper');
INSERT INTO article (title, author_id, published) VALUES
  ('Analytical engines', 1, true), ('Notes', 1, false), ('Computable numbers', 2, true), ('Another draft', 2, false);
CREATE FUNCTION author_full_name(author_row author) RETURNS text AS $$
  SELECT author_row.first_name || coalesce(' ' || author_row.last_name, '')
$$ LANGUAGE sql STABLE;
CREATE FUNCTION author_article_count(author_row author) RETURNS bigint AS $$
  SELECT count(*) FROM article WHERE author_id = author_row.id
$$ LANGUAGE sql STABLE;
CREATE FUNCTION author_articles(author_row author, search text DEFAULT '') RETURNS SETOF article AS $$
  SELECT * FROM article WHERE author_id = author_row.id AND title ILIKE '%' || search || '%'
$$ LANGUAGE sql STABLE;
CREATE FUNCTION author_all_articles(author_row author) RETURNS SETOF article AS $$
  SELECT * FROM article WHERE author_id = author_row.id
$$ LANGUAGE sql STABLE;
CREATE FUNCTION author_greeting(greeting text, author_row author) RETURNS text AS $$
  SELECT greeting || ', ' || author_row.first_name
$$ LANGUAGE sql IMMUTABLE;
CREATE FUNCTION author_is_me(author_row author, hasura_session json) RETURNS boolean AS $$
  SELECT author_row.id = (hasura_session ->> 'x-hasura-user-id')::int
$$ LANGUAGE sql STABLE;
CREATE FUNCTION author_session_value(hasura_session json, author_row author, key text) RETURNS text AS $$
  SELECT hasura_session ->> key
$$ LANGUAGE sql STABLE;
`;

const fn = (name: string) => ({ schema: "public", name });

function metadata(): Metadata {
  return metadataWith([
    {
      table: fn("author"),
      array_relationships: [{ name: "articles", using: { foreign_key_constraint_on: { table: fn("article"), column: "author_id" } } }],
      computed_fields: [
        { name: "full_name", definition: { function: fn("author_full_name") }, comment: "first and last name" },
        { name: "article_count", definition: { function: fn("author_article_count"), table_argument: "author_row" } },
        { name: "matching_articles", definition: { function: fn("author_articles"), table_argument: "author_row" } },
        { name: "all_articles", definition: { function: fn("author_all_articles") } },
        { name: "greeting", definition: { function: fn("author_greeting"), table_argument: "author_row" } },
        { name: "is_me", definition: { function: fn("author_is_me"), session_argument: "hasura_session" } },
        {
          name: "session_value",
          definition: { function: fn("author_session_value"), table_argument: "author_row", session_argument: "hasura_session" },
        },
      ],
      select_permissions: [
        { role: "user", permission: { columns: ["id", "first_name"], computed_fields: ["full_name", "article_count"], filter: {} } },
        { role: "reader", permission: { columns: ["id"], filter: { all_articles: { title: { _like: "Comp%" } } } } },
        {
          role: "self",
          permission: { columns: ["id", "first_name"], computed_fields: ["is_me", "session_value"], filter: { is_me: { _eq: true } } },
        },
      ],
    },
    {
      table: fn("article"),
      select_permissions: [
        { role: "user", permission: { columns: ["id", "title"], filter: { published: { _eq: true } }, allow_aggregations: true } },
        { role: "self", permission: { columns: ["id", "title"], filter: {} } },
      ],
    },
  ]);
}

// Sessions carry their role as x-hasura-role too, as Hasura gives them to SQL functions.
const admin = withRoleVariable(ADMIN);
const as = (role: string, variables?: Record<string, string>): Session => withRoleVariable(asRole(role, variables));

const TYPE_QUERY = `query ($name: String!) { __type(name: $name) { fields { name type { name kind ofType { name kind } } args { name type { name kind ofType { name } } } } inputFields { name type { name kind ofType { name } } } } }`;

describe.each(testBackends)("computed fields on %s", (backend) => {
  const suite = useTestEngine(backend, { schema: SCHEMA, metadata, session: admin });
  const { run } = suite;
  const typeOf = async (name: string, session: Session = admin) => (await run(TYPE_QUERY, session, { name })).data.__type;
  const names = (list: Array<{ name: string }> | null | undefined) => (list ?? []).map((f) => f.name);

  describe("schema", () => {
    it("gives admin every computed field, with args and select arguments", async () => {
      const author = await typeOf("author");
      const field = (name: string) => author.fields.find((f: { name: string }) => f.name === name);
      expect(names(author.fields)).toEqual(
        expect.arrayContaining(["full_name", "article_count", "matching_articles", "all_articles", "greeting", "is_me", "session_value"]),
      );
      expect(field("full_name").type).toEqual({ name: "String", kind: "SCALAR", ofType: null });
      expect(field("full_name").args).toEqual([]);
      expect(field("article_count").type.name).toBe("bigint");
      // `search` has a default: the args object is optional; `greeting` has none: required.
      expect(names(field("matching_articles").args)).toEqual(["args", "distinct_on", "limit", "offset", "order_by", "where"]);
      expect(field("matching_articles").args[0].type).toEqual({
        name: "matching_articles_author_args",
        kind: "INPUT_OBJECT",
        ofType: null,
      });
      expect(field("greeting").args[0].type).toEqual({ name: null, kind: "NON_NULL", ofType: { name: "greeting_author_args" } });
      expect(names(field("all_articles").args)).toEqual(["distinct_on", "limit", "offset", "order_by", "where"]);
      expect(field("all_articles").type.kind).toBe("NON_NULL");
      // The session argument is not a user input.
      expect(names(field("session_value").args)).toEqual(["args"]);
      expect(names((await typeOf("session_value_author_args")).inputFields)).toEqual(["key"]);
    });

    it("puts argument-free computed fields in bool_exp and order_by", async () => {
      const boolExp = await typeOf("author_bool_exp");
      expect(names(boolExp.inputFields)).toEqual(expect.arrayContaining(["full_name", "article_count", "all_articles", "is_me"]));
      expect(names(boolExp.inputFields)).not.toContain("matching_articles");
      expect(names(boolExp.inputFields)).not.toContain("greeting");
      const fullName = boolExp.inputFields.find((f: { name: string }) => f.name === "full_name");
      expect(fullName.type.name).toBe("String_comparison_exp");
      const orderBy = await typeOf("author_order_by");
      expect(names(orderBy.inputFields)).toEqual(expect.arrayContaining(["full_name", "article_count", "all_articles_aggregate", "is_me"]));
      expect(names(orderBy.inputFields)).not.toContain("all_articles");
      expect(names(orderBy.inputFields)).not.toContain("greeting");
    });

    it("shows a role the scalar computed fields its permission lists and the table ones it can read", async () => {
      const user = await typeOf("author", as("user"));
      expect(names(user.fields).sort()).toEqual([
        "all_articles",
        "article_count",
        "articles",
        "articles_aggregate",
        "first_name",
        "full_name",
        "id",
        "matching_articles",
      ]);
      // reader cannot read article: no table computed fields, and nothing it does not list.
      const reader = await typeOf("author", as("reader"));
      expect(names(reader.fields)).toEqual(["id"]);
      const readerBoolExp = await typeOf("author_bool_exp", as("reader"));
      expect(names(readerBoolExp.inputFields)).toEqual(["_and", "_not", "_or", "id"]);
    });
  });

  describe("select", () => {
    it("returns scalar computed fields in selection order, with arguments", async () => {
      const body = await run(`{ author(order_by: {id: asc}) { greeting(args: {greeting: "Hello"}) full_name id article_count } }`);
      expect(JSON.stringify(body.data.author[1])).toBe(
        JSON.stringify({ greeting: "Hello, Alan", full_name: "Alan", id: 2, article_count: 2 }),
      );
    });

    it("returns table computed fields with args, where, order_by, limit and nested fields", async () => {
      const body = await run(`{
        author_by_pk(id: 1) {
          all: matching_articles(order_by: {id: desc}) { id }
          some: matching_articles(args: {search: "note"}) { title }
          filtered: all_articles(where: {published: {_eq: true}}) { title }
          first: all_articles(order_by: {title: asc}, limit: 1) { title }
        }
      }`);
      expect(body.data.author_by_pk).toEqual({
        all: [{ id: 2 }, { id: 1 }],
        some: [{ title: "Notes" }],
        filtered: [{ title: "Analytical engines" }],
        first: [{ title: "Analytical engines" }],
      });
    });

    it("binds argument values from variables", async () => {
      const query = `query ($s: String) { author(where: {id: {_eq: 2}}) { matching_articles(args: {search: $s}) { title } } }`;
      expect((await run(query, admin, { s: "draft" })).data.author[0].matching_articles).toEqual([{ title: "Another draft" }]);
      expect((await run(query, admin, { s: "numbers" })).data.author[0].matching_articles).toEqual([{ title: "Computable numbers" }]);
    });

    it("refuses a required args object that is missing", async () => {
      const body = await run(`{ author { greeting } }`);
      expect(body.errors[0].extensions.code).toBe("validation-failed");
    });
  });

  describe("where and order_by", () => {
    it("filters on scalar and table computed fields", async () => {
      const byName = await run(`{ author(where: {full_name: {_ilike: "%hopper"}}) { id } }`);
      expect(byName.data.author).toEqual([{ id: 3 }]);
      const byCount = await run(`{ author(where: {article_count: {_gte: "2"}}, order_by: {id: asc}) { id } }`);
      expect(byCount.data.author).toEqual([{ id: 1 }, { id: 2 }]);
      const byRows = await run(`{ author(where: {all_articles: {title: {_eq: "Notes"}}}) { id } }`);
      expect(byRows.data.author).toEqual([{ id: 1 }]);
      const none = await run(`{ author(where: {_not: {all_articles: {}}}) { id } }`);
      expect(none.data.author).toEqual([{ id: 3 }]);
    });

    it("orders by a scalar computed field and by the count of a table computed field", async () => {
      const byName = await run(`{ author(order_by: {full_name: desc}) { id } }`);
      expect(byName.data.author).toEqual([{ id: 3 }, { id: 2 }, { id: 1 }]);
      const byCount = await run(`{ author(order_by: [{all_articles_aggregate: {count: asc}}, {id: desc}]) { id } }`);
      expect(byCount.data.author).toEqual([{ id: 3 }, { id: 2 }, { id: 1 }]);
      const byMax = await run(`{ author(order_by: [{all_articles_aggregate: {max: {title: asc}}}, {id: asc}]) { id } }`);
      expect(byMax.data.author).toEqual([{ id: 2 }, { id: 1 }, { id: 3 }]);
    });
  });

  describe("permissions", () => {
    it("applies the returned table's select permission to table computed fields", async () => {
      const body = await run(`{ author(where: {id: {_eq: 1}}) { all_articles { title } full_name } }`, as("user"));
      expect(body.data.author).toEqual([{ all_articles: [{ title: "Analytical engines" }], full_name: "Ada Lovelace" }]);
      const ordered = await run(`{ author(order_by: [{all_articles_aggregate: {count: desc}}, {id: asc}]) { id } }`, as("user"));
      expect(ordered.data.author).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);
    });

    it("evaluates computed fields in permission filters with full access to the returned rows", async () => {
      const body = await run(`{ author { id } }`, as("reader"));
      expect(body.data.author).toEqual([{ id: 2 }]);
    });

    it("refuses a computed field the role does not have", async () => {
      const body = await run(`{ author { greeting(args: {greeting: "Hi"}) } }`, as("user"));
      expect(body.errors[0]).toMatchObject({
        message: expect.stringMatching(/^field .greeting. not found in type: 'author'$/),
        extensions: { code: "validation-failed", path: "$.selectionSet.author.selectionSet.greeting" },
      });
    });
  });

  describe("session argument", () => {
    it("passes the session variables as JSON, in selections and in permission filters", async () => {
      const query = `{ author { id is_me role: session_value(args: {key: "x-hasura-role"}) user: session_value(args: {key: "x-hasura-user-id"}) } }`;
      const one = await run(query, as("self", { "x-hasura-user-id": "1" }));
      expect(one.data.author).toEqual([{ id: 1, is_me: true, role: "self", user: "1" }]);
      // The same operation again (a cached plan) with another session.
      const three = await run(query, as("self", { "x-hasura-user-id": "3" }));
      expect(three.data.author).toEqual([{ id: 3, is_me: true, role: "self", user: "3" }]);
      const adminBody = await run(`{ author_by_pk(id: 2) { session_value(args: {key: "x-hasura-role"}) } }`);
      expect(adminBody.data.author_by_pk).toEqual({ session_value: "admin" });
    });
  });

  describe("mutations", () => {
    it("returns computed fields of written rows", async () => {
      const body = await run(`mutation {
        insert_author_one(object: {first_name: "Barbara", last_name: "Liskov"}) { full_name matching_articles { id } article_count }
      }`);
      expect(body.data.insert_author_one).toEqual({ full_name: "Barbara Liskov", matching_articles: [], article_count: 0 });
      const updated = await run(`mutation {
        update_author(where: {first_name: {_eq: "Barbara"}}, _set: {last_name: "L."}) { returning { full_name } }
      }`);
      expect(updated.data.update_author.returning).toEqual([{ full_name: "Barbara L." }]);
      const deleted = await run(
        `mutation { delete_author(where: {first_name: {_eq: "Barbara"}}) { returning { full_name all_articles { id } } } }`,
      );
      expect(deleted.data.delete_author.returning).toEqual([{ full_name: "Barbara L.", all_articles: [] }]);
    });
  });

  it("returns bigint computed fields as strings when numerics are stringified", async () => {
    const stringify = suite.engineWith({ stringifyNumeric: true });
    const body = JSON.parse(await stringify.execute({ query: `{ author_by_pk(id: 1) { article_count } }` }, admin));
    expect(body.data.author_by_pk).toEqual({ article_count: "2" });
  });
});

/**
 * add_computed_field, track_function and their checks end to end: the metadata API over a real
 * database (function signatures from pg_catalog), then the GraphQL schema the runtime rebuilds.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { HasuraError } from "../src/engine/errors/index.js";
import type { Metadata } from "../src/engine/metadata/types.js";
import type { Session } from "../src/engine/request/session.js";
import { GraphqlRuntime } from "../src/runtime.js";
import { openTestDatabase, type TestDatabase, testBackends } from "./support/db.js";

const SCHEMA = `
CREATE TABLE author (id serial PRIMARY KEY, name text NOT NULL);
CREATE TABLE article (id serial PRIMARY KEY, title text NOT NULL, author_id int NOT NULL REFERENCES author(id));
INSERT INTO author (name) VALUES ('Ada'), ('Alan');
INSERT INTO article (title, author_id) VALUES ('Engines', 1), ('Numbers', 2);
CREATE FUNCTION author_title(author_row author) RETURNS text AS $$ SELECT 'Dr. ' || author_row.name $$ LANGUAGE sql STABLE;
CREATE FUNCTION author_articles(author_row author) RETURNS SETOF article AS $$
  SELECT * FROM article WHERE author_id = author_row.id
$$ LANGUAGE sql STABLE;
CREATE FUNCTION author_articles_volatile(search text, author_row author) RETURNS SETOF article AS $$
  SELECT * FROM article WHERE author_id = author_row.id
$$ LANGUAGE sql VOLATILE;
CREATE FUNCTION fetch_articles(search text, author_row author) RETURNS SETOF article AS $$
  SELECT * FROM article WHERE author_id = author_row.id AND title ILIKE '%' || search || '%'
$$ LANGUAGE sql STABLE;
CREATE FUNCTION hello_world() RETURNS text AS $$ SELECT 'Hello' $$ LANGUAGE sql STABLE;
CREATE FUNCTION author_session(author_row author, session text) RETURNS text AS $$ SELECT session $$ LANGUAGE sql STABLE;
CREATE FUNCTION search_articles(search text) RETURNS SETOF article AS $$
  SELECT * FROM article WHERE title ILIKE '%' || search || '%'
$$ LANGUAGE sql STABLE;
CREATE FUNCTION overloaded(a int) RETURNS SETOF article AS $$ SELECT * FROM article $$ LANGUAGE sql STABLE;
CREATE FUNCTION overloaded(a text) RETURNS SETOF article AS $$ SELECT * FROM article $$ LANGUAGE sql STABLE;
CREATE FUNCTION article_count() RETURNS bigint AS $$ SELECT count(*) FROM article $$ LANGUAGE sql STABLE;
CREATE FUNCTION articles_for(session_var text) RETURNS SETOF article AS $$ SELECT * FROM article $$ LANGUAGE sql STABLE;
`;

const admin: Session = { role: "admin", variables: { "x-hasura-role": "admin" }, isAdmin: true, useBackendOnly: false };

describe.each(testBackends)("computed fields and functions in metadata on %s", (backend) => {
  let handle: TestDatabase;
  let runtime: GraphqlRuntime;
  const call = (body: unknown, endpoint: "/v1/metadata" | "/v1/query" | "/v2/query" = "/v1/metadata") => runtime.admin(endpoint, body);
  const fail = async (body: unknown, endpoint: "/v1/metadata" | "/v1/query" = "/v1/metadata") => {
    const error = await call(body, endpoint).then(
      () => {
        throw new Error("request did not fail");
      },
      (e: unknown) => e,
    );
    if (!(error instanceof HasuraError)) throw error;
    return { code: error.hasuraCode, error: error.message, path: error.path, status: error.status };
  };
  const graphql = async (query: string) => JSON.parse((await runtime.execute({ query }, admin)).body);
  const exported = async () => (await call({ type: "export_metadata", args: {} })) as Metadata;
  const cf = (name: string, definition: Record<string, unknown>) => ({
    type: "pg_add_computed_field",
    args: { source: "default", table: "author", name, definition },
  });

  beforeAll(async () => {
    handle = await openTestDatabase(backend);
  });
  afterAll(async () => handle.dispose());
  beforeEach(async () => {
    await handle.db.exec("DROP SCHEMA IF EXISTS hdb_catalog CASCADE; DROP SCHEMA public CASCADE; CREATE SCHEMA public;");
    runtime = new GraphqlRuntime(handle.db, { booleanNullCollapse: false });
    await runtime.init();
    await call({ type: "run_sql", args: { sql: SCHEMA } }, "/v2/query");
    await call({
      type: "bulk",
      args: [
        { type: "pg_track_table", args: { table: "author" } },
        { type: "pg_track_table", args: { table: "article" } },
      ],
    });
  });

  describe("add_computed_field", () => {
    it("adds scalar and table computed fields that the schema then shows", async () => {
      await call(cf("title", { function: "author_title" }));
      await call(cf("articles", { function: { schema: "public", name: "fetch_articles" }, table_argument: "author_row" }));
      const body = await graphql(`{ author(order_by: {id: asc}) { title articles(args: {search: "num"}) { title } } }`);
      expect(body.data.author).toEqual([
        { title: "Dr. Ada", articles: [] },
        { title: "Dr. Alan", articles: [{ title: "Numbers" }] },
      ]);
      const author = (await exported()).sources[0]?.tables.find((t) => t.table.name === "author");
      expect(author?.computed_fields).toEqual([
        { name: "title", definition: { function: { schema: "public", name: "author_title" } } },
        { name: "articles", definition: { function: { schema: "public", name: "fetch_articles" }, table_argument: "author_row" } },
      ]);
    });

    it("refuses a function that does not exist", async () => {
      expect(await fail(cf("title", { function: "nope" }))).toMatchObject({
        code: "invalid-configuration",
        error: 'Inconsistent object: in table "author": in computed field "title": no such function exists in postgres : "nope"',
        path: "$.args",
        status: 400,
      });
    });

    it("lists every reason a function cannot be a computed field", async () => {
      const volatile = await fail(cf("articles", { function: "author_articles_volatile", table_argument: "random" }));
      expect(volatile.error).toBe(
        'Inconsistent object: in table "author": in computed field "articles": the computed field "articles" cannot be added to table "author" for the following reasons:\n' +
          '  • the function "author_articles_volatile" is of type VOLATILE; cannot be added as a computed field\n' +
          '  • "random" is not an input argument of "author_articles_volatile" function\n',
      );
      const firstArgument = await fail(cf("articles", { function: "fetch_articles" }));
      expect(firstArgument.error).toBe(
        'Inconsistent object: in table "author": in computed field "articles": the computed field "articles" cannot be added to table "author" for the following reasons:\n' +
          '  • first argument of the function "fetch_articles" is not COMPOSITE type\n' +
          '  • first argument of the function "fetch_articles" of type "pg_catalog.text" is not the table to which the computed field is being added\n',
      );
      expect((await fail(cf("hello", { function: "hello_world" }))).error).toBe(
        'Inconsistent object: in table "author": in computed field "hello": the computed field "hello" cannot be added to table "author" because the function "hello_world" has no input arguments',
      );
      expect((await fail(cf("s", { function: "author_session", session_argument: "session" }))).error).toContain(
        'because "session" argument of the function "author_session" is not of type json',
      );
    });

    it("refuses a name that a column already has", async () => {
      expect(await fail(cf("name", { function: "author_title" }))).toMatchObject({ code: "already-exists" });
    });
  });

  describe("computed fields in permissions", () => {
    beforeEach(async () => {
      await call(cf("title", { function: "author_title" }));
      await call(cf("articles", { function: "author_articles" }));
    });
    const permission = (computed: string[]) => ({
      type: "pg_create_select_permission",
      args: { table: "author", role: "user", permission: { columns: ["id"], computed_fields: computed, filter: {} } },
    });

    it("accepts scalar computed fields and refuses unknown or table ones", async () => {
      expect(await fail(permission(["title", "random"]))).toMatchObject({
        code: "constraint-violation",
        error: 'in table "author": in permission for role "user": computed field "random" does not exist',
      });
      expect((await fail(permission(["articles"]))).error).toBe(
        'in table "author": in permission for role "user": select permissions on computed field "articles" are auto-derived from the permissions on its returning table "article" and cannot be specified manually',
      );
      await call(permission(["title"]));
      const body = JSON.parse(
        (await runtime.execute({ query: "{ author(limit: 1) { id title } }" }, { ...admin, role: "user", isAdmin: false })).body,
      );
      expect(body.data.author).toEqual([{ id: 1, title: "Dr. Ada" }]);
    });

    it("drops a computed field only with cascade when a permission uses it", async () => {
      await call(permission(["title"]));
      expect(await fail({ type: "pg_drop_computed_field", args: { table: "author", name: "title" } })).toMatchObject({
        code: "dependency-error",
      });
      await call({ type: "pg_drop_computed_field", args: { table: "author", name: "title", cascade: true } });
      const author = (await exported()).sources[0]?.tables.find((t) => t.table.name === "author");
      expect(author?.computed_fields?.map((c) => (c as { name: string }).name)).toEqual(["articles"]);
      expect(author?.select_permissions).toBeUndefined();
    });
  });

  describe("track_function", () => {
    it("tracks v1 and v2 forms and exposes the function", async () => {
      await call({ type: "track_function", args: { schema: "public", name: "search_articles" } }, "/v1/query");
      expect((await graphql(`{ search_articles(args: {search: "eng"}) { title } }`)).data.search_articles).toEqual([{ title: "Engines" }]);
      await call({ type: "pg_untrack_function", args: { function: "search_articles" } });
      await call({ type: "pg_track_function", args: { function: "search_articles", configuration: { custom_name: "find" } } });
      expect((await graphql(`{ find(args: {search: "num"}) { title } }`)).data.find).toEqual([{ title: "Numbers" }]);
      expect((await exported()).sources[0]?.functions).toEqual([
        { function: { schema: "public", name: "search_articles" }, configuration: { custom_name: "find" } },
      ]);
    });

    it("answers Hasura's errors for functions it cannot track", async () => {
      expect(await fail({ type: "pg_track_function", args: { function: "nope" } })).toMatchObject({ code: "not-exists" });
      expect(await fail({ type: "pg_track_function", args: { function: "overloaded" } })).toMatchObject({
        code: "not-supported",
        error: 'function "overloaded" is overloaded. Overloaded functions are not supported',
      });
      expect(await fail({ type: "pg_track_function", args: { function: "article_count" } })).toMatchObject({
        code: "invalid-configuration",
        error:
          'Inconsistent object: in function "article_count": the function "article_count" cannot be tracked for the following reasons:\n' +
          '  • the function does not return a "COMPOSITE" type\n' +
          "  • the function does not return a table\n",
      });
      expect(
        await fail({ type: "pg_track_function", args: { function: "articles_for", configuration: { session_argument: "random" } } }),
      ).toEqual({
        code: "not-supported",
        error:
          'the function "articles_for" cannot be tracked because given session argument "random" not the input argument of the function',
        path: "$.args",
        status: 400,
      });
      expect(
        (await fail({ type: "pg_track_function", args: { function: "articles_for", configuration: { session_argument: "session_var" } } }))
          .error,
      ).toBe('the function "articles_for" cannot be tracked because given session argument "session_var" is not of type json');
      expect(
        (await fail({ type: "pg_track_function", args: { function: "search_articles", configuration: { exposed_as: "mutation" } } })).error,
      ).toContain('only "VOLATILE" functions can be tracked as mutations');
    });
  });

  describe("set_function_customization and function permissions", () => {
    const user: Session = { role: "user", variables: { "x-hasura-role": "user" }, isAdmin: false, useBackendOnly: false };
    const rootFields = async (session: Session) => {
      const body = JSON.parse(
        (await runtime.execute({ query: "{ __schema { queryType { fields { name } } mutationType { fields { name } } } }" }, session)).body,
      );
      const names = (t: { fields: Array<{ name: string }> } | null) => (t?.fields ?? []).map((f) => f.name);
      return { query: names(body.data.__schema.queryType), mutation: names(body.data.__schema.mutationType) };
    };

    it("renames a function's root fields", async () => {
      await call({ type: "pg_track_function", args: { function: "search_articles" } });
      await call({
        type: "pg_set_function_customization",
        args: {
          function: "search_articles",
          configuration: { custom_root_fields: { function: "find", function_aggregate: "count_found" } },
        },
      });
      expect((await rootFields(admin)).query).toEqual(expect.arrayContaining(["find", "count_found"]));
      expect(
        await fail({
          type: "pg_set_function_customization",
          args: { function: "search_articles", configuration: { custom_root_fields: { function: "dup", function_aggregate: "dup" } } },
        }),
      ).toMatchObject({ code: "parse-failed", path: "$.args.configuration.custom_root_fields" });
      expect(await fail({ type: "pg_set_function_customization", args: { function: "nope", configuration: {} } })).toMatchObject({
        code: "not-exists",
        error: 'function "nope" does not exist in source: default',
      });
    });

    it("grants a VOLATILE function to a role that can read its table", async () => {
      await call(
        {
          type: "run_sql",
          args: {
            sql: `CREATE FUNCTION touch_article(article_id int) RETURNS SETOF article AS $$
              UPDATE article SET title = title WHERE id = article_id RETURNING * $$ LANGUAGE sql VOLATILE;`,
          },
        },
        "/v2/query",
      );
      await call({ type: "pg_track_function", args: { function: "touch_article" } });
      const grant = { type: "pg_create_function_permission", args: { function: "touch_article", role: "user" } };
      expect(await fail(grant)).toMatchObject({
        code: "not-supported",
        error: `function permission can only be added when the function's return table "article" has select permission configured for role: "user"`,
      });
      await call({
        type: "pg_create_select_permission",
        args: { table: "article", role: "user", permission: { columns: ["id", "title"], filter: {} } },
      });
      expect((await rootFields(user)).mutation).toEqual([]);
      await call(grant);
      expect((await rootFields(user)).mutation).toEqual(["touch_article"]);
      expect(await fail(grant)).toMatchObject({ code: "already-exists" });
      const body = JSON.parse((await runtime.execute({ query: "mutation { touch_article(args: {article_id: 2}) { title } }" }, user)).body);
      expect(body.data.touch_article).toEqual([{ title: "Numbers" }]);
      await call({ type: "pg_drop_function_permission", args: { function: "touch_article", role: "user" } });
      expect((await rootFields(user)).mutation).toEqual([]);
      expect(await fail({ type: "pg_drop_function_permission", args: { function: "touch_article", role: "user" } })).toMatchObject({
        code: "not-exists",
      });
    });
  });

  it("reports computed fields and functions that do not fit the database as inconsistent", async () => {
    const metadata = await exported();
    const source = metadata.sources[0] as Metadata["sources"][number];
    const author = source.tables.find((t) => t.table.name === "author");
    if (author) author.computed_fields = [{ name: "gone", definition: { function: { schema: "public", name: "gone" } } }];
    source.functions = [{ function: { schema: "public", name: "article_count" } }];
    const refused = await fail({ type: "replace_metadata", args: metadata });
    expect(refused).toMatchObject({ code: "unexpected", error: "cannot continue due to inconsistent metadata" });
    const allowed = (await call({ type: "replace_metadata", args: { metadata, allow_inconsistent_metadata: true } })) as {
      inconsistent_objects: Array<{ name: string; type: string }>;
    };
    expect(allowed.inconsistent_objects.map((o) => [o.type, o.name])).toEqual([
      ["computed_field", "computed_field gone in table author in source default"],
      ["function", "function article_count in source default"],
    ]);
    await call({ type: "drop_inconsistent_metadata", args: {} });
    expect(await call({ type: "get_inconsistent_metadata", args: {} })).toEqual({ is_consistent: true });
  });

  it("forgets computed fields and functions whose SQL function run_sql dropped", async () => {
    await call(cf("title", { function: "author_title" }));
    await call({ type: "pg_track_function", args: { function: "search_articles" } });
    await call(
      { type: "run_sql", args: { sql: "DROP FUNCTION author_title(author); DROP FUNCTION search_articles(text);", cascade: true } },
      "/v2/query",
    );
    const metadata = await exported();
    expect(metadata.sources[0]?.functions).toBeUndefined();
    expect(metadata.sources[0]?.tables.find((t) => t.table.name === "author")?.computed_fields).toBeUndefined();
    expect((await graphql(`{ author { title } }`)).errors[0].extensions.code).toBe("validation-failed");
  });
});

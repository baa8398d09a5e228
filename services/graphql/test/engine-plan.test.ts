/**
 * Compiled query plans: one plan per (role, operation, shape of the variables), its SQL text
 * reused with the request's variables and session variables bound as parameters; whatever
 * can change the SQL (null, booleans, enum values, object keys, list lengths) makes a new plan.
 */
import { type Compiled, compile, type Database, Sql } from "@platform/core";
import { beforeEach, describe, expect, it } from "vitest";
import type { Metadata } from "../src/engine/metadata/types.js";
import type { Session } from "../src/engine/request/session.js";
import { testBackends } from "./support/db.js";
import { ADMIN, asRole, metadataWith, useTestEngine } from "./support/engine.js";

const SCHEMA = `
CREATE TABLE author (id serial PRIMARY KEY, name text NOT NULL, tags jsonb, owner text);
INSERT INTO author (name, tags, owner) VALUES
  ('Alice', '{"lang": "en"}', 'u1'), ('Bob', '{"lang": "de"}', 'u2'), ('Carol', NULL, 'u1'), ('Dave', '[]', 'u3');
`;

function metadata(): Metadata {
  return metadataWith([
    {
      table: { schema: "public", name: "author" },
      select_permissions: [{ role: "owner", permission: { columns: "*", filter: { owner: { _eq: "X-Hasura-User-Id" } }, limit: 2 } }],
    },
  ]);
}

const owner = (id?: string): Session => asRole("owner", id === undefined ? {} : { "x-hasura-user-id": id });

describe.each(testBackends)("%s", (backend) => {
  let statements: Compiled[] = [];
  /** The engine queries through this database, which notes each statement it sends. */
  const recording = (db: Database): Database => ({
    ...db,
    query: (statement, options) => {
      statements.push(statement instanceof Sql ? compile(statement, "postgres") : statement);
      return db.query(statement, options);
    },
  });
  const suite = useTestEngine(backend, { schema: SCHEMA, metadata, database: recording });
  const run = (query: string, variables?: Record<string, unknown>, session: Session = ADMIN) => suite.run(query, session, variables);
  const names = (body: { data: Record<string, Array<{ name: string }>> }, key = "author") => body.data[key]?.map((r) => r.name);

  beforeEach(() => {
    statements = [];
  });

  it("reuses one SQL text for new values of scalar variables, bound as parameters", async () => {
    const query = `query ($name: String!, $limit: Int) { author(where: {name: {_neq: $name}}, limit: $limit, order_by: {id: asc}) { name } }`;
    expect(names(await run(query, { name: "Alice", limit: 2 }))).toEqual(["Bob", "Carol"]);
    expect(names(await run(query, { name: "Bob", limit: 3 }))).toEqual(["Alice", "Carol", "Dave"]);
    expect(statements).toHaveLength(2);
    expect(statements[0]?.text).toBe(statements[1]?.text);
    expect(statements[1]?.values).toEqual(expect.arrayContaining(["Bob", 3]));
    expect(statements[0]?.text).not.toContain("Alice");
  });

  it("compiles a new plan when an enum, a boolean, a null or an object's keys change", async () => {
    const query = `query ($order: [author_order_by!], $where: author_bool_exp) { author(order_by: $order, where: $where) { name } }`;
    expect(names(await run(query, { order: [{ id: "asc" }], where: {} }))).toEqual(["Alice", "Bob", "Carol", "Dave"]);
    expect(names(await run(query, { order: [{ id: "desc" }], where: {} }))).toEqual(["Dave", "Carol", "Bob", "Alice"]);
    expect(names(await run(query, { order: [{ id: "asc" }], where: { tags: { _is_null: true } } }))).toEqual(["Carol"]);
    expect(names(await run(query, { order: [{ id: "asc" }], where: { tags: { _is_null: false } } }))).toEqual(["Alice", "Bob", "Dave"]);
    expect(names(await run(query, { order: [{ name: "desc" }], where: { name: { _in: ["Bob", "Dave"] } } }))).toEqual(["Dave", "Bob"]);
    expect(names(await run(query, { order: [{ name: "asc" }], where: { name: { _in: ["Bob", "Dave", "Carol"] } } }))).toEqual([
      "Bob",
      "Carol",
      "Dave",
    ]);
    expect(new Set(statements.map((s) => s.text)).size).toBe(6);
  });

  it("binds json variables as JSON whatever their shape", async () => {
    const query = `query ($tags: jsonb) { author(where: {tags: {_contains: $tags}}, order_by: {id: asc}) { name } }`;
    expect(names(await run(query, { tags: { lang: "de" } }))).toEqual(["Bob"]);
    expect(names(await run(query, { tags: [] }))).toEqual(["Dave"]);
    expect(statements[0]?.text).toBe(statements[1]?.text);
  });

  it("reads session variables per request and keeps the permission's row limit", async () => {
    const query = `query ($limit: Int) { author(order_by: {id: asc}, limit: $limit) { name } }`;
    expect(names(await run(query, { limit: 5 }, owner("u1")))).toEqual(["Alice", "Carol"]);
    expect(names(await run(query, { limit: 1 }, owner("u1")))).toEqual(["Alice"]);
    expect(names(await run(query, { limit: 5 }, owner("u2")))).toEqual(["Bob"]);
    expect(new Set(statements.map((s) => s.text)).size).toBe(1);
    const missing = await run(query, { limit: 5 }, owner());
    expect(missing.errors[0]).toMatchObject({ message: 'missing session variable: "x-hasura-user-id"', extensions: { code: "not-found" } });
  });

  it("refuses a negative limit or offset given by a variable on a reused plan", async () => {
    const query = `query ($offset: Int) { author(offset: $offset, order_by: {id: asc}) { name } }`;
    expect(names(await run(query, { offset: 3 }))).toEqual(["Dave"]);
    const bad = await run(query, { offset: -1 });
    expect(bad.errors[0]).toMatchObject({
      message: "expected a non-negative 32-bit integer for type 'Int', but found an integer",
      extensions: { code: "validation-failed", path: "$.selectionSet.author.args.offset" },
    });
  });

  it("keeps a plan per operation name and answers __typename without SQL", async () => {
    const query = `query A ($id: Int!) { author_by_pk(id: $id) { name } } query B { __typename }`;
    expect((await run(`${query}`, { id: 2 })).errors).toBeDefined();
    const a = JSON.parse(await suite.engine.execute({ query, variables: { id: 2 }, operationName: "A" }, ADMIN));
    const b = JSON.parse(await suite.engine.execute({ query, operationName: "B" }, ADMIN));
    expect(a).toEqual({ data: { author_by_pk: { name: "Bob" } } });
    expect(b).toEqual({ data: { __typename: "query_root" } });
    expect(statements).toHaveLength(1);
  });
});

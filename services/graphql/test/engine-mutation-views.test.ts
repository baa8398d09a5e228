/** Mutations on views (auto-updatable and trigger-backed): written rows come back from the statement's own RETURNING, with no ctid. */
import { ident, sql } from "@platform/core";
import { beforeEach, describe, expect, it } from "vitest";
import type { Metadata } from "../src/engine/metadata/types.js";
import { testBackends } from "./support/db.js";
import { ADMIN, asRole, metadataWith, useTestEngine } from "./support/engine.js";

const SCHEMA = `
CREATE TABLE author (id serial PRIMARY KEY, name text UNIQUE, is_registered boolean NOT NULL DEFAULT false);
CREATE TABLE article (id serial PRIMARY KEY, title text, author_id int REFERENCES author(id));
CREATE VIEW author_simple AS SELECT * FROM author;
CREATE TABLE person (id serial PRIMARY KEY, details jsonb NOT NULL);
CREATE VIEW person_view AS SELECT id, details FROM person;
CREATE TABLE note (id serial PRIMARY KEY, body text NOT NULL, words int NOT NULL);
CREATE VIEW note_input AS SELECT id, body FROM note;
CREATE FUNCTION note_input_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO note (body, words) VALUES (upper(NEW.body), array_length(regexp_split_to_array(NEW.body, ' '), 1)) RETURNING id, body INTO NEW.id, NEW.body;
  RETURN NEW;
END $$;
CREATE TRIGGER note_input_insert INSTEAD OF INSERT ON note_input FOR EACH ROW EXECUTE FUNCTION note_input_insert();
`;

function metadata(): Metadata {
  const simple = { schema: "public", name: "author_simple" };
  return metadataWith([
    {
      table: { schema: "public", name: "author" },
      array_relationships: [
        { name: "articles", using: { foreign_key_constraint_on: { table: { schema: "public", name: "article" }, column: "author_id" } } },
      ],
    },
    {
      table: { schema: "public", name: "article" },
      object_relationships: [
        { name: "author_simple", using: { manual_configuration: { remote_table: simple, column_mapping: { author_id: "id" } } } },
      ],
    },
    {
      table: simple,
      array_relationships: [
        {
          name: "articles",
          using: { manual_configuration: { remote_table: { schema: "public", name: "article" }, column_mapping: { id: "author_id" } } },
        },
      ],
      select_permissions: [{ role: "user", permission: { columns: ["id", "name"], filter: { is_registered: { _eq: true } } } }],
      insert_permissions: [{ role: "user", permission: { columns: ["id", "name"], check: { name: { _like: "u%" } } } }],
    },
    { table: { schema: "public", name: "person_view" } },
    { table: { schema: "public", name: "note_input" } },
  ]);
}

const user = asRole("user");

describe.each(testBackends)("%s", (backend) => {
  const suite = useTestEngine(backend, { schema: SCHEMA, metadata });
  const { run } = suite;
  const count = async (table: string) =>
    (await suite.db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM ${ident(table)}`)).rows[0]?.n;
  beforeEach(async () => suite.db.exec("TRUNCATE article, author, person, note RESTART IDENTITY CASCADE"));

  it("inserts into an auto-updatable view and returns the written rows in order", async () => {
    const body = await run(`mutation { insert_author_simple(objects: [{id: 2, name: "Bo", is_registered: true}, {id: 1, name: "Clarke"}]) {
      affected_rows returning { id name is_registered } } }`);
    expect(body).toEqual({
      data: {
        insert_author_simple: {
          affected_rows: 2,
          returning: [
            { id: 2, name: "Bo", is_registered: true },
            { id: 1, name: "Clarke", is_registered: false },
          ],
        },
      },
    });
    expect(await count("author")).toBe(2);
  });

  it("returns one row from insert_one into a view and a jsonb value unchanged", async () => {
    const details = { name: { first: "json", last: "murphy" }, tags: ["a", "b"], n: 1.5 };
    const body = await run(`mutation ($d: jsonb!) { insert_person_view_one(object: {details: $d}) { id details } }`, ADMIN, { d: details });
    expect(body).toEqual({ data: { insert_person_view_one: { id: 1, details } } });
  });

  it("returns what an INSTEAD OF trigger made of the row", async () => {
    const body = await run(`mutation { insert_note_input(objects: [{body: "hello big world"}, {body: "two words"}]) {
      affected_rows returning { id body } } }`);
    expect(body.data.insert_note_input).toEqual({
      affected_rows: 2,
      returning: [
        { id: 1, body: "HELLO BIG WORLD" },
        { id: 2, body: "TWO WORDS" },
      ],
    });
    const { rows } = await suite.db.query<{ words: number }>(sql`SELECT words FROM note ORDER BY id`);
    expect(rows.map((r) => r.words)).toEqual([3, 2]);
  });

  it("inserts a view row as a nested object-relationship parent, and follows relationships to and from views in returning", async () => {
    const body = await run(`mutation { insert_article(objects: [
        {title: "A1", author_simple: {data: {id: 1, name: "Author 1"}}},
        {title: "A2", author_simple: {data: {id: 2, name: "Author 2"}}}
      ]) { affected_rows returning { id title author_simple { id name articles { title } } } } }`);
    expect(body).toEqual({
      data: {
        insert_article: {
          affected_rows: 4,
          returning: [
            { id: 1, title: "A1", author_simple: { id: 1, name: "Author 1", articles: [{ title: "A1" }] } },
            { id: 2, title: "A2", author_simple: { id: 2, name: "Author 2", articles: [{ title: "A2" }] } },
          ],
        },
      },
    });
  });

  it("still reads nested array-relationship children of a table row in returning", async () => {
    const body = await run(`mutation { insert_author(objects: [{name: "Ann", articles: {data: [{title: "x"}, {title: "y"}]}}]) {
      affected_rows returning { name articles(order_by: {id: asc}) { title } } } }`);
    expect(body.data.insert_author).toEqual({ affected_rows: 3, returning: [{ name: "Ann", articles: [{ title: "x" }, { title: "y" }] }] });
  });

  it("updates through a view with returning", async () => {
    await suite.db.exec(`INSERT INTO author (name) VALUES ('a'), ('b')`);
    const body = await run(`mutation { update_author_simple(where: {name: {_eq: "b"}}, _set: {is_registered: true}) {
      affected_rows returning { id name is_registered } } }`);
    expect(body.data.update_author_simple).toEqual({ affected_rows: 1, returning: [{ id: 2, name: "b", is_registered: true }] });
    const one = await run(`mutation { update_author_simple_by_pk(pk_columns: {id: 1}, _set: {name: "a2"}) { id name } }`);
    // A view has no primary key to offer *_by_pk on.
    expect(one.errors[0].extensions.code).toBe("validation-failed");
  });

  it("checks a role's insert permission on a view and returns the written row whatever the select filter says", async () => {
    const ok = await run(`mutation { insert_author_simple(objects: [{id: 5, name: "u5"}]) { affected_rows returning { id name } } }`, user);
    // is_registered is false: the select filter would hide the row, but returning lists every written row, as in Hasura.
    expect(ok.data.insert_author_simple).toEqual({ affected_rows: 1, returning: [{ id: 5, name: "u5" }] });
    const bad = await run(`mutation { insert_author_simple(objects: [{id: 6, name: "nope"}]) { affected_rows } }`, user);
    expect(bad.errors[0]).toEqual({
      message: "check constraint of an insert/update permission has failed",
      extensions: { path: "$.selectionSet.insert_author_simple.args.objects", code: "permission-error" },
    });
    expect(await count("author")).toBe(1);
  });

  it("rolls back a view insert when a later field of the request fails", async () => {
    const body = await run(`mutation {
      a: insert_author_simple(objects: [{id: 1, name: "Ann"}]) { affected_rows }
      b: insert_author_simple(objects: [{id: 2, name: "Ann"}]) { affected_rows } }`);
    expect(body.errors[0].extensions).toMatchObject({ path: "$.selectionSet.b.args.objects", code: "constraint-violation" });
    expect(await count("author")).toBe(0);
  });
});

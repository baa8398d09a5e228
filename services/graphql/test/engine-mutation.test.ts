/** Mutations through the engine core: inserts (nested, upsert), updates with every operator, deletes, permissions, atomicity. */
import { sql } from "@platform/core";
import { beforeEach, describe, expect, it } from "vitest";
import type { Metadata } from "../src/engine/metadata/types.js";
import { testBackends } from "./support/db.js";
import { asRole, metadataWith, useTestEngine } from "./support/engine.js";

const SCHEMA = `
CREATE TABLE author (id serial PRIMARY KEY, name text NOT NULL UNIQUE, owner text);
CREATE TABLE article (id serial PRIMARY KEY, title text NOT NULL, author_id int NOT NULL REFERENCES author(id), views int NOT NULL DEFAULT 0, meta jsonb NOT NULL DEFAULT '{}');
CREATE VIEW author_name AS SELECT DISTINCT name FROM author;
`;

function metadata(): Metadata {
  return metadataWith([
    { table: { schema: "public", name: "author_name" } },
    {
      table: { schema: "public", name: "author" },
      array_relationships: [
        { name: "articles", using: { foreign_key_constraint_on: { table: { schema: "public", name: "article" }, column: "author_id" } } },
      ],
      select_permissions: [{ role: "user", permission: { columns: "*", filter: {} } }],
      insert_permissions: [
        { role: "user", permission: { columns: ["name"], check: { name: { _like: "u%" } }, set: { owner: "X-Hasura-User-Id" } } },
      ],
      update_permissions: [
        {
          role: "user",
          permission: { columns: ["name"], filter: { owner: { _eq: "X-Hasura-User-Id" } }, check: { name: { _like: "u%" } } },
        },
      ],
      delete_permissions: [{ role: "user", permission: { filter: { owner: { _eq: "X-Hasura-User-Id" } } } }],
    },
    {
      table: { schema: "public", name: "article" },
      object_relationships: [{ name: "author", using: { foreign_key_constraint_on: "author_id" } }],
      select_permissions: [{ role: "user", permission: { columns: "*", filter: {} } }],
    },
  ]);
}

const user = asRole("user", { "x-hasura-user-id": "u1" });

describe.each(testBackends)("%s", (backend) => {
  const suite = useTestEngine(backend, { schema: SCHEMA, metadata });
  const { run } = suite;
  beforeEach(async () => suite.db.exec("TRUNCATE article, author RESTART IDENTITY CASCADE"));

  describe("insert", () => {
    it("inserts nested array relationships and counts every row", async () => {
      const body = await run(`mutation { insert_author(objects: [{name: "Ann", articles: {data: [{title: "x"}, {title: "y"}]}}]) {
        affected_rows returning { id name articles(order_by: {id: asc}) { title author { name } } } } }`);
      expect(body).toEqual({
        data: {
          insert_author: {
            affected_rows: 3,
            returning: [
              {
                id: 1,
                name: "Ann",
                articles: [
                  { title: "x", author: { name: "Ann" } },
                  { title: "y", author: { name: "Ann" } },
                ],
              },
            ],
          },
        },
      });
    });

    it("inserts an object-relationship parent first and returns one row with insert_one", async () => {
      const body = await run(
        `mutation { insert_article_one(object: {title: "t", author: {data: {name: "Zed"}}}) { title author { name } } }`,
      );
      expect(body).toEqual({ data: { insert_article_one: { title: "t", author: { name: "Zed" } } } });
    });

    it("refuses a key given both directly and through a nested relationship, at the input's path", async () => {
      const child = await run(
        `mutation { insert_author(objects: [{name: "Ann", articles: {data: [{title: "x", author_id: 1}]}}]) { affected_rows } }`,
      );
      expect(child.errors[0]).toEqual({
        message: 'cannot insert "author_id" columns as their values are already being determined by parent insert',
        extensions: { path: "$.selectionSet.insert_author.args.objects[0].articles.data[0]", code: "validation-failed" },
      });
      const parent = await run(
        `mutation { insert_article(objects: [{title: "x", author_id: 1, author: {data: {name: "Bo"}}}]) { affected_rows } }`,
      );
      expect(parent.errors[0].extensions.path).toBe("$.selectionSet.insert_article.args.objects[0].author");
    });

    it("offers no mutations on a view PostgreSQL cannot write to", async () => {
      const body = await run(`{ __type(name: "mutation_root") { fields { name } } }`);
      const names = body.data.__type.fields.map((f: { name: string }) => f.name);
      expect(names).toContain("insert_author");
      expect(names.filter((n: string) => n.includes("author_name"))).toEqual([]);
    });

    it("upserts on a constraint, or does nothing with no update columns", async () => {
      await run(`mutation { insert_author(objects: [{name: "Ann", owner: "a"}]) { affected_rows } }`);
      const upsert = await run(
        `mutation { insert_author(objects: [{name: "Ann", owner: "b"}], on_conflict: {constraint: author_name_key, update_columns: [owner]}) { affected_rows returning { owner } } }`,
      );
      expect(upsert.data.insert_author).toEqual({ affected_rows: 1, returning: [{ owner: "b" }] });
      const nothing = await run(
        `mutation { insert_author(objects: [{name: "Ann"}], on_conflict: {constraint: author_name_key, update_columns: []}) { affected_rows } }`,
      );
      expect(nothing.data.insert_author).toEqual({ affected_rows: 0 });
    });

    it("maps a unique violation and rolls back every field of the request", async () => {
      const body = await run(
        `mutation { a: insert_author(objects: [{name: "Ann"}]) { affected_rows } b: insert_author(objects: [{name: "Ann"}]) { affected_rows } }`,
      );
      expect(body.errors[0].extensions).toMatchObject({ path: "$.selectionSet.b.args.objects", code: "constraint-violation" });
      expect(body.errors[0].message).toMatch(/^Uniqueness violation\. duplicate key value violates unique constraint "author_name_key"/);
      const { rows } = await suite.db.query(sql`SELECT count(*)::int AS n FROM author`);
      expect(rows[0]).toEqual({ n: 0 });
    });

    it("applies insert presets and checks for a role", async () => {
      const ok = await run(`mutation { insert_author(objects: [{name: "u-ok"}]) { returning { name owner } } }`, user);
      expect(ok.data.insert_author.returning).toEqual([{ name: "u-ok", owner: "u1" }]);
      const bad = await run(`mutation { insert_author(objects: [{name: "nope"}]) { affected_rows } }`, user);
      expect(bad).toEqual({
        errors: [
          {
            message: "check constraint of an insert/update permission has failed",
            extensions: { path: "$.selectionSet.insert_author.args.objects", code: "permission-error" },
          },
        ],
      });
    });
  });

  describe("update and delete", () => {
    beforeEach(async () => {
      await suite.db.exec(
        `INSERT INTO author (name, owner) VALUES ('u-a', 'u1'), ('b', 'u2'); INSERT INTO article (title, author_id, meta) VALUES ('x', 1, '{"a": 1, "list": [1, 2, 3]}')`,
      );
    });

    it("updates with _set, _inc and the jsonb operators", async () => {
      const body = await run(
        `mutation { update_article(where: {id: {_eq: 1}}, _inc: {views: 2}, _append: {meta: {b: 2}}, _set: {title: "y"}) { affected_rows returning { title views meta } } }`,
      );
      expect(body.data.update_article).toEqual({
        affected_rows: 1,
        returning: [{ title: "y", views: 2, meta: { a: 1, b: 2, list: [1, 2, 3] } }],
      });
      const del = await run(`mutation { update_article_by_pk(pk_columns: {id: 1}, _delete_key: {meta: "a"}) { meta } }`);
      expect(del.data.update_article_by_pk).toEqual({ meta: { b: 2, list: [1, 2, 3] } });
      const path = await run(`mutation { update_article_by_pk(pk_columns: {id: 1}, _delete_at_path: {meta: ["list", "0"]}) { meta } }`);
      expect(path.data.update_article_by_pk.meta.list).toEqual([2, 3]);
      const many = await run(
        `mutation { update_article_many(updates: [{where: {id: {_eq: 1}}, _inc: {views: 1}}, {where: {id: {_eq: 9}}, _inc: {views: 1}}]) { affected_rows } }`,
      );
      expect(many.data.update_article_many).toEqual([{ affected_rows: 1 }, { affected_rows: 0 }]);
    });

    it("refuses a column in several operators and no-ops without one", async () => {
      const body = await run(`mutation { update_article(where: {}, _set: {views: 1}, _inc: {views: 2}) { affected_rows } }`);
      expect(body.errors[0]).toEqual({
        message: "Column found in multiple operators: ['views'].",
        extensions: { path: "$.selectionSet.update_article.args", code: "validation-failed" },
      });
      const none = await run(`mutation { update_article(where: {}, _set: {}) { affected_rows returning { id } } }`);
      expect(none.data.update_article).toEqual({ affected_rows: 0, returning: [] });
    });

    it("limits updates and deletes to the role's rows", async () => {
      const upd = await run(`mutation { update_author(where: {}, _set: {name: "u-new"}) { affected_rows } }`, user);
      expect(upd.data.update_author.affected_rows).toBe(1);
      const del = await run(`mutation { delete_author(where: {name: {_eq: "b"}}) { affected_rows } }`, user);
      expect(del.data.delete_author.affected_rows).toBe(0);
    });

    it("deletes with returning, by primary key, and maps a foreign-key violation", async () => {
      const fk = await run(`mutation { delete_author_by_pk(id: 1) { id } }`);
      expect(fk.errors[0].extensions.code).toBe("constraint-violation");
      expect(fk.errors[0].message).toMatch(/^Foreign key violation\./);
      const body = await run(`mutation { delete_article(where: {}) { affected_rows returning { title author { name } } } }`);
      expect(body.data.delete_article).toEqual({ affected_rows: 1, returning: [{ title: "x", author: { name: "u-a" } }] });
      expect((await run(`mutation { delete_author_by_pk(id: 2) { name } }`)).data).toEqual({ delete_author_by_pk: { name: "b" } });
      expect((await run(`mutation { delete_author_by_pk(id: 2) { name } }`)).data).toEqual({ delete_author_by_pk: null });
    });
  });
});

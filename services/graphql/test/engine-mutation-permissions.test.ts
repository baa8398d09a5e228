/**
 * Mutation permissions as Hasura applies them: upserts (update columns, presets, the update
 * check, roles without select permission), column comparisons against the permission's root
 * table, where check failures point, `_inc` on every numeric type, and rollback of a failure.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { insertRows } from "../src/engine/metadata/dml.js";
import type { Metadata } from "../src/engine/metadata/types.js";
import { testBackends } from "./support/db.js";
import { asRole, metadataWith, useTestEngine } from "./support/engine.js";

const SCHEMA = `
CREATE TABLE article (id serial PRIMARY KEY, title text, content text, author_id int, is_published boolean NOT NULL DEFAULT false);
CREATE TABLE blog (id serial PRIMARY KEY, title text NOT NULL, content text, author_id int, last_updated timestamptz, updated_by int);
CREATE TABLE leads (id serial PRIMARY KEY, name text NOT NULL, added_by text NOT NULL);
CREATE TABLE items (id serial PRIMARY KEY, name text, item_quantity int);
CREATE TABLE order_cart (id serial PRIMARY KEY, item_id int NOT NULL REFERENCES items(id), order_cart_quantity int);
CREATE TABLE quota (id serial PRIMARY KEY, owner text NOT NULL, max_words int NOT NULL);
CREATE TABLE post (id serial PRIMARY KEY, owner text NOT NULL, words int NOT NULL);
CREATE TABLE numerics (id serial PRIMARY KEY, num_smallint smallint, num_integer integer, num_bigint bigint, num_real real,
  num_double double precision, num_money money, num_numeric numeric);
`;

function metadata(): Metadata {
  const t = (name: string) => ({ schema: "public", name });
  return metadataWith([
    {
      table: t("article"),
      select_permissions: [
        { role: "restricted", permission: { columns: "*", filter: { $or: [{ author_id: "X-HASURA-USER-ID" }, { is_published: true }] } } },
        { role: "user", permission: { columns: "*", filter: {} } },
      ],
      insert_permissions: [{ role: "restricted", permission: { check: { author_id: "X-Hasura-User-Id" }, columns: "*" } }],
      update_permissions: [
        { role: "restricted", permission: { columns: [], filter: { author_id: "X-Hasura-User-Id" } } },
        {
          role: "user",
          permission: { columns: ["title", "is_published"], filter: { author_id: "X-Hasura-User-Id" }, check: { is_published: false } },
        },
      ],
    },
    {
      table: t("blog"),
      select_permissions: [{ role: "user", permission: { columns: "*", filter: { author_id: "X-Hasura-User-Id" } } }],
      insert_permissions: [{ role: "user", permission: { check: {}, columns: "*" } }],
      update_permissions: [
        {
          role: "user",
          permission: { columns: ["title", "content"], filter: {}, set: { last_updated: "NOW()", updated_by: "X-Hasura-User-Id" } },
        },
      ],
    },
    {
      table: t("leads"),
      insert_permissions: [{ role: "sales", permission: { columns: ["id", "name", "added_by"], check: {}, set: {} } }],
      update_permissions: [
        { role: "sales", permission: { columns: ["name"], filter: { added_by: "X-Hasura-User-Id" }, check: { name: { _ne: "" } } } },
      ],
    },
    { table: t("items") },
    {
      table: t("order_cart"),
      object_relationships: [{ name: "item", using: { foreign_key_constraint_on: "item_id" } }],
      insert_permissions: [
        {
          role: "user",
          permission: {
            columns: ["item_id", "order_cart_quantity"],
            check: { item: { item_quantity: { _cgte: ["$", "order_cart_quantity"] } } },
          },
        },
      ],
    },
    { table: t("quota") },
    {
      table: t("post"),
      insert_permissions: [
        {
          role: "user",
          permission: {
            columns: ["words"],
            set: { owner: "X-Hasura-User-Id" },
            check: { _exists: { _table: t("quota"), _where: { owner: { _ceq: ["$", "owner"] }, max_words: { _cgte: ["$", "words"] } } } },
          },
        },
      ],
    },
    { table: t("numerics") },
  ]);
}

describe.each(testBackends)("%s", (backend) => {
  const suite = useTestEngine(backend, { schema: SCHEMA, metadata, options: { stringifyNumeric: true } });
  const { run } = suite;
  const rows = async <T extends Record<string, unknown>>(query: string) => (await suite.db.query<T>({ text: query, values: [] })).rows;

  beforeEach(async () => {
    await suite.db.exec("TRUNCATE article, blog, leads, order_cart, items, quota, post, numerics RESTART IDENTITY CASCADE");
    await suite.db.exec(`INSERT INTO article (title, content, author_id) VALUES ('Article 1', 'c1', 1);
      INSERT INTO blog (id, title, author_id) VALUES (1, 'first blog', 1);
      INSERT INTO items (name, item_quantity) VALUES ('pen', 100);
      INSERT INTO quota (owner, max_words) VALUES ('u1', 10);`);
  });

  describe("upserts", () => {
    it("refuses the update column placeholder of a role that may update no column, at on_conflict's path", async () => {
      const query = (columns: string) => `mutation { insert_article(objects: [{id: 1, content: "new", author_id: 1}],
        on_conflict: {constraint: article_pkey, update_columns: [${columns}]}) { affected_rows returning { content } } }`;
      const restricted = asRole("restricted", { "x-hasura-user-id": "1" });
      expect((await run(query(""), restricted)).data.insert_article).toEqual({ affected_rows: 0, returning: [] });
      expect(await run(query("_PLACEHOLDER"), restricted)).toEqual({
        errors: [
          {
            message: "erroneous column name",
            extensions: { path: "$.selectionSet.insert_article.args.on_conflict", code: "validation-failed" },
          },
        ],
      });
      expect(await rows("SELECT content FROM article")).toEqual([{ content: "c1" }]);
    });

    it("applies update presets and returns the updated row even when the select filter would hide it", async () => {
      const body = await run(
        `mutation { insert_blog(objects: [{id: 1, title: "first blog", content: "by 2"}], on_conflict: {constraint: blog_pkey, update_columns: [content]}) {
          affected_rows returning { id title content author_id updated_by } } }`,
        asRole("user", { "x-hasura-user-id": "2" }),
      );
      expect(body.data.insert_blog).toEqual({
        affected_rows: 1,
        returning: [{ id: 1, title: "first blog", content: "by 2", author_id: 1, updated_by: 2 }],
      });
      const [blog] = await rows<{ fresh: boolean }>("SELECT last_updated > now() - interval '1 hour' AS fresh FROM blog");
      expect(blog).toEqual({ fresh: true });
    });

    it("lets a role without select permission upsert, and holds the update to its filter and check", async () => {
      await suite.db.exec(`INSERT INTO leads VALUES (1, 'lead 1', 'sales 1'), (2, 'lead 2', 'sales 2')`);
      const sales = asRole("sales", { "x-hasura-user-id": "sales 1" });
      const upsert = (id: number, name: string) =>
        run(
          `mutation { insert_leads(objects: [{id: ${id}, name: "${name}", added_by: "sales 1"}], on_conflict: {constraint: leads_pkey, update_columns: [name]}) { affected_rows } }`,
          sales,
        );
      expect((await upsert(1, "renamed")).data).toEqual({ insert_leads: { affected_rows: 1 } });
      // Another seller's lead: the update filter leaves it alone.
      expect((await upsert(2, "stolen")).data).toEqual({ insert_leads: { affected_rows: 0 } });
      // The update check (`name` `_ne` ''): a failing update is refused and rolled back.
      expect((await upsert(1, "")).errors[0]).toEqual({
        message: "check constraint of an insert/update permission has failed",
        extensions: { path: "$.selectionSet.insert_leads.args.objects", code: "permission-error" },
      });
      // A new row answers to the insert check (none), not to the update check.
      expect((await upsert(3, "")).data).toEqual({ insert_leads: { affected_rows: 1 } });
      expect(await rows("SELECT id, name FROM leads ORDER BY id")).toEqual([
        { id: 1, name: "renamed" },
        { id: 2, name: "lead 2" },
        { id: 3, name: "" },
      ]);
      const missing = await run(
        `mutation { insert_leads(objects: [{id: 4, name: "x", added_by: "y"}], on_conflict: {constraint: leads_pkey, update_columns: [name]}) { affected_rows } }`,
        asRole("sales"),
      );
      expect(missing.errors[0]).toEqual({
        message: 'missing session variable: "x-hasura-user-id"',
        extensions: { path: "$", code: "not-found" },
      });
    });
  });

  describe("column comparisons", () => {
    it("compares a related table's column with the permission table's column (`$`)", async () => {
      const cart = (quantity: number) =>
        run(`mutation { insert_order_cart(objects: {item_id: 1, order_cart_quantity: ${quantity}}) { affected_rows } }`, asRole("user"));
      expect(await cart(106)).toEqual({
        errors: [
          {
            message: "check constraint of an insert/update permission has failed",
            extensions: { path: "$.selectionSet.insert_order_cart.args.objects", code: "permission-error" },
          },
        ],
      });
      expect((await cart(100)).data).toEqual({ insert_order_cart: { affected_rows: 1 } });
      expect(await rows("SELECT order_cart_quantity FROM order_cart")).toEqual([{ order_cart_quantity: 100 }]);
    });

    it("reaches the permission table's columns from inside _exists", async () => {
      const post = (words: number, user: string) =>
        run(`mutation { insert_post(objects: {words: ${words}}) { affected_rows } }`, asRole("user", { "x-hasura-user-id": user }));
      expect((await post(10, "u1")).data).toEqual({ insert_post: { affected_rows: 1 } });
      expect((await post(11, "u1")).errors[0].extensions.code).toBe("permission-error");
      expect((await post(1, "u2")).errors[0].extensions.code).toBe("permission-error");
      expect(await rows("SELECT owner, words FROM post")).toEqual([{ owner: "u1", words: 10 }]);
    });
  });

  describe("updates", () => {
    it("reports a failed update check at the root and rolls back every field of the request", async () => {
      const body = await run(
        `mutation {
          a: update_article(where: {id: {_eq: 1}}, _set: {title: "renamed"}) { affected_rows }
          b: update_article(where: {id: {_eq: 1}}, _set: {is_published: true}) { affected_rows returning { id } } }`,
        asRole("user", { "x-hasura-user-id": "1" }),
      );
      expect(body).toEqual({
        errors: [
          { message: "check constraint of an insert/update permission has failed", extensions: { path: "$", code: "permission-error" } },
        ],
      });
      expect(await rows("SELECT title, is_published FROM article")).toEqual([{ title: "Article 1", is_published: false }]);
    });

    it("increments every numeric type, money included, keeping Hasura's numeric scale", async () => {
      await insertRows(suite.db, "numerics", [
        {
          num_smallint: 12345,
          num_integer: 12345,
          num_bigint: 12345,
          num_real: 12345.67,
          num_double: 12345.67,
          num_money: 12345.67,
          num_numeric: 12345.67,
        },
      ]);
      const first = await run(`mutation { update_numerics(where: {id: {_eq: 1}}, _inc: {num_smallint: -1, num_integer: -1, num_bigint: -1,
          num_real: -1.1, num_double: -1.1, num_money: -1.1, num_numeric: -1.1}) {
          affected_rows returning { num_smallint num_integer num_bigint num_double num_numeric } } }`);
      expect(first.data.update_numerics).toEqual({
        affected_rows: 1,
        returning: [{ num_smallint: 12344, num_integer: 12344, num_bigint: "12344", num_double: "12344.57", num_numeric: "12344.5700" }],
      });
      const second = await run(
        `mutation { update_numerics(where: {id: {_eq: 1}}, _inc: {num_double: -3E-4, num_money: -2E-2, num_numeric: -1E-30}) { returning { num_double num_numeric } } }`,
      );
      expect(second.data.update_numerics.returning).toEqual([
        { num_double: "12344.5697", num_numeric: "12344.5699999999999999999999999999990" },
      ]);
      const [money] = await rows<{ cents: string }>("SELECT (num_money::numeric * 100)::int::text AS cents FROM numerics");
      expect(money).toEqual({ cents: "1234455" });
    });
  });
});

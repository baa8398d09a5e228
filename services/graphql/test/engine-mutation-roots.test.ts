/**
 * Which mutation root fields a role's permissions give, as Hasura's schema generation decides
 * (server/src-lib/Hasura/GraphQL/Schema/Mutation.hs in https://github.com/hasura/graphql-engine):
 * an insert permission that grants no column still gives insert_<T> (insertIntoTable asks only for
 * the permission, and for a backend_only one the request's x-hasura-use-backend-only-permissions),
 * the row taking its defaults or coming with rows of relationships the role may insert; and
 * update_/delete_<T>_by_pk need a primary key the role may select every column of
 * (primaryKeysArguments), not just some select permission.
 */
import { describe, expect, it } from "vitest";
import type { Metadata } from "../src/engine/metadata/types.js";
import type { Session } from "../src/engine/request/session.js";
import { testBackends } from "./support/db.js";
import { asRole, metadataWith, useTestEngine } from "./support/engine.js";

const SCHEMA = `
CREATE TABLE visit (id serial PRIMARY KEY, at timestamptz NOT NULL DEFAULT now());
CREATE TABLE ticket (id serial PRIMARY KEY, opened boolean NOT NULL DEFAULT true);
CREATE TABLE ticket_note (id serial PRIMARY KEY, ticket_id int NOT NULL REFERENCES ticket(id), body text NOT NULL);
CREATE TABLE tag (id serial PRIMARY KEY, owner text NOT NULL, label text NOT NULL);
INSERT INTO tag (owner, label) VALUES ('u1', 'first'), ('u1', 'second');
`;

function metadata(): Metadata {
  return metadataWith([
    {
      table: { schema: "public", name: "visit" },
      insert_permissions: [{ role: "user", permission: { columns: [], check: {} } }],
      select_permissions: [{ role: "user", permission: { columns: ["id"], filter: {} } }],
    },
    {
      table: { schema: "public", name: "ticket" },
      array_relationships: [
        { name: "notes", using: { foreign_key_constraint_on: { table: { schema: "public", name: "ticket_note" }, column: "ticket_id" } } },
      ],
      insert_permissions: [{ role: "user", permission: { columns: [], check: {}, backend_only: true } }],
      select_permissions: [{ role: "user", permission: { columns: ["id", "opened"], filter: {} } }],
    },
    {
      // The role may select, update and delete tags, but not read their primary key.
      table: { schema: "public", name: "tag" },
      select_permissions: [
        { role: "user", permission: { columns: ["owner", "label"], filter: {} } },
        { role: "keeper", permission: { columns: ["id", "label"], filter: {} } },
      ],
      update_permissions: [
        { role: "user", permission: { columns: ["label"], filter: { owner: { _eq: "X-Hasura-User-Id" } } } },
        { role: "keeper", permission: { columns: ["label"], filter: {} } },
      ],
      delete_permissions: [
        { role: "user", permission: { filter: { owner: { _eq: "X-Hasura-User-Id" } } } },
        { role: "keeper", permission: { filter: {} } },
      ],
    },
    {
      table: { schema: "public", name: "ticket_note" },
      insert_permissions: [{ role: "user", permission: { columns: ["body"], check: {} } }],
      select_permissions: [{ role: "user", permission: { columns: ["body"], filter: {} } }],
    },
  ]);
}

const backend: Session = { ...asRole("user"), isAdmin: true, useBackendOnly: true };

describe.each(testBackends)("%s", (db) => {
  const { run } = useTestEngine(db, { schema: SCHEMA, metadata, session: asRole("user") });

  it("inserts a row of defaults for a role that may give no column", async () => {
    const input = await run(`{ __type(name: "visit_insert_input") { inputFields { name } } }`);
    expect(input).toEqual({ data: { __type: { inputFields: [] } } });
    expect(await run(`mutation { insert_visit(objects: [{}, {}]) { affected_rows returning { id } } }`)).toEqual({
      data: { insert_visit: { affected_rows: 2, returning: [{ id: 1 }, { id: 2 }] } },
    });
    expect(await run(`mutation { insert_visit_one(object: {}) { id } }`)).toEqual({ data: { insert_visit_one: { id: 3 } } });
  });

  it("offers a backend_only insert of no column, with its relationships, to backend requests only", async () => {
    const frontend = await run(`mutation { insert_ticket_one(object: {}) { id } }`);
    expect(frontend.errors[0].extensions.code).toBe("validation-failed");
    const input = await run(`{ __type(name: "ticket_insert_input") { inputFields { name } } }`, backend);
    expect(input).toEqual({ data: { __type: { inputFields: [{ name: "notes" }] } } });
    expect(
      await run(`mutation { insert_ticket_one(object: {notes: {data: [{body: "first"}]}}) { id opened notes { body } } }`, backend),
    ).toEqual({ data: { insert_ticket_one: { id: 1, opened: true, notes: [{ body: "first" }] } } });
  });

  it("gives update_ and delete_<T>_by_pk only to a role that may select every primary key column", async () => {
    const roots = async (session: Session) =>
      (await run(`{ __type(name: "mutation_root") { fields { name } } }`, session)).data.__type.fields
        .map((f: { name: string }) => f.name)
        .filter((name: string) => name.endsWith("_tag") || name.includes("_tag_"));
    expect(await roots(asRole("user", { "x-hasura-user-id": "u1" }))).toEqual(["delete_tag", "update_tag", "update_tag_many"]);
    expect(await roots(asRole("keeper"))).toEqual(["delete_tag", "delete_tag_by_pk", "update_tag", "update_tag_by_pk", "update_tag_many"]);
    const byPk = await run(`mutation { delete_tag_by_pk(id: 1) { label } }`, asRole("user", { "x-hasura-user-id": "u1" }));
    expect(byPk.errors[0].extensions.code).toBe("validation-failed");
    expect(await run(`mutation { update_tag_by_pk(pk_columns: {id: 2}, _set: {label: "kept"}) { id label } }`, asRole("keeper"))).toEqual({
      data: { update_tag_by_pk: { id: 2, label: "kept" } },
    });
  });
});

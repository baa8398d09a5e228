/**
 * Introspection disabled per role (https://hasura.io/docs/2.0/security/disable-graphql-introspection/):
 * set_graphql_schema_introspection_options, export, and what a listed role meets on /v1/graphql,
 * as Hasura's own fixture (server/tests-py/queries/graphql_introspection/disable_introspection)
 * checks it: `__schema` and `__type` refused with `not-supported`, `__typename` and data served.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestDatabase, type TestDatabase } from "./support/db.js";
import { ADMIN_HEADERS, admin, graphql, openService, type Service } from "./support/limits.js";

describe("introspection disabled for a role", () => {
  let handle: TestDatabase;
  let service: Service;
  const as = (role: string) => ({ ...ADMIN_HEADERS, "x-hasura-role": role });
  const disabled = {
    errors: [{ message: 'introspection is disabled for role: "introspection_disabled"', extensions: { path: "$", code: "not-supported" } }],
  };

  beforeAll(async () => {
    handle = await openTestDatabase("pglite");
    service = await openService(handle.db);
    const created = await admin(service, "/v2/query", {
      type: "run_sql",
      args: {
        sql: "CREATE TABLE authors (id serial PRIMARY KEY, name text); INSERT INTO authors (name) VALUES ('J.K.Rowling'), ('Paulo Coelho');",
      },
    });
    expect(created.status).toBe(200);
    const permission = (role: string) => ({
      type: "pg_create_select_permission",
      args: { table: "authors", role, permission: { columns: ["name"], filter: {} } },
    });
    const setup = await admin(service, "/v1/metadata", {
      type: "bulk",
      args: [
        { type: "pg_track_table", args: { table: "authors" } },
        permission("introspection_disabled"),
        permission("introspection_not_disabled"),
        { type: "set_graphql_schema_introspection_options", args: { disabled_for_roles: ["introspection_disabled"] } },
      ],
    });
    expect(setup.status, JSON.stringify(setup.body)).toBe(200);
  });
  afterAll(async () => {
    await service?.close();
    await handle?.dispose();
  });

  it("refuses __schema and __type to the role, with Hasura's error", async () => {
    expect((await graphql(service, { query: "{ __schema { types { name } } }" }, as("introspection_disabled"))).body).toEqual(disabled);
    expect(
      (await graphql(service, { query: '{ __type(name: "authors") { fields { name } } }' }, as("introspection_disabled"))).body,
    ).toEqual(disabled);
  });

  it("still answers __typename and data to the role, and introspection to every other role", async () => {
    expect(
      (await graphql(service, { query: "{ __typename authors(order_by: {name: asc}) { __typename name } }" }, as("introspection_disabled")))
        .body,
    ).toEqual({
      data: {
        __typename: "query_root",
        authors: [
          { __typename: "authors", name: "J.K.Rowling" },
          { __typename: "authors", name: "Paulo Coelho" },
        ],
      },
    });
    expect((await graphql(service, { query: '{ __type(name: "authors") { name } }' }, as("introspection_not_disabled"))).body).toEqual({
      data: { __type: { name: "authors" } },
    });
    expect((await graphql(service, { query: '{ __type(name: "authors") { name } }' }, ADMIN_HEADERS)).body).toEqual({
      data: { __type: { name: "authors" } },
    });
  });

  it("keeps the options in metadata; the call replaces them, an empty list removes them", async () => {
    const exported = await admin(service, "/v1/metadata", { type: "export_metadata", args: {} });
    expect((exported.body as Record<string, unknown>).graphql_schema_introspection).toEqual({
      disabled_for_roles: ["introspection_disabled"],
    });
    const bad = await admin(service, "/v1/metadata", {
      type: "set_graphql_schema_introspection_options",
      args: { disabled_for_roles: [1] },
    });
    expect(bad.status).toBe(400);
    expect((bad.body as { path: string }).path).toBe("$.args.disabled_for_roles[0]");
    await admin(service, "/v1/metadata", { type: "set_graphql_schema_introspection_options", args: { disabled_for_roles: [] } });
    const after = await admin(service, "/v1/metadata", { type: "export_metadata", args: {} });
    expect((after.body as Record<string, unknown>).graphql_schema_introspection).toBeUndefined();
    expect((await graphql(service, { query: '{ __type(name: "authors") { name } }' }, as("introspection_disabled"))).body).toEqual({
      data: { __type: { name: "authors" } },
    });
  });
});

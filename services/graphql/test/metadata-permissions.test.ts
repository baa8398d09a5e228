/** Select / insert / update / delete permissions. */
import { describe, expect, it } from "vitest";
import { failure, run, tableOf, tracked } from "./fixtures/metadata/fake-catalog.js";

const permissions = {
  select: { columns: ["id", "title"], filter: { status: { _eq: "published" } }, limit: 10, allow_aggregations: true },
  insert: { check: { author_id: { _eq: "X-Hasura-User-Id" } }, set: { status: "draft" }, columns: ["title", "content"] },
  update: { columns: "*", filter: { author_id: { _eq: "X-Hasura-User-Id" } }, check: null },
  delete: { filter: { author_id: { _eq: "X-Hasura-User-Id" } } },
} as const;

describe("permissions", () => {
  it("creates each kind, legacy and pg_ names, keeping the rule as given", () => {
    const { metadata, result } = run(
      tracked("article"),
      ["create_select_permission", { table: "article", role: "user", permission: permissions.select }],
      [
        "pg_create_insert_permission",
        { table: { schema: "public", name: "article" }, role: "user", permission: permissions.insert, comment: "own rows" },
      ],
      ["create_update_permission", { table: "article", role: "user", permission: permissions.update }],
      ["pg_create_delete_permission", { source: "default", table: "article", role: "user", permission: permissions.delete }],
      ["create_select_permission", { table: "article", role: "anonymous", permission: { columns: "*", filter: {} } }],
    );
    expect(result).toEqual({ message: "success" });
    expect(tableOf(metadata, "article")).toEqual({
      table: { schema: "public", name: "article" },
      insert_permissions: [{ role: "user", permission: permissions.insert, comment: "own rows" }],
      select_permissions: [
        { role: "user", permission: permissions.select },
        { role: "anonymous", permission: { columns: "*", filter: {} } },
      ],
      update_permissions: [{ role: "user", permission: permissions.update }],
      delete_permissions: [{ role: "user", permission: permissions.delete }],
    });
  });

  it("refuses a second permission of a kind for a role, and any for admin", () => {
    const metadata = run(tracked("article"), [
      "create_select_permission",
      { table: "article", role: "user", permission: permissions.select },
    ]).metadata;
    expect(failure(metadata, "create_select_permission", { table: "article", role: "user", permission: permissions.select })).toEqual({
      code: "already-exists",
      error: 'select permission already defined on table "article" with role "user"',
      path: "$.args",
      status: 400,
    });
    expect(
      failure(metadata, "create_update_permission", { table: "article", role: "admin", permission: permissions.update }),
    ).toMatchObject({
      code: "already-exists",
      error: 'update permission already defined on table "article" with role "admin"',
    });
  });

  it("requires the keys Hasura's parser requires", () => {
    expect(failure(tracked("article"), "create_select_permission", { table: "article", role: "user", permission: { filter: {} } })).toEqual(
      {
        code: "parse-failed",
        error: 'key "columns" not found',
        path: "$.args.permission",
        status: 400,
      },
    );
    expect(failure(tracked("article"), "create_insert_permission", { table: "article", role: "user", permission: {} }).error).toBe(
      'key "check" not found',
    );
    expect(failure(tracked("article"), "create_delete_permission", { table: "article", role: "user" }).error).toBe(
      'key "permission" not found',
    );
  });

  it("refuses columns and presets the table does not have", () => {
    expect(
      failure(tracked("article"), "create_select_permission", {
        table: "article",
        role: "user",
        permission: { columns: ["id", "nope"], filter: {} },
      }),
    ).toEqual({
      code: "invalid-configuration",
      error: 'Inconsistent object: in table "article": in permission for role "user": column "nope" does not exist',
      path: "$.args",
      status: 400,
    });
    expect(
      failure(tracked("article"), "create_insert_permission", {
        table: "article",
        role: "user",
        permission: { check: {}, set: { missing: 1 } },
      }).error,
    ).toContain('column "missing" does not exist');
    expect(
      failure(tracked(), "create_select_permission", { table: "article", role: "user", permission: permissions.select }),
    ).toMatchObject({
      code: "not-exists",
      error: 'table "article" does not exist in source: default',
    });
  });

  it("drops permissions, with Hasura's message for a missing one", () => {
    const metadata = run(
      tracked("article"),
      ["create_select_permission", { table: "article", role: "user", permission: permissions.select }],
      ["create_update_permission", { table: "article", role: "user", permission: permissions.update }],
    ).metadata;
    const dropped = run(
      metadata,
      ["pg_drop_update_permission", { table: "article", role: "user" }],
      ["drop_select_permission", { table: "article", role: "user" }],
    ).metadata;
    expect(tableOf(dropped, "article")).toEqual({ table: { schema: "public", name: "article" } });
    expect(failure(dropped, "drop_update_permission", { table: { schema: "public", name: "article" }, role: "user" })).toEqual({
      code: "bad-request",
      error: 'update permission on "article" for role "user" does not exist',
      path: "$.args",
      status: 400,
    });
  });

  it("sets a permission comment, or says the permission does not exist", () => {
    const metadata = run(tracked("article"), [
      "create_delete_permission",
      { table: "article", role: "user", permission: permissions.delete },
    ]).metadata;
    const commented = run(metadata, [
      "pg_set_permission_comment",
      { table: "article", role: "user", type: "delete", comment: "authors only" },
    ]).metadata;
    expect(tableOf(commented, "article")?.delete_permissions).toEqual([
      { role: "user", permission: permissions.delete, comment: "authors only" },
    ]);
    expect(failure(metadata, "set_permission_comment", { table: "article", role: "user", type: "select", comment: "x" })).toMatchObject({
      code: "permission-denied",
      error: `'select' permission on "article" for role "user" does not exist`,
    });
  });
});

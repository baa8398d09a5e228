/** Object and array relationships: create (foreign key, remote key, manual), drop, rename, comment. */
import { describe, expect, it } from "vitest";
import { failure, run, tableOf, tracked } from "./fixtures/metadata/fake-catalog.js";

const base = () => tracked("author", "article", "article_status", "library.publisher", "multi_author", "multi_article", "twice");
const articlesRel = { table: "author", name: "articles", using: { foreign_key_constraint_on: { table: "article", column: "author_id" } } };

describe("create relationships", () => {
  it("creates object relationships on a column, several columns, a remote key and a manual mapping", () => {
    const { metadata, result } = run(
      base(),
      ["create_object_relationship", { table: "article", name: "author", using: { foreign_key_constraint_on: "author_id" } }],
      ["pg_create_object_relationship", { table: "multi_article", name: "author", using: { foreign_key_constraint_on: ["a1", "a2"] } }],
      [
        "create_object_relationship",
        {
          table: "article",
          name: "publisher",
          using: {
            manual_configuration: { remote_table: { schema: "library", name: "publisher" }, column_mapping: { publisher_id: "id" } },
          },
        },
      ],
      [
        "create_object_relationship",
        { table: "author", name: "latest_article", using: { foreign_key_constraint_on: { table: "article", columns: ["author_id"] } } },
      ],
    );
    expect(result).toEqual({ message: "success" });
    expect(tableOf(metadata, "article")?.object_relationships).toEqual([
      { name: "author", using: { foreign_key_constraint_on: "author_id" } },
      {
        name: "publisher",
        using: { manual_configuration: { remote_table: { schema: "library", name: "publisher" }, column_mapping: { publisher_id: "id" } } },
      },
    ]);
    expect(tableOf(metadata, "multi_article")?.object_relationships).toEqual([
      { name: "author", using: { foreign_key_constraint_on: ["a1", "a2"] } },
    ]);
    expect(tableOf(metadata, "author")?.object_relationships).toEqual([
      {
        name: "latest_article",
        using: { foreign_key_constraint_on: { table: { schema: "public", name: "article" }, column: "author_id" } },
      },
    ]);
  });

  it("creates array relationships with `column`, `columns` as a string or a list, and manual mappings", () => {
    const { metadata } = run(
      base(),
      ["create_array_relationship", articlesRel],
      [
        "create_array_relationship",
        { table: "author", name: "articles2", using: { foreign_key_constraint_on: { table: "article", columns: "author_id" } } },
      ],
      [
        "create_array_relationship",
        {
          table: "multi_author",
          name: "articles",
          using: { foreign_key_constraint_on: { table: "multi_article", columns: ["a1", "a2"] } },
        },
      ],
      [
        "create_array_relationship",
        {
          table: "author",
          name: "articles3",
          using: { manual_configuration: { remote_table: "article", column_mapping: { id: "author_id" } } },
        },
      ],
    );
    const fkOn = { foreign_key_constraint_on: { table: { schema: "public", name: "article" }, column: "author_id" } };
    expect(tableOf(metadata, "author")?.array_relationships).toEqual([
      { name: "articles", using: fkOn },
      { name: "articles2", using: fkOn },
      {
        name: "articles3",
        using: { manual_configuration: { remote_table: { schema: "public", name: "article" }, column_mapping: { id: "author_id" } } },
      },
    ]);
    expect(tableOf(metadata, "multi_author")?.array_relationships?.[0]?.using).toEqual({
      foreign_key_constraint_on: { table: { schema: "public", name: "multi_article" }, columns: ["a1", "a2"] },
    });
  });

  it("answers invalid-configuration (400) when no foreign key matches", () => {
    const error = failure(base(), "create_array_relationship", {
      table: "author",
      name: "articles",
      using: { foreign_key_constraint_on: { table: "article", column: "title" } },
    });
    expect(error).toEqual({
      code: "invalid-configuration",
      error: 'Inconsistent object: in table "author": in relationship "articles": no foreign constraint exists on the given column(s)',
      path: "$.args",
      status: 400,
    });
    expect(
      failure(base(), "create_object_relationship", { table: "article", name: "writer", using: { foreign_key_constraint_on: "title" } })
        .error,
    ).toBe('Inconsistent object: in table "article": in relationship "writer": no foreign constraint exists on the given column(s)');
    expect(
      failure(base(), "create_object_relationship", { table: "twice", name: "author", using: { foreign_key_constraint_on: "author_id" } })
        .error,
    ).toBe(
      'Inconsistent object: in table "twice": in relationship "author": more than one foreign key constraint exists on the given column(s)',
    );
  });

  it("refuses targets that are not tracked and manual columns that do not exist", () => {
    const metadata = tracked("article");
    expect(
      failure(metadata, "create_object_relationship", {
        table: "article",
        name: "author",
        using: { foreign_key_constraint_on: "author_id" },
      }).error,
    ).toBe('Inconsistent object: table "author" is not tracked');
    const manual = (mapping: Record<string, string>) => ({
      table: "article",
      name: "publisher",
      using: { manual_configuration: { remote_table: { schema: "library", name: "publisher" }, column_mapping: mapping } },
    });
    expect(failure(base(), "create_object_relationship", manual({ nope: "id" })).error).toBe(
      'Inconsistent object: table "article" has no field named "nope"',
    );
    expect(failure(base(), "create_object_relationship", manual({ publisher_id: "nope" })).error).toBe(
      'Inconsistent object: table "library.publisher" has no field named "nope"',
    );
  });

  it("refuses a name already used by a column or relationship, and an untracked table", () => {
    const metadata = run(base(), ["create_array_relationship", articlesRel]).metadata;
    expect(failure(metadata, "create_array_relationship", articlesRel)).toEqual({
      code: "already-exists",
      error: 'field with name "articles" already exists in table "author"',
      path: "$.args",
      status: 400,
    });
    expect(failure(metadata, "create_array_relationship", { ...articlesRel, name: "name" }).code).toBe("already-exists");
    expect(failure(tracked("article"), "create_array_relationship", articlesRel)).toEqual({
      code: "not-exists",
      error: 'table "author" does not exist in source: default',
      path: "$.args",
      status: 400,
    });
  });

  // Hasura's graphql_query/basic/setup_invalid_fkey_relationship.yaml expects HTTP 400.
  it("rejects a column name where an array relationship needs {table, column}", () => {
    expect(
      failure(base(), "create_array_relationship", {
        table: "author",
        name: "articles",
        using: { foreign_key_constraint_on: "I should have been an object" },
      }),
    ).toEqual({
      code: "parse-failed",
      error: "Expecting object { table, columns }.",
      path: "$.args.using.foreign_key_constraint_on",
      status: 400,
    });
    expect(failure(base(), "create_object_relationship", { table: "article", name: "x", using: {} })).toMatchObject({
      code: "parse-failed",
      error: "atleast one of foreign_key_constraint_on/manual_configuration should be present",
      path: "$.args.using",
    });
  });
});

describe("drop / rename / comment", () => {
  const withRelationships = () =>
    run(
      base(),
      ["create_array_relationship", articlesRel],
      ["create_object_relationship", { table: "article", name: "author", using: { foreign_key_constraint_on: "author_id" } }],
      [
        "create_select_permission",
        {
          table: "article",
          role: "user",
          permission: {
            columns: "*",
            filter: { _or: [{ author: { id: { _eq: "X-Hasura-User-Id" } } }, { status: { _eq: "published" } }] },
          },
        },
      ],
    ).metadata;

  it("drops a relationship", () => {
    const { metadata } = run(withRelationships(), [
      "pg_drop_relationship",
      { table: { schema: "public", name: "author" }, relationship: "articles" },
    ]);
    expect(tableOf(metadata, "author")).toEqual({ table: { schema: "public", name: "author" } });
    expect(failure(metadata, "drop_relationship", { table: "author", relationship: "articles" })).toEqual({
      code: "not-exists",
      error: 'relationship "articles" does not exist',
      path: "$.args",
      status: 400,
    });
  });

  it("refuses to drop a relationship a permission uses, unless cascade", () => {
    expect(failure(withRelationships(), "drop_relationship", { table: "article", relationship: "author" })).toEqual({
      code: "dependency-error",
      error: 'cannot drop due to the following dependent objects: permission article.user.select in source "default"',
      path: "$.args",
      status: 400,
    });
    const { metadata } = run(withRelationships(), ["drop_relationship", { table: "article", relationship: "author", cascade: true }]);
    expect(tableOf(metadata, "article")).toEqual({ table: { schema: "public", name: "article" } });
  });

  it("renames a relationship and the permission rules that use it", () => {
    const { metadata } = run(withRelationships(), ["pg_rename_relationship", { table: "article", name: "author", new_name: "writer" }]);
    const article = tableOf(metadata, "article");
    expect(article?.object_relationships?.map((r) => r.name)).toEqual(["writer"]);
    expect(article?.select_permissions?.[0]?.permission.filter).toEqual({
      _or: [{ writer: { id: { _eq: "X-Hasura-User-Id" } } }, { status: { _eq: "published" } }],
    });
    expect(failure(metadata, "rename_relationship", { table: "article", name: "author", new_name: "x" }).code).toBe("not-exists");
    expect(failure(metadata, "rename_relationship", { table: "article", name: "writer", new_name: "title" })).toMatchObject({
      code: "already-exists",
      error: 'field with name "title" already exists in table "article"',
    });
  });

  it("sets and clears a relationship comment", () => {
    const set = run(withRelationships(), [
      "pg_set_relationship_comment",
      { table: "author", relationship: "articles", comment: "their work" },
    ]).metadata;
    expect(tableOf(set, "author")?.array_relationships?.[0]?.comment).toBe("their work");
    const cleared = run(set, ["set_relationship_comment", { table: "author", relationship: "articles" }]).metadata;
    expect(tableOf(cleared, "author")?.array_relationships?.[0]).not.toHaveProperty("comment");
  });
});

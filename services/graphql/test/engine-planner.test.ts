/**
 * The planner: each selected field resolved against the model into a typed node (what it reads
 * or writes, with its arguments read and shaped), before any SQL is built; and the layering it
 * makes possible: compiler/ builds SQL from the plan without GraphQL, executors/ run it.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type GraphQLObjectType, Kind, type OperationDefinitionNode, parse } from "graphql";
import { describe, expect, it } from "vitest";
import { PlanContext } from "../src/engine/plan/context.js";
import { collectFields, type Fragments } from "../src/engine/plan/fields.js";
import { planMutationField, planQueryField } from "../src/engine/plan/root.js";
import type { InsertObject, MutationField, QueryField } from "../src/engine/plan/types.js";
import { metadataWith, useTestEngine } from "./support/engine.js";

const SCHEMA = `
CREATE TABLE author (id serial PRIMARY KEY, full_name text NOT NULL, owner text);
CREATE TABLE article (id serial PRIMARY KEY, author_id int NOT NULL REFERENCES author (id), title text NOT NULL, body jsonb);
CREATE FUNCTION author_initial(a author) RETURNS text LANGUAGE sql STABLE AS $$ SELECT left(a.full_name, 1) $$;
`;

const metadata = () => ({
  ...metadataWith([
    {
      table: { schema: "public", name: "author" },
      configuration: { column_config: { full_name: { custom_name: "name" } } },
      array_relationships: [
        { name: "articles", using: { foreign_key_constraint_on: { table: { schema: "public", name: "article" }, column: "author_id" } } },
      ],
      computed_fields: [{ name: "initial", definition: { function: { schema: "public", name: "author_initial" } } }],
      select_permissions: [{ role: "user", permission: { columns: ["id", "full_name"], filter: { owner: { _eq: "X-Hasura-User-Id" } } } }],
    },
    {
      table: { schema: "public", name: "article" },
      object_relationships: [{ name: "author", using: { foreign_key_constraint_on: "author_id" } }],
    },
  ]),
  custom_types: {
    objects: [
      {
        name: "Written",
        fields: [
          { name: "id", type: "Int!" },
          { name: "note", type: "Note" },
        ],
        relationships: [{ name: "author", type: "object", remote_table: "author", field_mapping: { id: "id" } }],
      },
      { name: "Note", fields: [{ name: "text", type: "String" }] },
      { name: "Receipt", fields: [{ name: "id", type: "Int!" }] },
    ],
    input_objects: [{ name: "Draft", fields: [{ name: "tags", type: "[String!]" }] }],
  },
  actions: [
    {
      name: "write",
      definition: {
        kind: "synchronous",
        arguments: [{ name: "draft", type: "Draft!" }],
        output_type: "Written",
        handler: "http://handler.test",
      },
    },
    { name: "write_later", definition: { kind: "asynchronous", output_type: "Receipt", handler: "http://handler.test" } },
  ],
});

describe("planner", () => {
  const suite = useTestEngine("pglite", { schema: SCHEMA, metadata });

  function plan(query: string, variables: Record<string, unknown> = {}, role = "admin"): Array<QueryField | MutationField> {
    const document = parse(query);
    const operation = document.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION) as OperationDefinitionNode;
    const schema = suite.engine.schemaFor(role);
    const mutation = operation.operation === "mutation";
    const root = (mutation ? schema.getMutationType() : schema.getQueryType()) as GraphQLObjectType;
    const fragments: Fragments = {};
    for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments[d.name.value] = d;
    const ctx = new PlanContext(suite.model, "admin", variables, fragments);
    return collectFields([operation.selectionSet], root.name, fragments, variables).map((f) =>
      mutation ? planMutationField(ctx, root, f) : planQueryField(ctx, root, f),
    );
  }

  it("resolves fields to the model: custom column names, relationships, computed fields, __typename", () => {
    const [typename, list] = plan(`{ __typename authors: author(where: {name: {_eq: "A"}}, limit: 2) {
      name initial articles(order_by: {id: desc}) { title body(path: "$.a") author { __typename id } } } }`);
    expect(typename).toEqual({ kind: "typename", key: "__typename", typeName: "query_root" });
    if (list?.kind !== "select") throw new Error(`a select, not ${list?.kind}`);
    expect(list.key).toBe("authors");
    expect(list.rows.table.name).toBe("author");
    expect(list.rows.args).toEqual({ where: { name: { _eq: "A" } }, limit: 2 });
    const [name, initial, articles] = list.rows.fields;
    expect(name).toMatchObject({ kind: "column", key: "name", column: "full_name", jsonPath: undefined });
    expect(initial).toMatchObject({ kind: "computed_scalar", key: "initial", args: {} });
    if (articles?.kind !== "array_rel") throw new Error(`an array relationship, not ${articles?.kind}`);
    expect(articles.rel.mapping).toEqual([["id", "author_id"]]);
    expect(articles.rows.table.name).toBe("article");
    expect(articles.rows.args).toEqual({ order_by: [{ id: "desc" }] });
    expect(articles.rows.path).toEqual(["selectionSet", "authors", "selectionSet", "articles"]);
    const [, body, author] = articles.rows.fields;
    expect(body).toMatchObject({ kind: "column", column: "body", jsonPath: "$.a" });
    expect(author).toMatchObject({ kind: "object_rel", target: { name: "author" } });
    expect(author?.kind === "object_rel" && author.fields).toEqual([
      { kind: "typename", key: "__typename", typeName: "author" },
      {
        kind: "column",
        key: "id",
        column: "id",
        jsonPath: undefined,
        path: ["selectionSet", "authors", "selectionSet", "articles", "selectionSet", "author", "selectionSet", "id"],
      },
    ]);
  });

  it("plans aggregates, by-pk fields and a role's own view of the types", () => {
    const [aggregate, byPk] = plan(`{ author_aggregate { aggregate { count(columns: name, distinct: true) max { name } } nodes { id } }
      author_by_pk(id: 1) { name } }`);
    if (aggregate?.kind !== "select_aggregate") throw new Error(`an aggregate, not ${aggregate?.kind}`);
    expect(aggregate.aggregate.fields).toEqual([
      {
        kind: "aggregate",
        key: "aggregate",
        typeName: "author_aggregate_fields",
        fields: [
          // A single value given for a list argument is a list of one (GraphQL's input coercion).
          { kind: "count", key: "count", columns: ["name"], distinct: true },
          {
            kind: "function",
            key: "max",
            op: "max",
            typeName: "author_max_fields",
            columns: [{ kind: "column", key: "name", column: "full_name" }],
          },
        ],
      },
      expect.objectContaining({ kind: "nodes", key: "nodes" }),
    ]);
    expect(byPk).toMatchObject({ kind: "select_by_pk", pk: { id: 1 }, table: { name: "author" } });
    const [userList] = plan("{ author { __typename name } }", {}, "user");
    expect(userList?.kind === "select" && userList.rows.fields[0]).toEqual({ kind: "typename", key: "__typename", typeName: "author" });
  });

  it("resolves a nested insert: object-relationship parents before the row, array-relationship children after", () => {
    const [insert] = plan(
      `mutation ($title: String!) { insert_article(objects: [{title: $title, author: {data: {name: "Ann", articles: {data: {title: "Second"}}}}}]) {
        affected_rows returning { id } } }`,
      { title: "First" },
    );
    if (insert?.kind !== "insert") throw new Error(`an insert, not ${insert?.kind}`);
    const [object] = insert.objects as [InsertObject];
    expect(object.table.name).toBe("article");
    expect(object.columns).toEqual({ title: "First" });
    expect(object.path).toEqual(["selectionSet", "insert_article", "args", "objects", 0]);
    const parent = object.parents[0];
    expect(parent?.rel.name).toBe("author");
    expect(parent?.object.columns).toEqual({ name: "Ann" });
    const children = parent?.object.children[0];
    expect(children?.rel.name).toBe("articles");
    // `data` given as one object for an array relationship: a list of one (GraphQL's input coercion).
    expect(children?.objects.map((o) => o.columns)).toEqual([{ title: "Second" }]);
    expect(children?.objects[0]?.path).toEqual([
      "selectionSet",
      "insert_article",
      "args",
      "objects",
      0,
      "author",
      "data",
      "articles",
      "data",
      0,
    ]);
    expect(insert.output).toMatchObject({ kind: "response", fields: [{ kind: "affected_rows" }, { kind: "returning", key: "returning" }] });
  });

  it("plans an action: its input shaped by the argument types, its output fields, nested objects and relationships", () => {
    const [node] = plan(`mutation { write(draft: {tags: "a"}) { __typename id note { text } author { name } } }`);
    if (node?.kind !== "action") throw new Error(`an action, not ${node?.kind}`);
    expect(node.action.name).toBe("write");
    expect(node.input).toEqual({ draft: { tags: ["a"] } });
    const [typename, id, note, author] = node.fields ?? [];
    expect(typename).toEqual({ kind: "typename", key: "__typename", typeName: "Written" });
    expect(id).toEqual({ kind: "output_field", key: "id", field: "id", fields: null });
    expect(note).toEqual({
      kind: "output_field",
      key: "note",
      field: "note",
      fields: [{ kind: "output_field", key: "text", field: "text", fields: null }],
    });
    expect(author).toMatchObject({
      kind: "object_rel",
      rel: { name: "author", mapping: [["id", "id"]] },
      fields: [{ kind: "column", column: "full_name" }],
    });
  });

  it("plans an asynchronous action's query field: the call's id and what is read of its log entry", () => {
    const [node] = plan(`query ($id: uuid!) { write_later(id: $id) { id errors output { id } } }`, {
      id: "00000000-0000-0000-0000-000000000001",
    });
    if (node?.kind !== "async_action_query") throw new Error(`an async action query, not ${node?.kind}`);
    expect(node.id).toBe("00000000-0000-0000-0000-000000000001");
    expect(node.fields).toEqual([
      { kind: "async_field", key: "id", field: "id" },
      { kind: "async_field", key: "errors", field: "errors" },
      { kind: "async_output", key: "output", fields: [{ kind: "output_field", key: "id", field: "id", fields: null }] },
    ]);
  });

  it("refuses a nested insert that sets the columns its parent determines, before any SQL", () => {
    expect(() =>
      plan(`mutation { insert_author_one(object: {name: "Ann", articles: {data: [{title: "T", author_id: 3}]}}) { id } }`),
    ).toThrow(/author_id/);
    expect(() => plan(`mutation { insert_article_one(object: {title: "T", author_id: 1, author: {data: {name: "B"}}}) { id } }`)).toThrow(
      /author_id/,
    );
  });
});

describe("engine layers", () => {
  const engineDir = join(import.meta.dirname, "../src/engine");
  const sources = (folder: string) =>
    readdirSync(join(engineDir, folder))
      .filter((f) => f.endsWith(".ts"))
      .map((f) => ({ file: `${folder}/${f}`, text: readFileSync(join(engineDir, folder, f), "utf8") }));

  it("compiler/ builds SQL from the plan: it neither reads the GraphQL schema nor runs a statement", () => {
    for (const { file, text } of sources("compiler")) {
      expect(text, file).not.toMatch(/from "graphql"/);
      expect(text, file).not.toMatch(/\b(Queryable|Database)\b|\.query\(|\.transaction\(/);
      expect(text, file).not.toMatch(/extensions|fieldInfo/);
    }
  });

  it("executors/ run SQL and call handlers without building GraphQL meaning of their own", () => {
    for (const { file, text } of sources("executors")) expect(text, file).not.toMatch(/fieldInfo|collectFields|argumentValues/);
    // Only introspection answers through graphql-js; an action's types come read from the model.
    for (const { file, text } of sources("executors").filter((s) => s.file !== "executors/introspection.ts"))
      expect(text, file).not.toMatch(/from "graphql"/);
  });
});

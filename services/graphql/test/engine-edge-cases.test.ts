/**
 * Valid requests that once failed (found by generating requests from the schema): aggregates
 * that select no aggregate function, nulls inside aggregate orderings, jsonb strings appended,
 * a column named twice in on_conflict, and array columns whose stored arrays hold NULL.
 */
import {
  type GraphQLInputObjectType,
  type GraphQLInputType,
  type GraphQLList,
  type GraphQLObjectType,
  getNamedType,
  getNullableType,
  isListType,
  isNonNullType,
} from "graphql";
import { describe, expect, it } from "vitest";
import type { Metadata } from "../src/engine/metadata/types.js";
import { testBackends } from "./support/db.js";
import { ADMIN, asRole, metadataWith, useTestEngine } from "./support/engine.js";

const SCHEMA = `
CREATE TABLE author (id serial PRIMARY KEY, name text NOT NULL, tags text[], doc jsonb);
CREATE TABLE article (id serial PRIMARY KEY, title text, author_id int NOT NULL REFERENCES author(id));
INSERT INTO author (name, tags, doc) VALUES ('a', '{x,NULL}', '{"k": 1}'), ('b', NULL, '[1]');
INSERT INTO article (title, author_id) VALUES ('t1', 1), ('t2', 1), ('t3', 2);
`;

const metadata = (): Metadata =>
  metadataWith([
    {
      table: { schema: "public", name: "author" },
      array_relationships: [
        { name: "articles", using: { foreign_key_constraint_on: { table: { schema: "public", name: "article" }, column: "author_id" } } },
      ],
      select_permissions: [{ role: "reader", permission: { columns: ["id", "name"], filter: { id: { _eq: 1 } } } }],
    },
    {
      table: { schema: "public", name: "article" },
      object_relationships: [{ name: "author", using: { foreign_key_constraint_on: "author_id" } }],
      select_permissions: [{ role: "reader", permission: { columns: ["id", "title"], filter: {} } }],
    },
  ]);

describe.each(testBackends)("%s", (backend) => {
  const suite = useTestEngine(backend, { schema: SCHEMA, metadata });
  const data = async (query: string) => {
    const body = JSON.parse(await suite.engine.execute({ query }, ADMIN));
    expect(body.errors).toBeUndefined();
    return body.data;
  };

  it("answers an aggregate that selects only __typename, at the root and nested", async () => {
    expect(await data(`{ author_aggregate { __typename } }`)).toEqual({ author_aggregate: { __typename: "author_aggregate" } });
    expect(await data(`{ author_aggregate(where: {id: {_lt: 0}}) { aggregate { __typename } } }`)).toEqual({
      author_aggregate: { aggregate: { __typename: "author_aggregate_fields" } },
    });
    expect(await data(`{ author(order_by: {id: asc}) { articles_aggregate { __typename } } }`)).toEqual({
      author: [{ articles_aggregate: { __typename: "article_aggregate" } }, { articles_aggregate: { __typename: "article_aggregate" } }],
    });
  });

  it("answers an empty object for an aggregate whose every field is skipped", async () => {
    expect(await data(`{ author_aggregate { aggregate @skip(if: true) { count } } }`)).toEqual({ author_aggregate: {} });
    expect(await data(`{ author_aggregate { nodes @include(if: false) { id } } }`)).toEqual({ author_aggregate: {} });
    expect(await data(`{ author(order_by: {id: asc}) { id articles_aggregate { aggregate @include(if: false) { count } } } }`)).toEqual({
      author: [
        { id: 1, articles_aggregate: {} },
        { id: 2, articles_aggregate: {} },
      ],
    });
  });

  it("treats a null inside an aggregate ordering as absent, as on a plain column", async () => {
    const expected = { author: [{ id: 2 }, { id: 1 }] };
    expect(await data(`{ author(order_by: [{articles_aggregate: {count: null}}, {id: desc}]) { id } }`)).toEqual(expected);
    expect(await data(`{ author(order_by: [{articles_aggregate: {max: {title: null}}}, {id: desc}]) { id } }`)).toEqual(expected);
    expect(await data(`{ author(order_by: [{articles_aggregate: {max: null}}, {name: null}, {id: desc}]) { id } }`)).toEqual(expected);
  });

  it("appends and prepends a JSON string to a jsonb column", async () => {
    expect(await data(`mutation { update_author(where: {id: {_eq: 2}}, _append: {doc: "end"}) { returning { doc } } }`)).toEqual({
      update_author: { returning: [{ doc: [1, "end"] }] },
    });
    expect(await data(`mutation { update_author(where: {id: {_eq: 2}}, _prepend: {doc: "{not json"}) { returning { doc } } }`)).toEqual({
      update_author: { returning: [{ doc: ["{not json", 1, "end"] }] },
    });
  });

  it("updates a column named twice in on_conflict.update_columns once", async () => {
    const body = await data(
      `mutation { insert_author(objects: [{id: 1, name: "renamed"}], on_conflict: {constraint: author_pkey, update_columns: [name, name]}) { returning { name } } }`,
    );
    expect(body).toEqual({ insert_author: { returning: [{ name: "renamed" }] } });
  });

  it("points an error found while compiling an argument at that argument, as Hasura does", async () => {
    const error = async (query: string) => JSON.parse(await suite.engine.execute({ query }, ADMIN)).errors[0];
    expect(await error(`{ author(where: {id: {_eq: null}}) { id } }`)).toEqual({
      message: 'unexpected null value for type "Int"',
      extensions: { path: "$.selectionSet.author.args.where", code: "validation-failed" },
    });
    expect((await error(`{ author { articles(where: {_or: [{title: {_neq: null}}]}) { id } } }`)).extensions.path).toBe(
      "$.selectionSet.author.selectionSet.articles.args.where",
    );
    expect((await error(`mutation { delete_article(where: {id: {_gt: null}}) { affected_rows } }`)).extensions.path).toBe(
      "$.selectionSet.delete_article.args.where",
    );
  });

  it("checks a variable's type where it is used, in Hasura's words, and lets an unknown one go unused", async () => {
    const answer = async (query: string, variables: Record<string, unknown> = {}) =>
      JSON.parse(await suite.engine.execute({ query, variables }, ADMIN));
    expect(await answer("query ($n: String) { author(limit: $n) { id } }", { n: "1" })).toEqual({
      errors: [
        {
          message: "variable 'n' is declared as 'String', but used where 'Int' is expected",
          extensions: { path: "$.selectionSet.author.args.limit", code: "validation-failed" },
        },
      ],
    });
    expect((await answer("query ($w: NoSuchType) { author(where: $w) { id } }")).errors[0].message).toBe(
      "variable 'w' is declared as 'NoSuchType', but used where 'author_bool_exp' is expected",
    );
    // A nullable variable fits a non-null place when it has a default; a non-null one fits a nullable place.
    expect(
      await answer("query ($n: Int = 1, $m: Int!) { author(limit: $m, order_by: {id: asc}, where: {id: {_gte: $n}}) { id } }", { m: 1 }),
    ).toEqual({
      data: { author: [{ id: 1 }] },
    });
    expect(await answer("query ($unused: NoSuchType) { author(limit: 1, order_by: {id: asc}) { id } }")).toEqual({
      data: { author: [{ id: 1 }] },
    });
  });

  it("selects nothing from an inline fragment on a type the schema does not have", async () => {
    expect(await data("{ author(limit: 1, order_by: {id: asc}) { id ... on NoSuchType { name } ... on author { name } } }")).toEqual({
      author: [{ id: 1, name: expect.any(String) }],
    });
  });

  it("types an object relationship nullable for a role that may not read every target row", async () => {
    const type = (role: string) => String((suite.engine.schemaFor(role).getType("article") as GraphQLObjectType).getFields().author?.type);
    // author_id is NOT NULL, yet the reader sees only author 1: its other articles' author answers null.
    expect(type("reader")).toBe("author");
    const body = JSON.parse(
      await suite.engine.execute({ query: "{ article(order_by: {id: asc}) { title author { id } } }" }, asRole("reader")),
    );
    expect(body.data.article).toEqual([
      { title: "t1", author: { id: 1 } },
      { title: "t2", author: { id: 1 } },
      { title: "t3", author: null },
    ]);
    expect(type("admin")).toBe("author!");
  });

  it("types an array column's items as nullable in results, since stored arrays may hold NULL", async () => {
    expect(await data(`{ author(order_by: {id: asc}) { tags } }`)).toEqual({ author: [{ tags: ["x", null] }, { tags: null }] });
    const schema = suite.engine.schemaFor("admin");
    const output = (schema.getType("author") as GraphQLObjectType).getFields().tags?.type;
    expect(isListType(output) && !isNonNullType((output as GraphQLList<never>).ofType)).toBe(true);
    expect(getNamedType(output)?.name).toBe("String");
    // What a client writes stays a list of non-null strings.
    const input = schema
      .getMutationType()
      ?.getFields()
      .insert_author?.args.find((a) => a.name === "objects")?.type;
    const insertType = getNamedType(input) as GraphQLInputObjectType;
    const tags = getNullableType(insertType.getFields().tags?.type as GraphQLInputType);
    expect(isListType(tags) && isNonNullType(tags.ofType)).toBe(true);
  });
});

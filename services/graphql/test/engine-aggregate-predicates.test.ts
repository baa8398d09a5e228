/** Aggregation predicates in `where`: `<arrayrel>_aggregate: {count | bool_and | bool_or: {...}}`. */
import { describe, expect, it } from "vitest";
import type { Metadata } from "../src/engine/metadata/types.js";
import type { Session } from "../src/engine/request/session.js";
import { testBackends } from "./support/db.js";
import { ADMIN, asRole, metadataWith, useTestEngine } from "./support/engine.js";

const SCHEMA = `
CREATE TABLE author (id serial PRIMARY KEY, name text NOT NULL);
CREATE TABLE article (
  id serial PRIMARY KEY, title text NOT NULL, author_id int NOT NULL REFERENCES author(id),
  is_published boolean NOT NULL, rating int
);
INSERT INTO author (name) VALUES ('Alice'), ('Bob'), ('Carol');
INSERT INTO article (title, author_id, is_published, rating) VALUES
  ('A1', 1, true, 5), ('A2', 1, false, 5), ('A3', 1, true, 3),
  ('B1', 2, true, 4),
  ('C1', 3, false, NULL), ('C2', 3, false, NULL);
`;

function metadata(): Metadata {
  return metadataWith([
    {
      table: { schema: "public", name: "author" },
      array_relationships: [
        { name: "articles", using: { foreign_key_constraint_on: { table: { schema: "public", name: "article" }, column: "author_id" } } },
      ],
      select_permissions: [
        { role: "user", permission: { columns: ["id", "name"], filter: {} } },
        { role: "reader", permission: { columns: ["id", "name"], filter: {} } },
        {
          role: "prolific",
          permission: { columns: ["id", "name"], filter: { articles_aggregate: { count: { predicate: { _gte: 2 } } } } },
        },
      ],
    },
    {
      table: { schema: "public", name: "article" },
      select_permissions: [
        { role: "user", permission: { columns: "*", filter: { is_published: { _eq: true } }, allow_aggregations: true } },
        { role: "reader", permission: { columns: ["id", "title"], filter: {} } },
        { role: "prolific", permission: { columns: ["id"], filter: {} } },
      ],
    },
  ]);
}

describe.each(testBackends)("%s", (backend) => {
  const { run } = useTestEngine(backend, { schema: SCHEMA, metadata });
  const names = async (where: string, session: Session = ADMIN, variables?: Record<string, unknown>) => {
    const body = await run(`query ($n: Int, $b: Boolean) { author(where: ${where}, order_by: {id: asc}) { name } }`, session, variables);
    if (body.errors) throw new Error(JSON.stringify(body.errors));
    return body.data.author.map((a: { name: string }) => a.name);
  };

  it("offers <rel>_aggregate with count, bool_and and bool_or and their argument types", async () => {
    const type = async (name: string, session: Session = ADMIN) =>
      (await run(`{ __type(name: "${name}") { inputFields { name type { kind name ofType { name } } } enumValues { name } } }`, session))
        .data.__type;
    const exp = await type("author_bool_exp");
    expect(exp.inputFields.find((f: { name: string }) => f.name === "articles_aggregate").type).toEqual({
      kind: "INPUT_OBJECT",
      name: "article_aggregate_bool_exp",
      ofType: null,
    });
    expect((await type("article_aggregate_bool_exp")).inputFields.map((f: { name: string }) => f.name)).toEqual([
      "bool_and",
      "bool_or",
      "count",
    ]);
    expect((await type("article_aggregate_bool_exp_count")).inputFields).toEqual([
      { name: "arguments", type: { kind: "LIST", name: null, ofType: { name: null } } },
      { name: "distinct", type: { kind: "SCALAR", name: "Boolean", ofType: null } },
      { name: "filter", type: { kind: "INPUT_OBJECT", name: "article_bool_exp", ofType: null } },
      { name: "predicate", type: { kind: "NON_NULL", name: null, ofType: { name: "Int_comparison_exp" } } },
    ]);
    const boolAnd = await type("article_aggregate_bool_exp_bool_and");
    expect(boolAnd.inputFields[0]).toEqual({
      name: "arguments",
      type: {
        kind: "NON_NULL",
        name: null,
        ofType: { name: "article_select_column_article_aggregate_bool_exp_bool_and_arguments_columns" },
      },
    });
    expect(boolAnd.inputFields[3].type.ofType).toEqual({ name: "Boolean_comparison_exp" });
    expect(
      (await type("article_select_column_article_aggregate_bool_exp_bool_and_arguments_columns")).enumValues.map(
        (v: { name: string }) => v.name,
      ),
    ).toEqual(["is_published"]);
    // Without allow_aggregations on the related table there is nothing to aggregate.
    const reader = await type("author_bool_exp", asRole("reader"));
    expect(reader.inputFields.map((f: { name: string }) => f.name)).not.toContain("articles_aggregate");
  });

  it("compares counts, with arguments, distinct and a filter", async () => {
    expect(await names(`{articles_aggregate: {count: {predicate: {_gt: 1}}}}`)).toEqual(["Alice", "Carol"]);
    expect(await names(`{articles_aggregate: {count: {predicate: {_eq: 0}, filter: {is_published: {_eq: true}}}}}`)).toEqual(["Carol"]);
    expect(await names(`{articles_aggregate: {count: {predicate: {_eq: 0}, arguments: [rating]}}}`)).toEqual(["Carol"]);
    expect(await names(`{articles_aggregate: {count: {predicate: {_eq: 2}, arguments: [rating], distinct: true}}}`)).toEqual(["Alice"]);
    expect(await names(`{_not: {articles_aggregate: {count: {predicate: {_in: [1, 2]}}}}}`)).toEqual(["Alice"]);
  });

  it("folds boolean columns with bool_and and bool_or", async () => {
    expect(await names(`{articles_aggregate: {bool_and: {arguments: is_published, predicate: {_eq: true}}}}`)).toEqual(["Bob"]);
    expect(await names(`{articles_aggregate: {bool_or: {arguments: is_published, predicate: {_eq: false}}}}`)).toEqual(["Carol"]);
  });

  it("binds variables in the predicate and reuses the plan for new values", async () => {
    const where = `{articles_aggregate: {count: {predicate: {_gte: $n}}}}`;
    expect(await names(where, ADMIN, { n: 3 })).toEqual(["Alice"]);
    expect(await names(where, ADMIN, { n: 1 })).toEqual(["Alice", "Bob", "Carol"]);
  });

  it("counts only the related rows the role may read", async () => {
    // user sees published articles only: Carol has none, Alice two.
    expect(await names(`{articles_aggregate: {count: {predicate: {_eq: 0}}}}`, asRole("user"))).toEqual(["Carol"]);
    expect(await names(`{articles_aggregate: {count: {predicate: {_eq: 2}}}}`, asRole("user"))).toEqual(["Alice"]);
  });

  it("works in permission filters", async () => {
    const body = await run(`{ author(order_by: {id: asc}) { name } }`, asRole("prolific"));
    expect(body).toEqual({ data: { author: [{ name: "Alice" }, { name: "Carol" }] } });
  });

  it("refuses more than one function in one predicate, and an absent field for a role", async () => {
    const two = await run(
      `{ author(where: {articles_aggregate: {count: {predicate: {_gt: 1}}, bool_or: {arguments: is_published, predicate: {_eq: true}}}}) { id } }`,
    );
    expect(two.errors[0]).toMatchObject({
      message: "exactly one predicate should be specified",
      extensions: { code: "validation-failed" },
    });
    const reader = await run(`{ author(where: {articles_aggregate: {count: {predicate: {_gt: 1}}}}) { id } }`, asRole("reader"));
    expect(reader.errors[0].extensions.code).toBe("validation-failed");
    expect(reader.errors[0].message).toContain("articles_aggregate");
  });
});

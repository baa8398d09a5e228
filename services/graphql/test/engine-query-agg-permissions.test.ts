/** Aggregates under select permissions: the row limit binds nodes, not the aggregate; a role may count rows it can read no column of. */
import { describe, expect, it } from "vitest";
import type { Metadata } from "../src/engine/metadata/types.js";
import { testBackends } from "./support/db.js";
import { asRole, metadataWith, useTestEngine } from "./support/engine.js";

const SCHEMA = `
CREATE TABLE author (id serial PRIMARY KEY, name text UNIQUE);
CREATE TABLE article (id serial PRIMARY KEY, title text, author_id int REFERENCES author(id), published_on timestamp NOT NULL DEFAULT now());
INSERT INTO author (name) VALUES ('Author 1'), ('Author 2');
INSERT INTO article (title, author_id) VALUES ('Article 1', 1), ('Article 2', 1), ('Article 3', 2);
`;

function metadata(): Metadata {
  return metadataWith([
    {
      table: { schema: "public", name: "author" },
      array_relationships: [
        { name: "articles", using: { foreign_key_constraint_on: { table: { schema: "public", name: "article" }, column: "author_id" } } },
      ],
      select_permissions: [{ role: "user", permission: { columns: "*", filter: {}, allow_aggregations: true, limit: 1 } }],
    },
    {
      table: { schema: "public", name: "article" },
      select_permissions: [
        { role: "user", permission: { columns: "*", filter: {}, allow_aggregations: true, limit: 1 } },
        { role: "counter", permission: { columns: [], filter: {}, allow_aggregations: true, limit: 1 } },
      ],
    },
  ]);
}

describe.each(testBackends)("%s", (backend) => {
  const { run } = useTestEngine(backend, { schema: SCHEMA, metadata });

  it("limits the nodes of an aggregate (and nested lists) by the permission, but aggregates every row", async () => {
    const body = await run(
      `{ author_aggregate(order_by: {id: asc}) { aggregate { count max { id } } nodes { id name articles(order_by: {id: asc}) { id } } } }`,
      asRole("user"),
    );
    expect(body).toEqual({
      data: { author_aggregate: { aggregate: { count: 2, max: { id: 2 } }, nodes: [{ id: 1, name: "Author 1", articles: [{ id: 1 }] }] } },
    });
    const nested = await run(
      `{ author(where: {id: {_eq: 1}}) { articles_aggregate { aggregate { count } nodes { id } } } }`,
      asRole("user"),
    );
    expect(nested.data.author).toEqual([{ articles_aggregate: { aggregate: { count: 2 }, nodes: [{ id: 1 }] } }]);
    const limited = await run(`{ article_aggregate(limit: 2, order_by: {id: desc}) { aggregate { count } nodes { id } } }`, asRole("user"));
    expect(limited.data.article_aggregate).toEqual({ aggregate: { count: 2 }, nodes: [{ id: 3 }] });
  });

  it("counts rows for a role that may read no column, without column arguments or column aggregates", async () => {
    expect(await run(`{ article_aggregate { aggregate { count } } }`, asRole("counter"))).toEqual({
      data: { article_aggregate: { aggregate: { count: 3 } } },
    });
    expect(await run(`{ article_aggregate { aggregate { count(columns: [title]) } } }`, asRole("counter"))).toEqual({
      errors: [
        {
          message: "'count' has no argument named 'columns'",
          extensions: { path: "$.selectionSet.article_aggregate.selectionSet.aggregate.selectionSet.count", code: "validation-failed" },
        },
      ],
    });
    const max = await run(`{ article_aggregate { aggregate { max { published_on } } } }`, asRole("counter"));
    expect(max.errors[0]).toEqual({
      message: "field 'max' not found in type: 'article_aggregate_fields'",
      extensions: { path: "$.selectionSet.article_aggregate.selectionSet.aggregate.selectionSet.max", code: "validation-failed" },
    });
    const distinct = await run(`{ __type(name: "query_root") { fields { name args { name } } } }`, asRole("counter"));
    const aggregate = distinct.data.__type.fields.find((f: { name: string }) => f.name === "article_aggregate");
    expect(aggregate.args.map((a: { name: string }) => a.name)).not.toContain("distinct_on");
  });
});

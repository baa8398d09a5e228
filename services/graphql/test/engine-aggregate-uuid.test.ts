/**
 * uuid columns in max/min aggregates, as Hasura offers them (uuid is one of its comparable types,
 * isComparableType in server/src-lib/Hasura/Backends/Postgres/SQL/Types.hs): in `<T>_max_fields`,
 * `<T>_min_fields` and the aggregate order_by types, answered although PostgreSQL itself has no
 * max(uuid)/min(uuid).
 */
import { describe, expect, it } from "vitest";
import type { Metadata } from "../src/engine/metadata/types.js";
import { testBackends } from "./support/db.js";
import { asRole, metadataWith, useTestEngine } from "./support/engine.js";

// Ids chosen so that byte order and a naive text order under a natural-language collation could
// disagree only if the cast lost the C ordering: digits sort before letters either way, so the
// check is on the extremes 0..., 9..., a..., f....
const SCHEMA = `
CREATE TABLE team (id uuid PRIMARY KEY, name text NOT NULL);
CREATE TABLE member (id uuid PRIMARY KEY, team_id uuid NOT NULL REFERENCES team(id), label text);
INSERT INTO team VALUES ('00000000-0000-4000-8000-00000000000a', 'first'), ('ffffffff-0000-4000-8000-000000000000', 'second');
INSERT INTO member VALUES
  ('9fffffff-ffff-4fff-bfff-ffffffffffff', '00000000-0000-4000-8000-00000000000a', 'nine'),
  ('a0000000-0000-4000-8000-000000000000', '00000000-0000-4000-8000-00000000000a', 'a'),
  ('0a000000-0000-4000-8000-000000000000', 'ffffffff-0000-4000-8000-000000000000', 'zero-a'),
  ('f0000000-0000-4000-8000-000000000000', 'ffffffff-0000-4000-8000-000000000000', 'f');
`;

function metadata(): Metadata {
  return metadataWith([
    {
      table: { schema: "public", name: "team" },
      array_relationships: [
        { name: "members", using: { foreign_key_constraint_on: { table: { schema: "public", name: "member" }, column: "team_id" } } },
      ],
      select_permissions: [{ role: "user", permission: { columns: "*", filter: {}, allow_aggregations: true } }],
    },
    {
      table: { schema: "public", name: "member" },
      select_permissions: [{ role: "user", permission: { columns: "*", filter: {}, allow_aggregations: true } }],
    },
  ]);
}

describe.each(testBackends)("%s", (backend) => {
  const { run } = useTestEngine(backend, { schema: SCHEMA, metadata });

  it("offers uuid columns in max/min fields and their order_by types", async () => {
    const body = await run(`{
      max: __type(name: "member_max_fields") { fields { name type { name } } }
      min: __type(name: "member_min_fields") { fields { name type { name } } }
      order: __type(name: "member_max_order_by") { inputFields { name } }
    }`);
    const uuid = { type: { name: "uuid" } };
    expect(body.data.max.fields).toEqual([
      { name: "id", ...uuid },
      { name: "label", type: { name: "String" } },
      { name: "team_id", ...uuid },
    ]);
    expect(body.data.min.fields).toEqual(body.data.max.fields);
    expect(body.data.order.inputFields.map((f: { name: string }) => f.name)).toEqual(["id", "label", "team_id"]);
  });

  it("answers max and min of uuid columns in uuid byte order, for a role too", async () => {
    const body = await run(
      `{ member_aggregate { aggregate { max { id team_id } min { id team_id } } }
         team(order_by: {name: asc}) { name members_aggregate { aggregate { max { id } min { id } } } } }`,
      asRole("user"),
    );
    expect(body).toEqual({
      data: {
        member_aggregate: {
          aggregate: {
            max: { id: "f0000000-0000-4000-8000-000000000000", team_id: "ffffffff-0000-4000-8000-000000000000" },
            min: { id: "0a000000-0000-4000-8000-000000000000", team_id: "00000000-0000-4000-8000-00000000000a" },
          },
        },
        team: [
          {
            name: "first",
            members_aggregate: {
              aggregate: { max: { id: "a0000000-0000-4000-8000-000000000000" }, min: { id: "9fffffff-ffff-4fff-bfff-ffffffffffff" } },
            },
          },
          {
            name: "second",
            members_aggregate: {
              aggregate: { max: { id: "f0000000-0000-4000-8000-000000000000" }, min: { id: "0a000000-0000-4000-8000-000000000000" } },
            },
          },
        ],
      },
    });
  });

  it("orders by the max or min of a related uuid column", async () => {
    const byMax = await run(`{ team(order_by: {members_aggregate: {max: {id: desc}}}) { name } }`, asRole("user"));
    expect(byMax).toEqual({ data: { team: [{ name: "second" }, { name: "first" }] } });
    const byMin = await run(`{ team(order_by: {members_aggregate: {min: {id: desc}}}) { name } }`, asRole("user"));
    expect(byMin).toEqual({ data: { team: [{ name: "first" }, { name: "second" }] } });
  });
});

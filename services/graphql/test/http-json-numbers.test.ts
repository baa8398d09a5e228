/** Request bodies that keep long numbers exact: the parser, and bigint/jsonb values through /v1/graphql. */
import { createLogger } from "@platform/core";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readGraphqlConfig } from "../src/config.js";
import { JsonNumber, jsonText, numberFromText } from "../src/engine/json/number.js";
import { parseJsonBody } from "../src/engine/json/parse.js";
import { createGraphql } from "../src/server.js";

describe("parseJsonBody", () => {
  it("parses like JSON.parse when no number is long", () => {
    const text = '{"a": [1, -2.5, 1e3, true, false, null], "s": "1234567890123456789 \\" \\u00e9 \\ud83d\\ude00", "o": {}}';
    expect(parseJsonBody(text)).toEqual(JSON.parse(text));
  });

  it("keeps integers beyond 2^53 and decimals beyond 15 digits as JsonNumbers", () => {
    const body = parseJsonBody(
      '{ "big": 9223372036854775807, "neg": -9223372036854775808, "safe": 9007199254740991, "dec": 0.30000000000000004, "short": 16.0001220703125, "list": [12345678901234567890], "s": "x" }',
    ) as Record<string, unknown>;
    expect(body.big).toEqual(new JsonNumber("9223372036854775807"));
    expect(body.neg).toEqual(new JsonNumber("-9223372036854775808"));
    expect(body.safe).toBe(9007199254740991);
    expect(body.dec).toEqual(new JsonNumber("0.30000000000000004"));
    expect(body.short).toBe(16.0001220703125);
    expect(body.list).toEqual([new JsonNumber("12345678901234567890")]);
    expect(body.s).toBe("x");
  });

  it("refuses what JSON.parse refuses, and __proto__ keys", () => {
    for (const bad of [
      '{"a": 12345678901234567890',
      '{"a": 12345678901234567890,}',
      "[12345678901234567890 1]",
      '{"a": 012345678901234567890}',
      '{"a": "\u0001", "b": 12345678901234567890}',
      '{"__proto__": {"x": 1}, "n": 12345678901234567890}',
    ])
      expect(() => parseJsonBody(bad), bad).toThrow(SyntaxError);
  });

  it("prints JsonNumbers as JSON numbers", () => {
    expect(jsonText({ a: [new JsonNumber("12345678901234567890"), "s", null, true], b: { c: 1.5 } })).toBe(
      '{"a":[12345678901234567890,"s",null,true],"b":{"c":1.5}}',
    );
    expect(numberFromText("1e400")).toEqual(new JsonNumber("1e400"));
    expect(numberFromText("1.10")).toBe(1.1);
    expect(String(new JsonNumber("9223372036854775807"))).toBe("9223372036854775807");
  });
});

const SECRET = "test-admin-secret";
let service: Awaited<ReturnType<typeof createGraphql>>;
let app: FastifyInstance;
const send = (url: string, payload: string, contentType = "application/json") =>
  app.inject({ method: "POST", url, payload, headers: { "x-hasura-admin-secret": SECRET, "content-type": contentType } });

beforeAll(async () => {
  const config = readGraphqlConfig({
    HASURA_GRAPHQL_DATA_DIR: "memory://",
    HASURA_GRAPHQL_ADMIN_SECRET: SECRET,
    HASURA_GRAPHQL_METADATA_POLL_INTERVAL_MS: "60000",
    HASURA_GRAPHQL_STRINGIFY_NUMERIC_TYPES: "true",
  });
  service = await createGraphql(config, createLogger({ level: "silent" }));
  app = service.app;
  const sql = "CREATE TABLE counter (id serial PRIMARY KEY, n bigint, doc jsonb)";
  expect((await send("/v2/query", JSON.stringify({ type: "run_sql", args: { sql } }))).statusCode).toBe(200);
  const track = { type: "pg_track_table", args: { source: "default", table: "counter" } };
  expect((await send("/v1/metadata", JSON.stringify(track))).statusCode).toBe(200);
});
afterAll(async () => service.close());

describe("long numbers over /v1/graphql", () => {
  it("writes and reads back a bigint and a jsonb number without losing digits", async () => {
    const insert =
      '{"query": "mutation ($n: bigint, $d: jsonb) { insert_counter_one(object: {n: $n, doc: $d}) { n doc } }", "variables": {"n": 9223372036854775807, "d": {"v": 123456789012345678901234567890}}}';
    const res = await send("/v1/graphql", insert);
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('{"data":{"insert_counter_one":{"n":"9223372036854775807","doc":{"v": 123456789012345678901234567890}}}}');
    const read = '{"query": "query ($n: bigint) { counter(where: {n: {_eq: $n}}) { id } }", "variables": {"n": 9223372036854775807}}';
    expect((await send("/v1/graphql", read, "text/plain")).json()).toEqual({ data: { counter: [{ id: 1 }] } });
  });

  it("answers invalid JSON with invalid-json", async () => {
    const res = await send("/v1/graphql", '{"query": "{ counter { id } }", "variables": {"n": 92233720368547758070,}}');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: "invalid-json" });
  });
});

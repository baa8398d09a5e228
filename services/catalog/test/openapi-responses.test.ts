/**
 * Generative check of /openapi.json against the real app. For every documented operation it
 * builds requests from the documented parameters (valid values from enums, types, bounds and the
 * data earlier answers returned; then one spoiled parameter at a time) and requires every answer
 * to have a documented status and a body valid against the schema documented for that status
 * (ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses). Catalogs: a generated demo catalog, the
 * original fixture on both backends, and one whose database is missing (503 everywhere).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { FastifyInstance } from "fastify";
import { describe, expect, it } from "vitest";
import { generateCatalog } from "../src/demo/generate.js";
import { backends, type FixtureCatalog, type Json, openFixtureCatalog, serveSqlite, url, useCatalog } from "./support/fixture.js";

interface Parameter {
  name: string;
  in: "query" | "path";
  required: boolean;
  schema: Json;
}
interface Operation {
  path: string;
  method: string;
  parameters: Parameter[];
  responses: Record<string, Json>;
}
interface Case {
  label: string;
  path: Record<string, string>;
  query: Record<string, string | string[]>;
  /** The spoiled parameter, for spoiled cases. */
  spoiled?: Parameter;
}

type Item = Record<string, unknown>;

/** Parameters whose values live in the data under another name. */
const ALIASES: Record<string, string[]> = { store: ["parser_name"], region: ["region_normalized", "region"] };
const DAY_MS = 86_400_000;
const isInstant = (v: unknown): v is string => typeof v === "string" && /^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(v);

function operationsOf(doc: Json): Operation[] {
  const ops = Object.entries(doc.paths as Record<string, Record<string, Json>>).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ path, method, parameters: op.parameters ?? [], responses: op.responses })),
  );
  // Routes with path parameters (and then those with more required parameters) go later: they need data seen before.
  const weight = (op: Operation) =>
    op.parameters.filter((p) => p.in === "path").length * 100 + op.parameters.filter((p) => p.required).length;
  return ops.sort((a, b) => weight(a) - weight(b));
}

function validators(doc: Json) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  const cache = new Map<string, ValidateFunction>();
  return (op: Operation, status: string): ValidateFunction | undefined => {
    const schema = op.responses[status]?.content?.["application/json"]?.schema;
    if (!schema) return undefined;
    const key = `${op.path} ${status}`;
    if (!cache.has(key)) cache.set(key, ajv.compile({ ...schema, components: doc.components }));
    return cache.get(key);
  };
}

/** Everything earlier 200 answers contained: objects (as records) and, by key, the scalar values. */
class Seen {
  readonly records: Item[] = [];
  readonly byPath = new Map<string, Item[]>();
  add(path: string, body: unknown): void {
    const found: Item[] = [];
    const walk = (v: unknown) => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === "object") {
        found.push(v as Item);
        Object.values(v).forEach(walk);
      }
    };
    walk(body);
    this.records.push(...found);
    this.byPath.set(path, [...(this.byPath.get(path) ?? []), ...found]);
  }
  values(name: string): string[] {
    const keys = [name, ...(ALIASES[name] ?? [])];
    const out = new Set<string>();
    for (const r of this.records) for (const k of keys) if (typeof r[k] === "string" || typeof r[k] === "number") out.add(String(r[k]));
    return [...out];
  }
  /** Records sharing the most keys with the operation's parameters, so related values go together. */
  related(op: Operation): Item[] {
    const names = op.parameters.map((p) => p.name);
    const score = (r: Item) => names.filter((n) => r[n] !== undefined && r[n] !== null).length;
    const best = Math.max(0, ...this.records.map(score));
    return best === 0 ? [{}] : this.records.filter((r) => score(r) === best);
  }
  /** Ids of the collection a path parameter picks from (`/categories/{category_id}` -> ids seen at /categories). */
  ids(op: Operation): string[] {
    const parent = op.path.replace(/\/\{[^}]+\}.*$/, "");
    return (this.byPath.get(parent) ?? [])
      .map((r) => r.id)
      .filter((id) => id !== undefined && id !== null)
      .map(String);
  }
}

function validValue(p: Parameter, i: number, record: Item, seen: Seen, op: Operation): string | string[] {
  const s = p.schema;
  const own = record[p.name];
  if (s.enum) return s.enum[i % s.enum.length];
  if (s.format === "date-time") {
    const at = Date.parse(Object.values(record).find(isInstant) ?? "2026-02-01T00:00:00Z");
    const shift = /from/.test(p.name) ? -2 * DAY_MS : /to/.test(p.name) ? 2 * DAY_MS : 0;
    return new Date(at + shift).toISOString();
  }
  if (s.type === "boolean") return i % 2 === 0 ? "true" : "false";
  if (own !== undefined && own !== null && typeof own !== "object") return String(own);
  const pool = p.in === "path" ? [...seen.ids(op), ...seen.values(p.name)] : seen.values(p.name);
  if (s.type === "array") return pool.slice(i % Math.max(pool.length, 1), (i % Math.max(pool.length, 1)) + (i % 3));
  if (s.type === "integer") {
    const candidates = [...(p.in === "path" ? pool : []), s.default ?? s.minimum ?? 1, s.minimum, s.maximum].filter((v) => v !== undefined);
    return String(candidates[i % candidates.length]);
  }
  if (s.type === "number") return String([0, 99.5, 1e6][i % 3]);
  return pool[i % Math.max(pool.length, 1)] ?? "x";
}

/** Values validation or the handler must refuse (4xx): wrong types, out of bounds, not listed, empty. */
function spoiledValues(p: Parameter): Array<string | undefined> {
  const s = p.schema;
  const out: Array<string | undefined> = [];
  if (p.required && p.in === "query") out.push(undefined);
  if (s.type === "integer") out.push("abc", "1.5", ...(s.minimum === undefined ? [] : [String(s.minimum - 1)]));
  if (s.type === "integer" && s.maximum !== undefined) out.push(String(s.maximum + 1));
  if (s.type === "number") out.push("lots");
  if (s.type === "boolean") out.push("maybe");
  if (s.enum) out.push("not-a-choice");
  if (s.minLength) out.push("");
  if (s.format === "date-time") out.push("tomorrow", "2026-02-01", /from/.test(p.name) ? "0001-01-01T00:00:00Z" : "9999-12-31T00:00:00Z");
  if (p.in === "path") out.push(s.type === "integer" ? "987654321" : "no-such-id");
  return out;
}

function cases(op: Operation, seen: Seen): Case[] {
  const related = seen.related(op);
  const out: Case[] = [];
  const longest = Math.max(4, ...op.parameters.map((p) => p.schema.enum?.length ?? 0));
  for (let i = 0; i < longest; i++) {
    const record = related[i % related.length] ?? {};
    const c: Case = { label: `valid #${i}`, path: {}, query: {} };
    // Case 0 sends only what is required; the others every parameter.
    for (const p of op.parameters) {
      if (i === 0 && !p.required) continue;
      const value = validValue(p, i, record, seen, op);
      if (p.in === "path") c.path[p.name] = String(value);
      else c.query[p.name] = value;
    }
    out.push(c);
  }
  const base = out[0] as Case;
  for (const p of op.parameters) {
    for (const bad of spoiledValues(p)) {
      const c: Case = { label: `${p.name}=${JSON.stringify(bad)}`, path: { ...base.path }, query: { ...base.query }, spoiled: p };
      const part = p.in === "path" ? c.path : c.query;
      if (bad === undefined) delete part[p.name];
      else part[p.name] = bad;
      out.push(c);
    }
  }
  return out;
}

const requestUrl = (op: Operation, c: Case) =>
  url(
    op.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(c.path[name] ?? "")),
    c.query,
  );

/**
 * Sends every case of every operation; checks status and body; returns the statuses seen per
 * operation. `databaseDown`: 503 is then an acceptable answer to any request.
 */
async function explore(app: FastifyInstance, databaseDown = false): Promise<Map<string, Set<number>>> {
  const doc = (await app.inject({ url: "/openapi.json" })).json();
  const validatorFor = validators(doc);
  const seen = new Seen();
  const statuses = new Map<string, Set<number>>();
  // The second round draws on everything the first returned (e.g. stores and regions for the counts).
  for (const op of [...operationsOf(doc), ...operationsOf(doc)]) {
    const key = `${op.method} ${op.path}`;
    const got = statuses.get(key) ?? new Set<number>();
    for (const c of cases(op, seen)) {
      const target = requestUrl(op, c);
      const res = await app.inject({ method: op.method.toUpperCase() as "GET", url: target });
      const where = `${op.method.toUpperCase()} ${target} (${c.label}) -> ${res.statusCode} ${res.body.slice(0, 300)}`;
      got.add(res.statusCode);
      expect(Object.keys(op.responses), `undocumented status: ${where}`).toContain(String(res.statusCode));
      expect(res.headers["content-type"], where).toMatch(/^application\/json/);
      const validate = validatorFor(op, String(res.statusCode));
      expect(validate, `no schema for ${where}`).toBeDefined();
      const body = res.json();
      expect(validate?.(body), `${where}\n${JSON.stringify(validate?.errors, null, 1)}`).toBe(true);
      if (databaseDown && res.statusCode === 503) {
        // Nothing more to check: the body already matched the documented 503.
      } else if (c.spoiled) {
        expect(res.statusCode, where).toBeGreaterThanOrEqual(400);
        expect(res.statusCode, where).toBeLessThan(500);
        // A value of the wrong type is refused by validation, naming the parameter (proof it knows it).
        if (["integer", "number", "boolean"].includes(c.spoiled.schema.type) && res.statusCode === 422) {
          expect(
            body.detail.map((d: Json) => d.loc),
            where,
          ).toContainEqual([c.spoiled.in, c.spoiled.name]);
        }
      } else {
        expect(res.statusCode, where).toBeLessThan(500);
      }
      if (res.statusCode === 200) seen.add(op.path, body);
    }
    statuses.set(key, got);
  }
  return statuses;
}

function expectEveryOperationAnswered200(statuses: Map<string, Set<number>>): void {
  for (const [op, got] of statuses) expect([...got], `${op} never answered 200`).toContain(200);
  expect(statuses.size).toBe(13);
}

describe("documented responses on a generated demo catalog", () => {
  let dir = "";
  const catalog = useCatalog("sqlite", async (): Promise<FixtureCatalog> => {
    dir = mkdtempSync(join(tmpdir(), "catalog-openapi-"));
    const path = join(dir, "catalog.db");
    generateCatalog(path, { products: 30, stores: 3, regions: 2, snapshots: 300, seed: 11, endAt: new Date("2026-03-12T00:00:00Z") });
    return serveSqlite(path, dir);
  });

  it("every answer has a documented status and a body of the documented schema", async () => {
    expectEveryOperationAnswered200(await explore(catalog.app));
  });
});

describe.each(backends)("documented responses on the original fixture [%s]", (backend) => {
  const catalog = useCatalog(backend, () => openFixtureCatalog(backend));

  it("every answer has a documented status and a body of the documented schema", async () => {
    expectEveryOperationAnswered200(await explore(catalog.app));
  });
});

describe("documented responses while the database is missing", () => {
  let dir = "";
  const catalog = useCatalog("sqlite", async (): Promise<FixtureCatalog> => {
    dir = mkdtempSync(join(tmpdir(), "catalog-openapi-missing-"));
    return serveSqlite(join(dir, "absent.db"), dir);
  });

  it("every operation answers its documented 503", async () => {
    const statuses = await explore(catalog.app, true);
    for (const [op, got] of statuses) expect([...got], op).toContain(503);
  });
});

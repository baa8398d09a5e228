import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { introspect } from "../src/engine/catalog/introspect.js";
import { openTestDatabase, type TestDatabase, testBackends } from "./support/db.js";

const TABLES = 1000;

function manyTables(): string {
  const statements: string[] = ["CREATE SCHEMA wide;"];
  for (let i = 0; i < TABLES; i++) {
    const ref = i > 0 ? `, parent_id int REFERENCES wide.t${i - 1} (id)` : "";
    statements.push(
      `CREATE TABLE wide.t${i} (id int PRIMARY KEY, code text NOT NULL UNIQUE, label text, tags text[], at timestamptz DEFAULT now()${ref});`,
      `COMMENT ON COLUMN wide.t${i}.label IS 'label ${i}';`,
    );
  }
  return statements.join("\n");
}

describe.each(testBackends)(`introspecting ${TABLES} tables on %s`, (backend) => {
  let t: TestDatabase;

  beforeAll(async () => {
    t = await openTestDatabase(backend);
    await t.db.exec(manyTables());
  }, 120_000);
  afterAll(() => t?.dispose());

  it("reads all of them in one statement, well under the budget", async () => {
    await introspect(t.db, [{ schema: "wide", name: "t0" }]); // warm-up: plan caches, first-use costs
    const started = performance.now();
    const catalog = await introspect(t.db);
    const elapsed = performance.now() - started;
    expect(catalog.tables.size).toBe(TABLES);
    const last = catalog.tables.get(`wide.t${TABLES - 1}`);
    expect(last?.columns).toHaveLength(6);
    expect(last?.foreignKeys[0]?.refTable).toBe(`t${TABLES - 2}`);
    expect(last?.uniqueConstraints.map((u) => u.name)).toEqual([`t${TABLES - 1}_pkey`, `t${TABLES - 1}_code_key`]);
    expect(elapsed).toBeLessThan(3000);
  });

  it("is as fast for an explicit list of tracked tables", async () => {
    const names = Array.from({ length: TABLES }, (_, i) => ({ schema: "wide", name: `t${i}` }));
    const started = performance.now();
    const catalog = await introspect(t.db, names);
    expect(catalog.tables.size).toBe(TABLES);
    expect(performance.now() - started).toBeLessThan(3000);
  });
});

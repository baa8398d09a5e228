/**
 * Generative test: random valid requests built from each role's introspected schema, run through
 * the engine on databases that use every column type (test/generative/schemas.ts). Every
 * response is classified (test/generative/check.ts); all failures of a run are reported at the
 * end, grouped by class, each with a request that reproduces it. Larger or other runs:
 *   GRAPHQL_GENERATIVE_RUNS=2000 GRAPHQL_GENERATIVE_SEED=7 npx vitest run services/graphql/test/generative.test.ts
 * GRAPHQL_GENERATIVE_CONCURRENCY=4 runs that many requests at once; GRAPHQL_GENERATIVE_REPORT=<file>
 * appends the report and the count of each outcome to the file.
 */
import { appendFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { RequestGuard } from "../src/engine/limits/guard.js";
import type { Failure } from "./generative/report.js";
import { report } from "./generative/report.js";
import { clientSchema, type RoleRun, recordingErrors, runRequest } from "./generative/runner.js";
import { SCHEMAS } from "./generative/schemas.js";
import { testBackends } from "./support/db.js";
import { ADMIN, asRole, useTestEngine } from "./support/engine.js";

const RUNS = Number(process.env.GRAPHQL_GENERATIVE_RUNS) || 300;
const SEED = Number(process.env.GRAPHQL_GENERATIVE_SEED) || 1;
const CONCURRENCY = Number(process.env.GRAPHQL_GENERATIVE_CONCURRENCY) || 1;

describe.each(testBackends)("generated requests on %s", (backend) => {
  describe.each(SCHEMAS)("schema $name", (fixture) => {
    const last: { error?: string } = {};
    const suite = useTestEngine(backend, { schema: fixture.sql, metadata: fixture.metadata, database: (db) => recordingErrors(db, last) });

    it(`answers ${RUNS} valid requests per role (seed ${SEED})`, { timeout: 60_000 + RUNS * 200 }, async () => {
      const failures: Failure[] = [];
      const outcomes = new Map<string, number>();
      // Admin and the user role; admin again with HASURA_GRAPHQL_STRINGIFY_NUMERIC_TYPES on.
      const runs = [
        { role: "admin", session: ADMIN, stringify: false },
        { role: fixture.user.role, session: asRole(fixture.user.role, fixture.user.variables), stringify: false },
        { role: "admin (stringified numbers)", session: ADMIN, stringify: true },
      ];
      for (const { role, session, stringify } of runs) {
        const engine = stringify ? suite.engineWith({ stringifyNumeric: true }) : suite.engine;
        const run: RoleRun = {
          seed: SEED,
          schemaName: fixture.name,
          knowledge: fixture.knowledge,
          role,
          session,
          schema: await clientSchema(engine, session),
          engine,
          guard: new RequestGuard(),
          // An engine that sees each varied request once, with nothing cached for it.
          fresh: suite.engineWith({ stringifyNumeric: stringify }),
          stringify,
          last,
          failures,
          outcomes,
          compareCached: CONCURRENCY === 1,
        };
        for (let index = 0; index < RUNS; index += CONCURRENCY) {
          const batch = Array.from({ length: Math.min(CONCURRENCY, RUNS - index) }, (_, i) => runRequest(run, index + i));
          await Promise.all(batch);
        }
      }
      const where = `${backend}, schema ${fixture.name}`;
      const text = report(where, failures);
      if (process.env.GRAPHQL_GENERATIVE_REPORT) {
        const counts = [...outcomes].map(([o, n]) => `${o}: ${n}`).join(", ");
        appendFileSync(process.env.GRAPHQL_GENERATIVE_REPORT, `${where}: ${counts}\n${text}\n\n`);
      }
      // The message lists every failure class with a request that reproduces it.
      expect(failures.length, text).toBe(0);
    });
  });
});

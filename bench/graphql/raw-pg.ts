/**
 * The limit: the very SQL our engine sends for the benchmark query, run with `pg` and no
 * GraphQL or HTTP at all. The statements are captured by running the engine's compiler
 * in-process on a recording database handle (one per variable set: same text, other values),
 * then replayed from a pool with as many concurrent queries as the HTTP load has connections.
 */
import { type Compiled, compile, type Database, openDatabase, Sql, statementName } from "@platform/core";
import pg from "pg";
import type { LoadResult } from "../catalog/load.js";
import { type CpuPerRequest, startCpuMeter } from "../common/cpu.js";
import { ADMIN_SESSION, type EngineModules, type Metadata, trackedTables } from "./engine.js";
import type { BenchVariables } from "./queries.js";

export interface CapturedStatement extends Compiled {
  /** The engine's response body for this statement, to compare with what pg returns. */
  response: string;
}

export async function captureEngineSql(
  engine: EngineModules,
  url: string,
  metadata: Metadata,
  query: string,
  variableSets: BenchVariables[],
): Promise<CapturedStatement[]> {
  const db = await openDatabase({ url, maxConnections: 2 });
  try {
    let last: Compiled | undefined;
    const recording: Database = {
      ...db,
      query: (statement, options) => {
        last = statement instanceof Sql ? compile(statement, "postgres") : statement;
        return db.query(statement, options);
      },
    };
    const model = engine.buildModel(metadata, await engine.introspect(db, trackedTables(metadata)));
    const compiler = new engine.Engine(recording, model, { booleanNullCollapse: false });
    const captured: CapturedStatement[] = [];
    for (const variables of variableSets) {
      last = undefined;
      const response = await compiler.execute({ query, variables }, ADMIN_SESSION);
      if (!last) throw new Error(`the engine ran no SQL for ${JSON.stringify(variables)}: ${response.slice(0, 300)}`);
      captured.push({ ...(last as Compiled), response });
    }
    return captured;
  } finally {
    await db.close();
  }
}

/** The statement's single row, single column, as the engine splices it into `{"data":{"<field>": ...}}`. */
export async function runOnce(pool: pg.Pool, statement: Compiled): Promise<string> {
  const { rows } = await pool.query<Record<string, string | null>>(named(statement));
  return Object.values(rows[0] ?? {})[0] ?? "null";
}

/** Named like the engine names it, so the server keeps one prepared plan per connection here as well. */
function named(statement: Compiled): pg.QueryConfig {
  return { name: statementName(statement.text), text: statement.text, values: statement.values };
}

function percentile(sorted: Float64Array, p: number): number {
  return sorted.length === 0 ? 0 : (sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0);
}

/** `connections` workers back to back for `seconds`, rotating through the statements. */
export async function measureRawPg(
  url: string,
  statements: Compiled[],
  options: { connections: number; pool: number; seconds: number },
): Promise<{ result: LoadResult; cpu: CpuPerRequest }> {
  const pool = new pg.Pool({ connectionString: url, max: options.pool });
  try {
    let next = 0;
    const pick = () => named(statements[next++ % statements.length] as Compiled);
    // Warm-up: every connection opened and its statement prepared, caches hot.
    await Promise.all(Array.from({ length: options.connections * 20 }, () => pool.query(pick())));
    const latencies: number[] = [];
    let errors = 0;
    const meter = startCpuMeter(null);
    const started = performance.now();
    const deadline = started + options.seconds * 1000;
    const worker = async () => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        try {
          await pool.query(pick());
          latencies.push(performance.now() - t0);
        } catch {
          errors++;
        }
      }
    };
    await Promise.all(Array.from({ length: options.connections }, worker));
    const elapsed = (performance.now() - started) / 1000;
    const sorted = Float64Array.from(latencies).sort();
    const round = (ms: number) => Math.round(ms * 100) / 100;
    const result: LoadResult = {
      requestsPerSecond: latencies.length / elapsed,
      p50Ms: round(percentile(sorted, 50)),
      p99Ms: round(percentile(sorted, 99)),
      requests: latencies.length,
      non2xx: 0,
      errors,
    };
    return { result, cpu: meter.perRequest(latencies.length) };
  } finally {
    await pool.end();
  }
}

export function openRawPool(url: string): pg.Pool {
  return new pg.Pool({ connectionString: url, max: 2 });
}

/**
 * The database limit of a refresh: the very database work the service does per refresh_token
 * grant (its `rotateRefreshToken`: one statement that locks the session, revokes the token, inserts
 * the child, marks the session refreshed, writes both audit entries and returns the user with the
 * session's amr claims and identities), with the service's configuration, run directly on a pg pool
 * by concurrent workers, each walking its own session's chain. No HTTP, no JSON, no JWT signing.
 */

import { authTables, newRefreshToken, readAuthConfig, rotateRefreshToken } from "@platform/auth";
import { openDatabase } from "@platform/core";
import type { LoadResult } from "../catalog/load.js";
import { type Session, serviceEnv } from "./service.js";

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

const round = (ms: number) => Math.round(ms * 100) / 100;

const META = { ip: "127.0.0.1", userAgent: "bench", audience: undefined };

/** One worker per session for `seconds` (after `warmupSeconds` unrecorded), on a pool of `sessions.length`. */
export async function measureRawRefresh(
  url: string,
  sessions: Session[],
  seconds: number,
  algorithm: string,
  warmupSeconds = 1,
): Promise<LoadResult> {
  // The service's configuration (the algorithm does not change the statement).
  const config = readAuthConfig(serviceEnv(url, 0, sessions.length, algorithm));
  const deps = { config, tables: authTables(config.database.schema) };
  const db = await openDatabase({ url, maxConnections: sessions.length });
  const latencies: number[] = [];
  let errors = 0;
  let firstError: unknown;
  const refreshOnce = async (session: Session) => {
    const issued = newRefreshToken();
    const row = await rotateRefreshToken(db, deps, META, session.refreshToken, issued);
    if (!row) throw new Error(`token ${session.refreshToken} not usable`);
    session.refreshToken = issued;
  };
  const run = async (until: number, record: boolean) => {
    await Promise.all(
      sessions.map(async (session) => {
        while (performance.now() < until) {
          const start = performance.now();
          try {
            await refreshOnce(session);
            if (record) latencies.push(performance.now() - start);
          } catch (error) {
            errors++;
            firstError ??= error;
            if (errors > 100) throw error;
          }
        }
      }),
    );
  };
  try {
    await run(performance.now() + warmupSeconds * 1000, false);
    const started = performance.now();
    await run(started + seconds * 1000, true);
    const elapsed = (performance.now() - started) / 1000;
    if (latencies.length === 0) throw firstError ?? new Error("no refresh completed");
    latencies.sort((a, b) => a - b);
    return {
      requestsPerSecond: latencies.length / elapsed,
      p50Ms: round(percentile(latencies, 50)),
      p99Ms: round(percentile(latencies, 99)),
      requests: latencies.length,
      non2xx: 0,
      errors,
    };
  } finally {
    await db.close();
  }
}

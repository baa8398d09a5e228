/**
 * The database limit of a refresh: the statements the service runs per refresh_token grant
 * (lock session, lock token, revoke it, insert the child, update the session, read the user), in
 * one transaction, replayed with `pg` by concurrent workers, each walking its own session's chain.
 * Same statement texts as services/auth/src/db/{sessions,refresh-tokens,users}.ts, unnamed like
 * the service's.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import type { LoadResult } from "../catalog/load.js";
import type { Session } from "./service.js";

const LOCK_SESSION = "SELECT * FROM auth.sessions WHERE id = $1 FOR UPDATE";
const LOCK_TOKEN = `SELECT *, (updated_at + make_interval(secs => $2::float8) >= statement_timestamp()) AS within_reuse_interval
    FROM auth.refresh_tokens WHERE token = $1 FOR UPDATE`;
const REVOKE = "UPDATE auth.refresh_tokens SET revoked = true, updated_at = now() WHERE id = $1";
const INSERT_CHILD = `INSERT INTO auth.refresh_tokens (instance_id, token, user_id, session_id, parent)
    VALUES ('00000000-0000-0000-0000-000000000000', $1, $2, $3, $4)
    RETURNING *`;
const UPDATE_SESSION = "UPDATE auth.sessions SET refreshed_at = now(), updated_at = now(), user_agent = $2, ip = $3 WHERE id = $1";
const READ_USER = "SELECT * FROM auth.users WHERE id = $1";

const BASE32 = "abcdefghijklmnopqrstuvwxyz234567";
const newToken = () => [...randomBytes(12)].map((byte) => BASE32[byte & 31]).join("");

/** The service's 10 s default reuse interval. */
const REUSE_INTERVAL_SECONDS = 10;

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

const round = (ms: number) => Math.round(ms * 100) / 100;

async function refreshOnce(client: pg.PoolClient, session: Session): Promise<void> {
  await client.query("BEGIN");
  try {
    const locked = await client.query(LOCK_SESSION, [session.sessionId]);
    if (locked.rowCount !== 1) throw new Error(`session ${session.sessionId} not found`);
    const token = await client.query<{ id: string; revoked: boolean }>(LOCK_TOKEN, [session.refreshToken, REUSE_INTERVAL_SECONDS]);
    const row = token.rows[0];
    if (!row || row.revoked) throw new Error(`token ${session.refreshToken} not usable`);
    await client.query(REVOKE, [row.id]);
    const child = newToken();
    await client.query(INSERT_CHILD, [child, session.userId, session.sessionId, session.refreshToken]);
    await client.query(UPDATE_SESSION, [session.sessionId, "bench", "127.0.0.1"]);
    const user = await client.query(READ_USER, [session.userId]);
    if (user.rowCount !== 1) throw new Error(`user ${session.userId} not found`);
    await client.query("COMMIT");
    session.refreshToken = child;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  }
}

/** One worker per session for `seconds` (after `warmupSeconds` unrecorded), on a pool of `sessions.length`. */
export async function measureRawRefresh(url: string, sessions: Session[], seconds: number, warmupSeconds = 1): Promise<LoadResult> {
  const pool = new pg.Pool({ connectionString: url, max: sessions.length });
  const latencies: number[] = [];
  let errors = 0;
  let firstError: unknown;
  const run = async (until: number, record: boolean) => {
    await Promise.all(
      sessions.map(async (session) => {
        const client = await pool.connect();
        try {
          while (performance.now() < until) {
            const start = performance.now();
            try {
              await refreshOnce(client, session);
              if (record) latencies.push(performance.now() - start);
            } catch (error) {
              errors++;
              firstError ??= error;
              if (errors > 100) throw error;
            }
          }
        } finally {
          client.release();
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
    await pool.end();
  }
}

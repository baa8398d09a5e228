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
import { closedLoop } from "../common/closed-loop.js";
import { type Session, serviceEnv } from "./service.js";

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
  const refreshOnce = async (session: Session) => {
    const issued = newRefreshToken();
    const row = await rotateRefreshToken(db, deps, META, session.refreshToken, issued);
    if (!row) throw new Error(`token ${session.refreshToken} not usable`);
    session.refreshToken = issued;
  };
  try {
    return await closedLoop({
      workers: sessions.length,
      warmupSeconds,
      seconds,
      once: (worker) => refreshOnce(sessions[worker] as Session),
    });
  } finally {
    await db.close();
  }
}

/**
 * The auth service under test: its throw-away database (created and dropped on the bench's
 * PostgreSQL server), the service as a real process, and the API calls that prepare sessions.
 */
import { onServer } from "../common/pg-server.js";
import { freePort, type Server, startServer } from "../common/processes.js";

export const DATABASE = "bench_auth";
export const PASSWORD = "bench-password-1";

/** The server URL with its database replaced by `database`. */
export function databaseUrl(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** Drops any leftover `bench_auth` and creates it empty; returns its URL. */
export async function createDatabase(serverUrl: string): Promise<string> {
  await dropDatabase(serverUrl);
  await onServer(serverUrl, `CREATE DATABASE ${DATABASE}`);
  return databaseUrl(serverUrl, DATABASE);
}

export async function dropDatabase(serverUrl: string): Promise<void> {
  await onServer(serverUrl, `DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
}

const ALGORITHMS = ["RS256", "ES256", "EdDSA", "HS256"];

/** BENCH_JWT_ALGORITHM: the signing algorithm of the service's generated key (default RS256, the service's own default). */
export function jwtAlgorithm(env: NodeJS.ProcessEnv): string {
  const value = env.BENCH_JWT_ALGORITHM?.trim() || "RS256";
  if (!ALGORITHMS.includes(value)) throw new Error(`BENCH_JWT_ALGORITHM must be one of ${ALGORITHMS.join(", ")}`);
  return value;
}

/** The service's settings in the bench: bcrypt at its default cost, a generated `algorithm` key, no /token limit. */
export function serviceEnv(url: string, port: number, poolSize: number, algorithm: string): Record<string, string> {
  return {
    DATABASE_URL: url,
    AUTH_DB_DRIVER: "postgres",
    AUTH_DB_MAX_POOL_SIZE: String(poolSize),
    AUTH_SITE_URL: "http://localhost:3000",
    AUTH_API_EXTERNAL_URL: `http://127.0.0.1:${port}`,
    AUTH_API_HOST: "127.0.0.1",
    PORT: String(port),
    AUTH_JWT_SECRET: "bench-jwt-secret-bench-jwt-secret-0123456789",
    AUTH_JWT_ALGORITHM: algorithm,
    AUTH_MAILER_AUTOCONFIRM: "true",
    // No AUTH_RATE_LIMIT_HEADER (and no Pf-Forwarded-For): /token is not rate limited.
    AUTH_RATE_LIMIT_HEADER: "",
    AUTH_SECURITY_PF_FORWARDED_FOR_ENABLED: "false",
    LOG_LEVEL: "warn",
    NODE_ENV: "production",
  };
}

/** `node --import tsx services/auth/src/main.ts` from the repository root, with {@link serviceEnv} and `extraEnv`. */
export async function startAuthService(
  root: string,
  url: string,
  poolSize: number,
  algorithm: string,
  /** Settings on top of {@link serviceEnv}, or a function of the service's port giving them. */
  extraEnv: Record<string, string> | ((port: number) => Record<string, string>) = {},
): Promise<Server> {
  const port = await freePort();
  const extra = typeof extraEnv === "function" ? extraEnv(port) : extraEnv;
  return startServer({
    name: "auth",
    command: process.execPath,
    // BENCH_NODE_ARGS: extra node flags for the service, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
    args: [...(process.env.BENCH_NODE_ARGS?.split(/\s+/).filter(Boolean) ?? []), "--import", "tsx", "services/auth/src/main.ts"],
    cwd: root,
    env: { ...serviceEnv(url, port, poolSize, algorithm), ...extra },
    port,
    ready: async (base) => (await fetch(`${base}/health`, { signal: AbortSignal.timeout(2000) })).status === 200,
  });
}

export interface Session {
  email: string;
  userId: string;
  sessionId: string;
  refreshToken: string;
}

/** POSTs JSON and returns the parsed answer (throws on a non-2xx status). */
export async function postJson(url: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${url} answered ${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as Record<string, unknown>;
}

function sessionOf(email: string, answer: Record<string, unknown>): Session {
  const accessToken = String(answer.access_token ?? "");
  const claims = JSON.parse(Buffer.from(accessToken.split(".")[1] ?? "", "base64url").toString("utf8")) as Record<string, unknown>;
  const refreshToken = answer.refresh_token;
  if (typeof refreshToken !== "string" || typeof claims.session_id !== "string" || typeof claims.sub !== "string")
    throw new Error(`not a session: ${JSON.stringify(answer).slice(0, 300)}`);
  return { email, userId: claims.sub, sessionId: claims.session_id, refreshToken };
}

export const emailOf = (i: number) => `bench-user-${i}@example.com`;

/** Runs `work` for 0..count-1 with at most `parallel` at a time, in order of the results. */
export async function inParallel<T>(count: number, parallel: number, work: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) results[i] = await work(i);
  };
  await Promise.all(Array.from({ length: Math.min(parallel, count) }, worker));
  return results;
}

/** POST /signup (autoconfirmed): a user and its first session. */
export async function signUp(base: string, i: number): Promise<Session> {
  const email = emailOf(i);
  return sessionOf(email, await postJson(`${base}/signup`, { email, password: PASSWORD }));
}

/** POST /token?grant_type=password: another session of an existing user. */
export async function signIn(base: string, i: number): Promise<Session> {
  const email = emailOf(i);
  return sessionOf(email, await postJson(`${base}/token?grant_type=password`, { email, password: PASSWORD }));
}

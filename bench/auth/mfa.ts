/**
 * `npm run bench:auth-mfa`: the second step of an MFA sign-in through the auth service
 * (services/auth) as a real process on a throw-away database `bench_auth`.
 *
 * 1. BENCH_MFA_USERS users, each signed up (autoconfirmed) with a verified TOTP factor.
 * 2. The MFA step at BENCH_CONNECTIONS concurrent clients for BENCH_DURATION seconds: POST
 *    /factors/{id}/challenge then POST /factors/{id}/verify with the authenticator's code, which
 *    answers a new aal2 session (the amr claim, the refresh token replaced, the other aal1
 *    sessions ended, a signed access token). A code is accepted once per factor, so each user
 *    verifies with the codes of the current and the next 30-second step in turn: at most two
 *    steps per user per half-minute, hence the number of users.
 * 3. The baseline in the same run: the refresh_token grant of the same sessions through the same
 *    service (one request, one statement, one signed token): the cheapest authenticated
 *    exchange of a session for a new access token. The ratio is MFA steps / refreshes per second.
 *
 *   BENCH_DURATION      seconds of each measured phase (default 10)
 *   BENCH_CONNECTIONS   concurrent clients, and the service's pool (default 16)
 *   BENCH_MFA_USERS     users with a factor (default 3000)
 *   BENCH_PG_URL        the PostgreSQL server (default postgres://postgres@127.0.0.1:5432/postgres)
 *   BENCH_JWT_ALGORITHM the service's AUTH_JWT_ALGORITHM (default RS256)
 *
 * No target is set for this flow: exit code 0 unless a step failed.
 */
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Secret, TOTP } from "otpauth";
import { closedLoop } from "../common/closed-loop.js";
import { type CpuPerRequest, startCpuMeter } from "../common/cpu.js";
import { positiveNumber } from "../common/env.js";
import { attempt, fixed, printTable, runBench, writeJson } from "../common/report.js";
import { createDatabase, DATABASE, dropDatabase, emailOf, inParallel, jwtAlgorithm, PASSWORD, startAuthService } from "./service.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const RESULTS = join(ROOT, "bench/results/auth-mfa.json");

function settings(env: NodeJS.ProcessEnv) {
  const number = (name: string, fallback: number) => positiveNumber(env, name, fallback);
  return {
    durationSeconds: number("BENCH_DURATION", 10),
    connections: Math.round(number("BENCH_CONNECTIONS", 16)),
    users: Math.round(number("BENCH_MFA_USERS", 3000)),
    serverUrl: env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres",
    algorithm: jwtAlgorithm(env),
  };
}

interface MfaUser {
  accessToken: string;
  refreshToken: string;
  factorId: string;
  totp: TOTP;
  /** The time step of the last code used (a code is accepted once). */
  lastStep: number;
}

async function call(url: string, body: unknown, token?: string): Promise<Record<string, unknown>> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${url} answered ${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as Record<string, unknown>;
}

const PERIOD_MS = 30_000;

/**
 * The earliest step after the user's last one that the server accepts now and still will when
 * the request arrives (the current or the next; the previous may pass out of the window on the
 * way), if any.
 */
function nextStep(user: MfaUser): number | undefined {
  const current = Math.floor(Date.now() / PERIOD_MS);
  const step = Math.max(current, user.lastStep + 1);
  return step > current + 1 ? undefined : step;
}

function nextCode(user: MfaUser): string {
  const step = nextStep(user);
  if (step === undefined) throw new Error("no unused code left for this user in the current window");
  user.lastStep = step;
  return user.totp.generate({ timestamp: step * PERIOD_MS });
}

/** One MFA step: a challenge and its verification; the answer's tokens replace the user's. */
async function mfaStep(base: string, user: MfaUser): Promise<void> {
  const challenge = await call(`${base}/factors/${user.factorId}/challenge`, {}, user.accessToken);
  const session = await call(
    `${base}/factors/${user.factorId}/verify`,
    { challenge_id: challenge.id, code: nextCode(user) },
    user.accessToken,
  );
  if (typeof session.access_token !== "string" || typeof session.refresh_token !== "string") throw new Error("verify answered no session");
  user.accessToken = session.access_token;
  user.refreshToken = session.refresh_token;
}

async function refresh(base: string, user: MfaUser): Promise<void> {
  const session = await call(`${base}/token?grant_type=refresh_token`, { refresh_token: user.refreshToken });
  user.accessToken = session.access_token as string;
  user.refreshToken = session.refresh_token as string;
}

/** A user with a verified TOTP factor and an aal2 session. */
async function prepare(base: string, i: number): Promise<MfaUser> {
  const signedUp = await call(`${base}/signup`, { email: emailOf(i), password: PASSWORD });
  const token = signedUp.access_token as string;
  const factor = await call(`${base}/factors`, { factor_type: "totp", friendly_name: "bench" }, token);
  const secret = (factor.totp as { secret: string }).secret;
  const user: MfaUser = {
    accessToken: token,
    refreshToken: signedUp.refresh_token as string,
    factorId: factor.id as string,
    totp: new TOTP({ secret: Secret.fromBase32(secret) }),
    lastStep: Number.NEGATIVE_INFINITY,
  };
  await mfaStep(base, user);
  return user;
}

async function main(): Promise<number> {
  const config = settings(process.env);
  const errors: Record<string, string> = {};
  const url = await createDatabase(config.serverUrl);
  // bcrypt at its lowest cost: sign-ups only prepare the users; the steps measured hash nothing.
  const service = await startAuthService(ROOT, url, config.connections, config.algorithm, { AUTH_PASSWORD_HASH_COST: "4" });
  try {
    console.log(`mfa step: ${config.users} users, ${config.connections} concurrent, ${config.durationSeconds}s, ${config.algorithm}`);
    const users = await inParallel(config.users, config.connections, (i) => prepare(service.url, i));
    // The workers take the users in turn, passing over those whose codes are used up for now.
    let next = 0;
    const user = () => users[next++ % users.length] as MfaUser;
    const userWithCode = () => {
      for (let tries = 0; tries < users.length; tries++) {
        const candidate = user();
        if (nextStep(candidate) !== undefined) return candidate;
      }
      throw new Error(`every user's codes are used up: raise BENCH_MFA_USERS above ${users.length}`);
    };
    const loop = (once: () => Promise<void>) =>
      closedLoop<CpuPerRequest>({
        workers: config.connections,
        warmupSeconds: 2,
        seconds: config.durationSeconds,
        once,
        meter: () => {
          const meter = startCpuMeter(service.pid);
          return (operations) => meter.perRequest(operations);
        },
      });
    const steps = await attempt("mfa step", errors, () => loop(() => mfaStep(service.url, userWithCode())));
    const baseline = await attempt("refresh", errors, () => loop(() => refresh(service.url, user())));
    const ratio = steps && baseline ? steps.requestsPerSecond / baseline.requestsPerSecond : null;
    printTable(
      ["run", "ops/s", "p50 ms", "p99 ms", "errors", "service cpu ms", "bench cpu ms", "postgres cpu ms"],
      [
        ["MFA step (challenge + verify)", steps],
        ["refresh_token grant (baseline)", baseline],
      ].map(([name, run]) => {
        const r = run as typeof steps;
        return [
          name as string,
          fixed(r?.requestsPerSecond, 1),
          fixed(r?.p50Ms, 1),
          fixed(r?.p99Ms, 1),
          String(r?.errors ?? "-"),
          fixed(r?.cpu?.serverMs, 2),
          fixed(r?.cpu?.loadGeneratorMs, 2),
          fixed(r?.cpu?.postgresMs, 2),
        ];
      }),
    );
    console.log(`\nratio MFA step / refresh: ${fixed(ratio, 2)}x`);
    writeJson(RESULTS, { settings: { ...config, database: DATABASE }, steps, baseline, ratio, errors });
    return steps && baseline && steps.errors === 0 && baseline.errors === 0 && Object.keys(errors).length === 0 ? 0 : 1;
  } finally {
    await service.stop();
    await dropDatabase(config.serverUrl);
  }
}

runBench(main);

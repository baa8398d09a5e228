/**
 * `npm run bench:auth-oauth`: sign-in with an external provider (GitHub's flow) through the auth
 * service (services/auth) as a real process on a throw-away database `bench_auth`, against a
 * GitHub stand-in in the bench process (its authorize, token, /user and /user/emails endpoints,
 * answering at once).
 *
 * 1. BENCH_OAUTH_USERS provider accounts; each signs in once first (creating its account), so the
 *    measured sign-ins are returning users, the common case.
 * 2. The flow at BENCH_CONNECTIONS concurrent browsers for BENCH_DURATION seconds: GET /authorize
 *    (a flow_state row) -> the provider's authorize redirect -> GET /callback (the code exchange,
 *    the two user calls, the identity and user updated, a session and its signed access token) ->
 *    the app's URL with the session in the fragment. Sign-ins per second, latency, and the CPU per
 *    sign-in of the service, this process (browsers and provider) and PostgreSQL.
 * 3. The baseline in the same run: the provider's share alone, the same four provider requests per
 *    sign-in (authorize redirect, token, user, emails) made directly by the same loops. The ratio
 *    (service / baseline sign-ins per second) is what the service's own work leaves of the
 *    provider-bound rate.
 *
 *   BENCH_DURATION      seconds of each measured phase (default 10)
 *   BENCH_CONNECTIONS   concurrent sign-ins, and the service's pool (default 16)
 *   BENCH_OAUTH_USERS   provider accounts signing in in turn (default 200)
 *   BENCH_PG_URL        the PostgreSQL server (default postgres://postgres@127.0.0.1:5432/postgres)
 *   BENCH_JWT_ALGORITHM the service's AUTH_JWT_ALGORITHM (default RS256)
 *
 * No target is set for this flow yet: exit code 0 unless a sign-in failed.
 */
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { closedLoop } from "../common/closed-loop.js";
import { type CpuPerRequest, startCpuMeter } from "../common/cpu.js";
import { positiveNumber } from "../common/env.js";
import { attempt, fixed, printTable, runBench, writeJson } from "../common/report.js";
import { createDatabase, DATABASE, dropDatabase, inParallel, jwtAlgorithm, startAuthService } from "./service.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const RESULTS = join(ROOT, "bench/results/auth-oauth.json");
const APP = "http://localhost:3000/welcome";
const CLIENT_ID = "benchclient";
const SECRET = "bench-secret";

function settings(env: NodeJS.ProcessEnv) {
  const number = (name: string, fallback: number) => positiveNumber(env, name, fallback);
  return {
    durationSeconds: number("BENCH_DURATION", 10),
    connections: Math.round(number("BENCH_CONNECTIONS", 16)),
    users: Math.round(number("BENCH_OAUTH_USERS", 200)),
    serverUrl: env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres",
    algorithm: jwtAlgorithm(env),
  };
}

/** GitHub's endpoints as the service calls them; the user of a code is the `login_hint` of its authorize request. */
async function startGithub() {
  const codes = new Map<string, number>();
  const tokens = new Map<string, number>();
  const json = (response: import("node:http").ServerResponse, status: number, body: unknown) => {
    response.writeHead(status, { "content-type": "application/json" });
    response.end(JSON.stringify(body));
  };
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://github");
    if (url.pathname === "/login/oauth/authorize") {
      const code = randomUUID();
      codes.set(code, Number(url.searchParams.get("login_hint")));
      const back = new URL(url.searchParams.get("redirect_uri") ?? "");
      back.searchParams.set("code", code);
      back.searchParams.set("state", url.searchParams.get("state") ?? "");
      response.writeHead(302, { location: back.toString() });
      response.end();
      return;
    }
    if (url.pathname === "/login/oauth/access_token") {
      let body = "";
      request.on("data", (chunk: Buffer) => {
        body += chunk.toString();
      });
      request.on("end", () => {
        const code = new URLSearchParams(body).get("code") ?? "";
        const user = codes.get(code);
        codes.delete(code);
        if (user === undefined) return json(response, 400, { error: "bad_verification_code" });
        const token = `gho_${randomUUID()}`;
        tokens.set(token, user);
        json(response, 200, { access_token: token, token_type: "bearer", scope: "user:email" });
      });
      return;
    }
    const user = tokens.get((request.headers.authorization ?? "").replace(/^Bearer /, ""));
    if (user === undefined) return json(response, 401, { message: "Bad credentials" });
    if (url.pathname === "/api/v3/user")
      return json(response, 200, { id: 1000 + user, login: `octo${user}`, name: `Octo ${user}`, avatar_url: "" });
    if (url.pathname === "/api/v3/user/emails")
      return json(response, 200, [{ email: `octo${user}@example.com`, verified: true, primary: true }]);
    json(response, 404, { message: "Not Found" });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, close: () => new Promise<void>((done) => server.close(() => done())) };
}

const location = async (url: string) => {
  const response = await fetch(url, { redirect: "manual", signal: AbortSignal.timeout(30_000) });
  await response.arrayBuffer();
  const next = response.headers.get("location");
  if (response.status !== 302 && response.status !== 303) throw new Error(`${url} answered ${response.status}`);
  if (!next) throw new Error(`${url} answered no Location`);
  return next;
};

/** One browser sign-in through the service; the session must be in the fragment. */
async function signIn(base: string, user: number): Promise<void> {
  const toProvider = await location(`${base}/authorize?provider=github&redirect_to=${encodeURIComponent(APP)}&login_hint=${user}`);
  const toCallback = await location(toProvider);
  const toApp = await location(toCallback);
  if (!toApp.startsWith(`${APP}#access_token=`)) throw new Error(`the sign-in ended at ${toApp.slice(0, 300)}`);
}

/** The provider's share of one sign-in, without the service: the same four requests. */
async function providerOnly(github: string, user: number): Promise<void> {
  const callback = await location(
    `${github}/login/oauth/authorize?client_id=${CLIENT_ID}&redirect_uri=http%3A%2F%2F127.0.0.1%2Fcallback&state=s&login_hint=${user}`,
  );
  const code = new URL(callback).searchParams.get("code") ?? "";
  const token = await fetch(`${github}/login/oauth/access_token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
    body: new URLSearchParams({ code, client_id: CLIENT_ID, client_secret: SECRET, grant_type: "authorization_code" }),
  });
  const { access_token: accessToken } = (await token.json()) as { access_token: string };
  const headers = { authorization: `Bearer ${accessToken}` };
  await (await fetch(`${github}/api/v3/user`, { headers })).json();
  await (await fetch(`${github}/api/v3/user/emails`, { headers })).json();
}

async function main(): Promise<number> {
  const config = settings(process.env);
  const errors: Record<string, string> = {};
  const github = await startGithub();
  const url = await createDatabase(config.serverUrl);
  const service = await startAuthService(ROOT, url, config.connections, config.algorithm, (port) => ({
    AUTH_EXTERNAL_GITHUB_ENABLED: "true",
    AUTH_EXTERNAL_GITHUB_CLIENT_ID: CLIENT_ID,
    AUTH_EXTERNAL_GITHUB_SECRET: SECRET,
    AUTH_EXTERNAL_GITHUB_REDIRECT_URI: `http://127.0.0.1:${port}/callback`,
    AUTH_EXTERNAL_GITHUB_URL: github.url,
    AUTH_URI_ALLOW_LIST: "http://localhost:3000/**",
  }));
  try {
    console.log(
      `oauth sign-in: ${config.users} provider accounts, ${config.connections} concurrent, ${config.durationSeconds}s, ${config.algorithm}`,
    );
    await inParallel(config.users, config.connections, (i) => signIn(service.url, i));
    let next = 0;
    const user = () => next++ % config.users;
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
    const flow = await attempt("service", errors, () => loop(() => signIn(service.url, user())));
    const baseline = await attempt("provider only", errors, () => loop(() => providerOnly(github.url, user())));
    const ratio = flow && baseline ? flow.requestsPerSecond / baseline.requestsPerSecond : null;
    printTable(
      ["run", "sign-ins/s", "p50 ms", "p99 ms", "errors", "service cpu ms", "bench cpu ms", "postgres cpu ms"],
      [
        ["service (GitHub flow)", flow, "service"],
        ["provider only (baseline)", baseline, "baseline"],
      ].map(([name, run]) => {
        const r = run as typeof flow;
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
    console.log(`\nratio service / provider-only: ${fixed(ratio, 2)}x`);
    writeJson(RESULTS, { settings: { ...config, database: DATABASE }, flow, baseline, ratio, errors });
    return flow && baseline && flow.errors === 0 && Object.keys(errors).length === 0 ? 0 : 1;
  } finally {
    await service.stop();
    await github.close();
    await dropDatabase(config.serverUrl);
  }
}

runBench(main);

/**
 * `npm run bench:auth-otp`: POST /otp (email magic links) of the auth service (services/auth) as a
 * real process on a throw-away database `bench_auth`, its mail going over SMTP to a sink in the
 * bench process that counts every message per recipient.
 *
 * 1. BENCH_OTP_USERS confirmed users (signed up through /otp, then confirmed in SQL).
 * 2. POST /otp {email} at BENCH_CONNECTIONS connections for BENCH_DURATION seconds, users in turn,
 *    each request mailing a magic link; GET /health probed meanwhile (on a worker thread); the
 *    mail queue depth (answered minus received) sampled; the uniform-timing hold measured with an
 *    unknown address; then every answered request's mail awaited. Then the same load paced at the
 *    target rate, and GET /settings (no database, no mail) at that rate as the floor of what
 *    /health can show on this machine, each with /health probed, the service's event-loop thread's
 *    run and CPU-wait time and the machine's busy share measured (common/scheduling.ts).
 * 3. The baseline, after the service has stopped: the same work without the service (raw-otp.ts):
 *    the same mails through nodemailer's pooled transport to the same sink, the same database work
 *    through `pg`, and both together.
 *
 *   BENCH_DURATION      seconds of each measured phase (default 10)
 *   BENCH_CONNECTIONS   HTTP connections of the /otp load, raw workers, service pool (default 32)
 *   BENCH_OTP_USERS     confirmed users the requests cycle through (default 256)
 *   BENCH_PG_URL        the PostgreSQL server (default postgres://postgres@127.0.0.1:5432/postgres)
 *   BENCH_JWT_ALGORITHM the service's AUTH_JWT_ALGORITHM (default RS256; /otp signs nothing)
 *   BENCH_NODE_ARGS     extra node flags for the service, e.g. --cpu-prof --cpu-prof-dir=/tmp/prof
 *
 * Exit code 0 when every target passes, 1 otherwise.
 */
import { dirname, join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { readAuthConfig } from "@platform/auth";
import pg from "pg";
import type { LoadResult } from "../catalog/load.js";
import { percentile } from "../common/closed-loop.js";
import { type CpuPerRequest, startCpuMeter } from "../common/cpu.js";
import { positiveNumber } from "../common/env.js";
import { MemorySampler, residentMemoryMb, type Server } from "../common/processes.js";
import { attempt, fixed, printTable, printTargets, runBench, writeJson } from "../common/report.js";
import { machineBusyMeter, type ThreadTime, threadMeter } from "../common/scheduling.js";
import { HealthProbe } from "./health-probe.js";
import { awaitDelivery, type Delivery, loadOtp, loadPacedGet, type OtpLoad, warmOtp } from "./otp-load.js";
import { measureRawOtp, type RawMode } from "./raw-otp.js";
import { createDatabase, DATABASE, dropDatabase, inParallel, jwtAlgorithm, postJson, serviceEnv, startAuthService } from "./service.js";
import type { ProbeResult } from "./signin-health.js";
import { SmtpSink } from "./smtp-sink.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const RESULTS = join(ROOT, "bench/results/auth-otp.json");

const TARGETS = { otpPerSecond: 200, healthP99Ms: 10 };
const DELIVERY_TIMEOUT_MS = 30_000;

function settings(env: NodeJS.ProcessEnv) {
  const number = (name: string, fallback: number) => positiveNumber(env, name, fallback);
  return {
    durationSeconds: number("BENCH_DURATION", 10),
    connections: Math.round(number("BENCH_CONNECTIONS", 32)),
    users: Math.round(number("BENCH_OTP_USERS", 256)),
    serverUrl: env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres",
    algorithm: jwtAlgorithm(env),
  };
}

/**
 * The service's mail settings: SMTP to the sink; confirmations on (MAILER_AUTOCONFIRM=false, the
 * setting magic links are used with, so the global email bucket is taken for every mail, as in
 * production); no per-user wait between two mails (SMTP_MAX_FREQUENCY=0: a magic link is due
 * whenever the last one is not in the future); a global email limit the load cannot reach.
 */
function otpEnv(sinkPort: number): Record<string, string> {
  return {
    AUTH_SMTP_HOST: "127.0.0.1",
    AUTH_SMTP_PORT: String(sinkPort),
    AUTH_SMTP_ADMIN_EMAIL: "bench-admin@example.com",
    AUTH_SMTP_MAX_FREQUENCY: "0",
    AUTH_MAILER_AUTOCONFIRM: "false",
    AUTH_RATE_LIMIT_EMAIL_SENT: "1000000",
  };
}

const otpEmail = (i: number) => `bench-otp-${i}@example.com`;

/**
 * The uniform-timing hold during the load: `POST /otp` for an address without an account and
 * `create_user: false` does one lookup and is then held back to the target (the recent p90 of the
 * real work), so its answer time is the target. One request every 100 ms.
 */
interface Hold {
  requests: number;
  p50Ms: number;
  p90Ms: number;
}

async function measureHold(base: string, running: () => boolean): Promise<Hold> {
  const times: number[] = [];
  while (running()) {
    const start = performance.now();
    const response = await fetch(`${base}/otp`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "bench-nobody@example.com", create_user: false }),
      signal: AbortSignal.timeout(30_000),
    });
    await response.arrayBuffer();
    if (response.ok) times.push(performance.now() - start);
    await sleep(100);
  }
  times.sort((a, b) => a - b);
  const at = (p: number) => Math.round(percentile(times, p) * 10) / 10;
  return { requests: times.length, p50Ms: at(50), p90Ms: at(90) };
}

interface ServiceRun {
  load: OtpLoad;
  hold: Hold;
  delivery: Delivery;
  health: ProbeResult;
  idleHealth: ProbeResult;
  cpu: CpuPerRequest;
  /** The same load paced at the target rate, with /health probed meanwhile. */
  paced: Paced & { p99Ms: number };
  /** GET /settings (no database, no mail) at the same rate: what the machine allows /health. */
  floor: Paced;
}

interface Paced {
  requestsPerSecond: number;
  failed: number;
  health: ProbeResult;
  /** The service's event-loop thread meanwhile (null off Linux). */
  mainThread: ThreadTime | null;
  /** Busy share of all the machine's CPUs meanwhile, percent. */
  machineBusy: number | null;
}

/** Runs `load` with /health probed and the service's main thread and the machine measured meanwhile. */
async function paced<T extends LoadResult>(
  prober: HealthProbe,
  pid: number,
  load: () => Promise<T>,
): Promise<{ result: T } & Omit<Paced, "requestsPerSecond" | "failed">> {
  const probe = prober.measure();
  const thread = threadMeter(pid);
  const machine = machineBusyMeter();
  const result = await load();
  const mainThread = thread();
  const machineBusy = machine();
  return { result, health: await probe.stop(), mainThread, machineBusy };
}

interface RawRun {
  mode: RawMode;
  result: LoadResult & { p90Ms: number };
  cpu: CpuPerRequest | undefined;
}

async function main(): Promise<number> {
  const { durationSeconds, connections, users, serverUrl, algorithm } = settings(process.env);
  const startedAt = new Date().toISOString();
  const errors: Record<string, string> = {};
  let service: Server | null = null;
  const sink = await SmtpSink.start();
  const interrupt = () =>
    void (async () => {
      await service?.stop();
      await dropDatabase(serverUrl).catch(() => {});
    })().finally(() => process.exit(130));
  process.once("SIGINT", interrupt);
  process.once("SIGTERM", interrupt);

  const url = await createDatabase(serverUrl);
  console.log(`database: ${url} (created; dropped at the end)`);
  console.log(`smtp sink: 127.0.0.1:${sink.port} (in the bench process, counts each message per recipient)`);
  const env = otpEnv(sink.port);
  const emails = Array.from({ length: users }, (_, i) => otpEmail(i));
  let run: ServiceRun | null = null;
  const raws: RawRun[] = [];
  const memory = { idleMb: null as number | null, maxMb: null as number | null };
  try {
    const running = await startAuthService(ROOT, url, connections, algorithm, env);
    service = running;
    memory.idleMb = residentMemoryMb(running.pid);
    const t = performance.now();
    // Sign-ups through /otp (each mailed a confirmation), then confirmed directly.
    await inParallel(users, connections, (i) => postJson(`${running.url}/otp`, { email: otpEmail(i) }));
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const confirmed = await client
      .query(`UPDATE auth.users SET email_confirmed_at = now() WHERE email LIKE 'bench-otp-%' AND email_confirmed_at IS NULL`)
      .finally(() => client.end());
    const confirmations = sink.received;
    const warmAmount = connections * 20;
    const warmFailed = await warmOtp(running.url, emails, connections, warmAmount);
    if (warmFailed > 0) throw new Error(`${warmFailed} warm-up requests to /otp failed`);
    console.log(
      `prepared: ${confirmed.rowCount} users signed up through /otp (${confirmations} confirmation mails) and confirmed, ${warmAmount} warm-up magic links (${((performance.now() - t) / 1000).toFixed(1)} s)`,
    );

    console.log(`\n/otp: ${connections} connections, ${durationSeconds} s, email magic links to ${users} confirmed users in turn`);
    run = await attempt("otp", errors, async () => {
      // Let the warm-up's connections close before the idle probe.
      await sleep(1000);
      const prober = await HealthProbe.start(running.url);
      const idleProbe = prober.measure();
      await sleep(2000);
      const idleHealth = await idleProbe.stop();
      const before = { total: sink.received, byRecipient: new Map(sink.byRecipient) };
      const sampler = new MemorySampler(running.pid);
      sampler.start();
      const cpu = startCpuMeter(running.pid);
      const probe = prober.measure();
      let loading = true;
      const holding = measureHold(running.url, () => loading);
      const load = await loadOtp(running.url, emails, connections, durationSeconds, sink);
      loading = false;
      const health = await probe.stop();
      const hold = await holding;
      const share = cpu.perRequest(load.answeredTotal);
      sampler.stop();
      sampler.sample();
      memory.maxMb = sampler.max;
      const delivery = await awaitDelivery(sink, before, load.answered, DELIVERY_TIMEOUT_MS);
      // The target is a rate with /health answering meanwhile: the same load paced at that rate.
      const rate = TARGETS.otpPerSecond;
      const atTarget = await paced(prober, running.pid, () => loadOtp(running.url, emails, connections, durationSeconds, sink, rate));
      const { result: otpPaced, ...otpMeasured } = atTarget;
      const pacedOtp = {
        ...otpMeasured,
        requestsPerSecond: otpPaced.requestsPerSecond,
        p99Ms: otpPaced.p99Ms,
        failed: otpPaced.non2xx + otpPaced.errors,
      };
      // The floor: the cheapest request at the same rate, so the same wakeups of the same threads.
      const { result: floorLoad, ...floorMeasured } = await paced(prober, running.pid, () =>
        loadPacedGet(running.url, "/settings", connections, durationSeconds, rate),
      );
      const floor = { ...floorMeasured, requestsPerSecond: floorLoad.requestsPerSecond, failed: floorLoad.non2xx + floorLoad.errors };
      await prober.close();
      console.log(
        `  service: ${load.requestsPerSecond.toFixed(0)} req/s, p50 ${load.p50Ms} ms, p90 ${load.p90Ms} ms, p99 ${load.p99Ms} ms; ${delivery.delivered}/${delivery.answered} delivered; /health p99 ${health.p99Ms} ms`,
      );
      console.log(`  uniform timing: an unknown address (create_user false) answered after p50 ${hold.p50Ms} ms, p90 ${hold.p90Ms} ms`);
      console.log(
        `  paced at ${rate} req/s: ${pacedOtp.requestsPerSecond.toFixed(0)} req/s, p99 ${pacedOtp.p99Ms} ms; /health p99 ${pacedOtp.health.p99Ms} ms`,
      );
      console.log(
        `  floor, GET /settings at ${rate} req/s: ${floor.requestsPerSecond.toFixed(0)} req/s; /health p99 ${floor.health.p99Ms} ms`,
      );
      return { load, delivery, health, idleHealth, cpu: share, hold, paced: pacedOtp, floor };
    });
    await running.stop();
    service = null;

    const config = readAuthConfig({ ...serviceEnv(url, 0, connections, algorithm), ...env });
    for (const mode of ["smtp", "sql", "sql+smtp"] as const) {
      console.log(`\nraw ${mode}: ${connections} workers, ${durationSeconds} s`);
      const raw = await attempt(`raw ${mode}`, errors, async () => {
        const { cpu, ...result } = await measureRawOtp(config, url, emails, mode, connections, durationSeconds, () => {
          const meter = startCpuMeter(null);
          return (operations) => meter.perRequest(operations);
        });
        console.log(
          `  ${result.requestsPerSecond.toFixed(0)} ops/s, p50 ${result.p50Ms} ms, p90 ${result.p90Ms} ms, p99 ${result.p99Ms} ms`,
        );
        return { mode, result, cpu };
      });
      if (raw) raws.push(raw);
    }
  } finally {
    await service?.stop();
    await dropDatabase(serverUrl);
    await sink.close();
    process.off("SIGINT", interrupt);
    process.off("SIGTERM", interrupt);
  }

  const rawOf = (mode: RawMode) => raws.find((r) => r.mode === mode) ?? null;
  const baseline = rawOf("sql+smtp");
  const rate = run?.load.requestsPerSecond ?? null;
  const ratio = (mode: RawMode) => {
    const raw = rawOf(mode);
    return rate !== null && raw ? rate / raw.result.requestsPerSecond : null;
  };
  const failures = run ? run.load.non2xx + run.load.errors : null;
  const targets = [
    {
      name: `/otp email req/s at ${connections} connections`,
      limit: `>= ${TARGETS.otpPerSecond}`,
      value: rate === null ? "not measured" : rate.toFixed(0),
      pass: rate !== null && rate >= TARGETS.otpPerSecond,
    },
    {
      name: "/otp answered 2xx",
      limit: "all",
      value: failures === null ? "not measured" : `${failures} failed`,
      pass: failures === 0,
    },
    {
      name: "answered requests' mail delivered",
      limit: "all",
      value: run ? `${run.delivery.delivered} of ${run.delivery.answered}` : "not measured",
      pass: run !== null && run.delivery.answered > 0 && run.delivery.delivered === run.delivery.answered,
    },
    {
      name: `GET /health p99 during /otp at ${TARGETS.otpPerSecond} req/s`,
      limit: `< ${TARGETS.healthP99Ms} ms`,
      value: run ? `${run.paced.health.p99Ms} ms` : "not measured",
      pass:
        run !== null &&
        run.paced.failed === 0 &&
        run.paced.requestsPerSecond >= TARGETS.otpPerSecond * 0.95 &&
        run.paced.health.failed === 0 &&
        run.paced.health.p99Ms < TARGETS.healthP99Ms,
    },
  ];
  const pass = targets.every((target) => target.pass);

  const cpuCells = (cpu: CpuPerRequest | undefined) =>
    cpu ? [fixed(cpu.serverMs, 2), fixed(cpu.loadGeneratorMs, 2), fixed(cpu.postgresMs, 2)] : ["-", "-", "-"];
  console.log("");
  printTable(
    ["POST /otp (email)", "ops/s", "p50 ms", "p90 ms", "p99 ms", "ops", "failed", "ratio", "CPU ms/op: service", "bench", "postgres"],
    [
      run
        ? [
            `service (HTTP, ${connections} conns)`,
            fixed(run.load.requestsPerSecond),
            fixed(run.load.p50Ms, 2),
            fixed(run.load.p90Ms, 2),
            fixed(run.load.p99Ms, 2),
            String(run.load.answeredTotal),
            String(failures),
            "1.00x",
            ...cpuCells(run.cpu),
          ]
        : [`service (HTTP, ${connections} conns)`, "-", "-", "-", "-", "-", "not measured", "-", "-", "-", "-"],
      ...(["sql+smtp", "smtp", "sql"] as const).map((mode) => {
        const raw = rawOf(mode);
        const name = `raw ${mode} (${connections} workers)`;
        if (!raw) return [name, "-", "-", "-", "-", "-", "not measured", "-", "-", "-", "-"];
        const r = ratio(mode);
        return [
          name,
          fixed(raw.result.requestsPerSecond),
          fixed(raw.result.p50Ms, 2),
          fixed(raw.result.p90Ms, 2),
          fixed(raw.result.p99Ms, 2),
          String(raw.result.requests),
          String(raw.result.errors),
          r === null ? "-" : `${r.toFixed(2)}x`,
          ...cpuCells(raw.cpu),
        ];
      }),
    ],
  );
  console.log("ratio: the service's rate over each raw rate (bench CPU includes the SMTP sink and autocannon or the raw workers)");
  if (run) {
    const { delivery, load } = run;
    console.log(
      `mail: ${delivery.delivered} of ${delivery.answered} answered requests delivered (all there ${delivery.waitedMs} ms after the load), ${delivery.extra} more from requests in flight when the load stopped`,
    );
    console.log(
      `mail queue depth (answered - received): max ${load.queue.max}, at the end ${load.queue.atEnd}; received ahead of answers held back: max ${load.queue.maxAhead}`,
    );
    console.log(
      `uniform-timing hold of /otp answers during the load (an unknown address, create_user false): p50 ${run.hold.p50Ms} ms, p90 ${run.hold.p90Ms} ms (${run.hold.requests} requests)`,
    );
  }
  console.log("");
  const probeRow = (name: string, p: ProbeResult | undefined) =>
    p ? [name, String(p.probes), fixed(p.p50Ms, 2), fixed(p.p99Ms, 2), fixed(p.maxMs, 2)] : [name, "-", "-", "-", "-"];
  printTable(
    ["GET /health", "probes", "p50 ms", "p99 ms", "max ms"],
    [
      probeRow("idle", run?.idleHealth),
      probeRow(`during /otp (${connections} conns, full speed)`, run?.health),
      probeRow(`during /otp at ${TARGETS.otpPerSecond} req/s`, run?.paced.health),
      probeRow(`during GET /settings at ${TARGETS.otpPerSecond} req/s (floor)`, run?.floor.health),
    ],
  );
  const scheduling = (name: string, p: Paced | undefined) => {
    const thread = p?.mainThread;
    return [
      name,
      thread ? fixed(thread.ranMsPerSecond) : "-",
      thread ? fixed(thread.waitedMsPerSecond) : "-",
      p?.machineBusy === null || p?.machineBusy === undefined ? "-" : `${fixed(p.machineBusy)}%`,
    ];
  };
  printTable(
    ["service event-loop thread", "ran ms/s", "waited for a CPU ms/s", "machine busy"],
    [scheduling(`during /otp at ${TARGETS.otpPerSecond} req/s`, run?.paced), scheduling("during the floor", run?.floor)],
  );
  console.log(`service RSS: idle ${fixed(memory.idleMb)} MB, max ${fixed(memory.maxMb)} MB`);
  printTargets(targets, pass);

  writeJson(RESULTS, {
    startedAt,
    settings: { durationSeconds, connections, users, database: DATABASE, jwtAlgorithm: algorithm, serviceMail: env },
    otp: run ? { ...run, load: { ...run.load, answered: undefined } } : null,
    baseline: Object.fromEntries(raws.map((r) => [r.mode, { ...r.result, cpu: r.cpu }])),
    ratios: { "sql+smtp": ratio("sql+smtp"), smtp: ratio("smtp"), sql: ratio("sql") },
    baselineMode: baseline ? "sql+smtp" : null,
    memory,
    errors,
    targets,
    pass,
  });
  console.log(`\nresults written to ${RESULTS}`);
  return pass ? 0 : 1;
}

runBench(main);

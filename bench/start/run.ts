/**
 * `npm run bench:start -w bench`: how long `npm start` takes to answer on every service, on a
 * fresh data directory (first run: embedded database created, demo catalog generated, keys
 * made) and on a warm one (restart), against the floor measured in the same run: a bare process
 * creating (fresh) or opening (warm) the same embedded PGlite database, which every start must
 * at least do. Ratios are start / floor.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { positiveNumber } from "../common/env.js";
import { freePort } from "../common/processes.js";
import { printTable, printTargets, writeJson } from "../common/report.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "../..");
const RUNS = positiveNumber(process.env, "BENCH_RUNS", 3);
const TARGETS = { freshSeconds: 10, warmSeconds: 3 };

/** The environment of a user who configured nothing (the bench's own settings left out). */
const PLATFORM = /^(AUTH_|GOTRUE_|HASURA_GRAPHQL_|GATEWAY_|CATALOG_|ENDPOINT_CATALOG_DB$|DATABASE_URL$|PORT$|LOG_|PLATFORM_)/;
const userEnv = () => Object.fromEntries(Object.entries(process.env).filter(([name]) => !PLATFORM.test(name)));

interface Start {
  /** From spawning `npm start` to its "platform ready" line. */
  wallSeconds: number;
  /** What the platform reports: from its own process start to every service healthy. */
  reportedSeconds: number;
}

async function ports(): Promise<Record<string, string>> {
  return {
    GATEWAY_PORT: String(await freePort()),
    AUTH_API_PORT: String(await freePort()),
    HASURA_GRAPHQL_SERVER_PORT: String(await freePort()),
    CATALOG_PORT: String(await freePort()),
  };
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null || !child.pid) return resolve();
    child.once("exit", () => resolve());
    process.kill(-child.pid, "SIGTERM");
  });
}

async function startOnce(dataDir: string): Promise<Start> {
  const began = performance.now();
  const child = spawn("npm", ["start", "--silent"], {
    cwd: ROOT,
    env: { ...userEnv(), ...(await ports()), PLATFORM_DATA_DIR: dataDir, LOG_FORMAT: "json" },
    stdio: ["ignore", "pipe", "inherit"],
    detached: true,
  });
  try {
    return await new Promise<Start>((resolve, reject) => {
      child.once("exit", (code) => reject(new Error(`npm start exited with ${code}`)));
      createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", (line) => {
        if (!line.includes('"platform ready"')) return;
        const record = JSON.parse(line) as { seconds: number };
        resolve({ wallSeconds: (performance.now() - began) / 1000, reportedSeconds: record.seconds });
      });
    });
  } finally {
    await stop(child);
  }
}

async function floorOnce(dataDir: string): Promise<number> {
  const began = performance.now();
  const child = spawn("node", ["--import", "tsx", join(ROOT, "bench/start/pglite-floor.ts"), dataDir], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  for await (const _ of child.stdout as NodeJS.ReadableStream);
  if ((await exited) !== 0) throw new Error("the PGlite floor process failed");
  return (performance.now() - began) / 1000;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
const fmt = (seconds: number) => `${seconds.toFixed(2)} s`;

const fresh: Start[] = [];
const warm: Start[] = [];
const floorFresh: number[] = [];
const floorWarm: number[] = [];
for (let run = 0; run < RUNS; run++) {
  const dir = mkdtempSync(join(tmpdir(), "bench-start-"));
  try {
    fresh.push(await startOnce(join(dir, "platform")));
    warm.push(await startOnce(join(dir, "platform")));
    floorFresh.push(await floorOnce(join(dir, "floor")));
    floorWarm.push(await floorOnce(join(dir, "floor")));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`run ${run + 1}/${RUNS}: fresh ${fmt(fresh.at(-1)?.wallSeconds ?? 0)}, warm ${fmt(warm.at(-1)?.wallSeconds ?? 0)}`);
}

const rows = [
  { name: "fresh (first run)", start: fresh, floor: floorFresh, target: TARGETS.freshSeconds },
  { name: "warm (restart)", start: warm, floor: floorWarm, target: TARGETS.warmSeconds },
].map((row) => {
  const wall = median(row.start.map((s) => s.wallSeconds));
  const floor = median(row.floor);
  return { ...row, wall, reported: median(row.start.map((s) => s.reportedSeconds)), floorSeconds: floor, ratio: wall / floor };
});

console.log(`\nnpm start to every service healthy, median of ${RUNS} runs:`);
printTable(
  ["start", "npm start (wall)", "reported by start", "PGlite alone (floor)", "start / floor"],
  rows.map((r) => [r.name, fmt(r.wall), fmt(r.reported), fmt(r.floorSeconds), `${r.ratio.toFixed(2)}x`]),
);
const targets = rows.map((r) => ({ name: r.name, limit: `< ${r.target} s`, value: fmt(r.wall), pass: r.wall < r.target }));
printTargets(
  targets,
  targets.every((t) => t.pass),
);
writeJson(join(ROOT, "bench/results/start.json"), { runs: RUNS, rows: rows.map(({ start, floor, ...r }) => ({ ...r, start, floor })) });

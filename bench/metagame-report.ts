/** The profile-page bench's table, its targets and what bounds the ratio; results go to a JSON file. */
import { availableParallelism } from "node:os";
import type { LoadResult } from "./catalog/load.js";
import { printTable, printTargets, writeJson } from "./common/report.js";
import type { CpuSpent } from "./metagame-cpu.js";
import type { Scenario } from "./metagame-query.js";

export const TARGET = 0.7;

export interface SideResult {
  scenario: Scenario;
  name: string;
  load: LoadResult;
  perRound: number[];
  cpu: CpuSpent | null;
  /** Mean answer size in bytes. */
  bytes: number;
  wrong: Array<[string, number]>;
}

interface Settings {
  connections: number;
  rounds: number;
  seconds: number;
  pool: number;
  resultsFile: string;
}

/** ms of CPU per request: the server under test, PostgreSQL, autocannon, everything else, all. */
function perRequest(side: SideResult) {
  const cpu = side.cpu;
  if (!cpu) return null;
  const n = Math.max(1, side.load.requests);
  const rest = Math.max(0, cpu.machine - cpu.server - cpu.postgres - cpu.bench - cpu.softirq);
  return {
    server: cpu.server / n,
    postgres: cpu.postgres / n,
    autocannon: cpu.bench / n,
    softirq: cpu.softirq / n,
    rest: rest / n,
    machine: cpu.machine / n,
  };
}

const ms = (v: number | undefined) => (v === undefined ? "n/a" : v.toFixed(3));

export function printResults(results: SideResult[], settings: Settings): boolean {
  console.log(`\nprofile page, ${settings.connections} connections, CPU in ms per request (/proc):`);
  printTable(
    [
      "page",
      "side",
      "req/s",
      "rounds' req/s",
      "p50 ms",
      "p99 ms",
      "errors",
      "bytes",
      "server",
      "postgres",
      "autocannon",
      "rest",
      "machine",
    ],
    results.map((r) => {
      const cpu = perRequest(r);
      return [
        `by ${r.scenario}`,
        r.name,
        r.load.requestsPerSecond.toFixed(0),
        r.perRound.map((v) => v.toFixed(0)).join(" "),
        String(r.load.p50Ms),
        String(r.load.p99Ms),
        String(r.load.errors + r.load.non2xx),
        r.bytes.toFixed(0),
        ms(cpu?.server),
        ms(cpu?.postgres),
        ms(cpu?.autocannon),
        ms(cpu?.softirq),
        ms(cpu?.rest),
        ms(cpu?.machine),
      ];
    }),
  );
  console.log("softirq: the kernel's network work; rest: other work on the machine meanwhile; machine: all busy CPU per request.");
  const targets = [];
  const scenarios = [...new Set(results.map((r) => r.scenario))];
  for (const scenario of scenarios) {
    const direct = results.find((r) => r.scenario === scenario && r.name !== "engine");
    const engine = results.find((r) => r.scenario === scenario && r.name === "engine");
    if (!direct || !engine) continue;
    const ratio = engine.load.requestsPerSecond / direct.load.requestsPerSecond;
    const clean = direct.load.errors + direct.load.non2xx + engine.load.errors + engine.load.non2xx === 0;
    targets.push({
      name: `by ${scenario}: throughput, engine / direct SQL`,
      limit: `>= ${TARGET}x`,
      value: `${ratio.toFixed(2)}x (${engine.load.requestsPerSecond.toFixed(0)} / ${direct.load.requestsPerSecond.toFixed(0)} req/s)`,
      pass: ratio >= TARGET && clean,
    });
    explain(scenario, engine, direct);
    for (const side of [direct, engine]) for (const [answer, count] of side.wrong) console.log(`  ${side.name}: ${count} x ${answer}`);
  }
  const pass = targets.length === scenarios.length && targets.every((t) => t.pass);
  printTargets(targets, pass);
  writeJson(settings.resultsFile, {
    settings: { ...settings, resultsFile: undefined },
    results: results.map((r) => ({ ...r, cpuPerRequest: perRequest(r) })),
    targets,
    pass,
  });
  console.log(`results written to ${settings.resultsFile}`);
  return pass;
}

/**
 * Server, PostgreSQL and autocannon share the machine's cores. Saturated, a side answers about
 * cores / (the CPU its request costs them), so the ratio tends to the direct side's cost over the
 * engine side's; work by others on the machine ("rest") takes cores from both sides.
 */
function explain(scenario: Scenario, engine: SideResult, direct: SideResult): void {
  const e = perRequest(engine);
  const d = perRequest(direct);
  if (!e || !d) return;
  const own = (c: { server: number; postgres: number; autocannon: number; softirq: number }) =>
    c.server + c.postgres + c.autocannon + c.softirq;
  console.log(
    `by ${scenario}: per page the engine spends ${ms(e.server)} ms of CPU (one core: at most ${(1000 / e.server).toFixed(0)}/s), ` +
      `the direct server ${ms(d.server)} ms; PostgreSQL ${ms(e.postgres)} vs ${ms(d.postgres)} ms. Server + PostgreSQL + ` +
      `autocannon + softirq: ${ms(own(e))} vs ${ms(own(d))} ms, so on ${availableParallelism()} saturated cores the ratio tends to ` +
      `${(own(d) / own(e)).toFixed(2)}; other work took ${ms(e.rest)} / ${ms(d.rest)} ms per page meanwhile.`,
  );
}

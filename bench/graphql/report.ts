/** The GraphQL benchmark's verdict: the load table, the ratios, targets with PASS/FAIL, and JSON. */
import type { LoadResult } from "../catalog/load.js";
import type { CpuPerRequest } from "../common/cpu.js";
import { printTable, printTargets, writeJson } from "../common/report.js";
import type { Dataset } from "./dataset.js";
import type { SchemaBuildResult } from "./schema-build.js";

export const LIMITS = {
  oursOverPostgraphile: 1.5,
  oursOverRaw: 0.7,
  p99Ms: 50,
  rssMb: 200,
  schemaBuildSeconds: 2,
} as const;

/** Foreign CPU load (in cores) above which a measurement is flagged as disturbed. */
const OTHER_CORES_LIMIT = 0.2;

export interface Measured {
  name: string;
  result: LoadResult | null;
  /** CPU per request during the measured load: the server, this process, PostgreSQL. */
  cpu: CpuPerRequest | null;
  /** Why it was not measured. */
  error: string | null;
}

export interface Target {
  name: string;
  limit: string;
  value: string;
  pass: boolean;
}

export interface Report {
  startedAt: string;
  settings: { durationSeconds: number; connections: number; node22: string | null };
  dataset: Dataset;
  /** Whether ours, PostGraphile and the raw SQL gave the same answers for every variable set. */
  equivalence: { postgraphile: boolean | null; raw: boolean | null };
  load: { ours: Measured; postgraphile: Measured; raw: Measured };
  ratios: { oursOverPostgraphile: number | null; oursOverRaw: number | null };
  memory: { idleMb: number | null; afterWarmupMb: number | null; maxMb: number | null };
  schemaBuild: SchemaBuildResult | null;
  targets: Target[];
  pass: boolean;
}

const clean = (r: LoadResult | null): r is LoadResult => r !== null && r.requests > 0 && r.non2xx === 0 && r.errors === 0;
const ratio = (a: LoadResult | null, b: LoadResult | null) =>
  clean(a) && clean(b) && b.requestsPerSecond > 0 ? a.requestsPerSecond / b.requestsPerSecond : null;
// Three decimals: a ratio printed as 0.70x must not FAIL a 0.7 target without showing why.
const x = (value: number | null) => (value === null ? "not measured" : `${value.toFixed(3)}x`);

export function ratios(load: Report["load"]): Report["ratios"] {
  return {
    oursOverPostgraphile: ratio(load.ours.result, load.postgraphile.result),
    oursOverRaw: ratio(load.ours.result, load.raw.result),
  };
}

export function evaluate(report: Omit<Report, "targets" | "pass">): Target[] {
  const { ratios: r, load, memory, schemaBuild: s, equivalence } = report;
  const ours = load.ours.result;
  const apiSeconds = s ? s.apiTrackSeconds + s.apiFirstQuerySeconds : null;
  const sec = (value: number | null | undefined) => (value == null ? "not measured" : `${value.toFixed(3)} s`);
  return [
    {
      name: "same answers (ours = PostGraphile = raw SQL)",
      limit: "all variable sets",
      value: JSON.stringify(equivalence),
      pass: equivalence.postgraphile === true && equivalence.raw === true,
    },
    {
      name: "throughput ours / PostGraphile",
      limit: `>= ${LIMITS.oursOverPostgraphile}x`,
      value: x(r.oursOverPostgraphile),
      pass: (r.oursOverPostgraphile ?? 0) >= LIMITS.oursOverPostgraphile,
    },
    {
      name: "throughput ours / raw pg",
      limit: `>= ${LIMITS.oursOverRaw}x`,
      value: x(r.oursOverRaw),
      pass: (r.oursOverRaw ?? 0) >= LIMITS.oursOverRaw,
    },
    {
      name: "ours p99 latency",
      limit: `< ${LIMITS.p99Ms} ms`,
      value: clean(ours) ? `${ours.p99Ms} ms` : "not measured",
      pass: clean(ours) && ours.p99Ms < LIMITS.p99Ms,
    },
    {
      name: "ours RSS (max)",
      limit: `< ${LIMITS.rssMb} MB`,
      value: memory.maxMb === null ? "not measured" : `${memory.maxMb.toFixed(0)} MB`,
      pass: memory.maxMb !== null && memory.maxMb < LIMITS.rssMb,
    },
    {
      name: "schema build, 1,000 tables (in-process)",
      limit: `< ${LIMITS.schemaBuildSeconds} s`,
      value: sec(s?.buildSeconds),
      pass: s !== null && s.buildSeconds < LIMITS.schemaBuildSeconds,
    },
    {
      name: "schema build, 1,000 tables (track API + 1st query)",
      limit: `< ${LIMITS.schemaBuildSeconds} s`,
      value: sec(apiSeconds),
      pass: apiSeconds !== null && apiSeconds < LIMITS.schemaBuildSeconds,
    },
  ];
}

export function printReport(report: Report): void {
  const ms = (v: number | null | undefined) => (v == null ? "-" : v.toFixed(2));
  const rows = Object.values(report.load).map(({ name, result, cpu, error }) =>
    result
      ? [
          name,
          result.requestsPerSecond.toFixed(0),
          String(result.p50Ms),
          String(result.p99Ms),
          String(result.requests),
          String(result.non2xx + result.errors),
          `${ms(cpu?.serverMs)} / ${ms(cpu?.loadGeneratorMs)} / ${ms(cpu?.postgresMs)}`,
          ms(cpu?.otherCores),
        ]
      : [name, "-", "-", "-", "-", error ? "not measured" : "-", "-", "-"],
  );
  printTable(
    ["server", "req/s", "p50 ms", "p99 ms", "requests", "non-2xx/errors", "CPU ms/req: server / bench / postgres", "other cores"],
    rows,
  );
  const disturbed = Object.values(report.load).filter((m) => (m.cpu?.otherCores ?? 0) > OTHER_CORES_LIMIT);
  if (disturbed.length > 0)
    console.log(
      `\nwarning: other processes kept > ${OTHER_CORES_LIMIT} cores busy while measuring ${disturbed.map((m) => m.name).join(", ")}`,
    );
  console.log(`\nratios: ours/PostGraphile ${x(report.ratios.oursOverPostgraphile)}, ours/raw pg ${x(report.ratios.oursOverRaw)}`);
  const mb = (v: number | null) => (v === null ? "-" : `${v.toFixed(0)} MB`);
  const { memory } = report;
  console.log(`ours RSS: idle ${mb(memory.idleMb)}, after warm-up ${mb(memory.afterWarmupMb)}, max under load ${mb(memory.maxMb)}`);
  const s = report.schemaBuild;
  if (s) {
    console.log(
      `schema for ${s.tables} tables + ${s.relationships} relationships (${s.graphqlTypes} GraphQL types): ` +
        `in-process ${s.buildSeconds.toFixed(2)} s (introspect ${s.introspectSeconds.toFixed(2)}, model ${s.modelSeconds.toFixed(2)}, ` +
        `schema ${s.schemaSeconds.toFixed(2)}); API track ${s.apiTrackSeconds.toFixed(2)} s + first query ${s.apiFirstQuerySeconds.toFixed(2)} s` +
        `; that service's RSS ${mb(s.serviceRssMb)}`,
    );
  }
  for (const { name, error } of Object.values(report.load)) if (error) console.log(`\n${name} not measured: ${error}`);
  printTargets(report.targets, report.pass);
}

export function writeReport(path: string, report: Report): void {
  writeJson(path, report);
}

/** The benchmark's verdict: a table on stdout, targets with PASS/FAIL, and the same as JSON. */
import { printTable, printTargets, writeJson } from "../common/report.js";
import type { Dataset } from "./dataset.js";
import type { LoadResult } from "./load.js";
import type { RawResult } from "./raw-sql.js";

export interface RouteReport {
  route: string;
  /** One example of the URLs requested. */
  example: string;
  targetP50Ms: number;
  service: LoadResult | null;
  raw: RawResult | null;
}

export interface MemoryReport {
  afterWarmupMb: number | null;
  endMb: number | null;
  maxMb: number | null;
  limitMb: number;
}

export interface Target {
  name: string;
  limit: string;
  value: string;
  pass: boolean;
}

export interface Report {
  startedAt: string;
  settings: { durationSeconds: number; connections: number };
  dataset: Dataset;
  routes: RouteReport[];
  memory: MemoryReport;
  targets: Target[];
  serviceError: string | null;
  pass: boolean;
}

export function evaluate(routes: RouteReport[], memory: MemoryReport): Target[] {
  const targets: Target[] = routes.map(({ route, service, targetP50Ms }) => {
    // A route that answers errors fast has not met its latency target.
    const clean = service !== null && service.non2xx === 0 && service.errors === 0 && service.requests > 0;
    return {
      name: `${route} p50`,
      limit: `<= ${targetP50Ms} ms`,
      value: service ? `${service.p50Ms} ms${clean ? "" : ` (${service.non2xx} non-2xx, ${service.errors} errors)`}` : "not measured",
      pass: clean && service.p50Ms <= targetP50Ms,
    };
  });
  targets.push({
    name: "service RSS (max)",
    limit: `<= ${memory.limitMb} MB`,
    value: memory.maxMb === null ? "not measured" : `${memory.maxMb.toFixed(0)} MB`,
    pass: memory.maxMb !== null && memory.maxMb <= memory.limitMb,
  });
  return targets;
}

export function printReport(report: Report): void {
  const header = ["route", "service req/s", "p50 ms", "p99 ms", "raw-SQL ops/s", "service/raw", "non-2xx"];
  const rows = report.routes.map(({ route, service, raw }) => [
    route,
    service ? service.requestsPerSecond.toFixed(0) : "-",
    service ? String(service.p50Ms) : "-",
    service ? String(service.p99Ms) : "-",
    raw ? raw.opsPerSecond.toFixed(raw.opsPerSecond < 10 ? 2 : 0) : "-",
    service && raw ? `${(service.requestsPerSecond / raw.opsPerSecond).toFixed(1)}x` : "-",
    service ? String(service.non2xx + service.errors) : "-",
  ]);
  printTable(header, rows);
  const { memory } = report;
  const mb = (value: number | null) => (value === null ? "-" : `${value.toFixed(0)} MB`);
  console.log(`\nservice RSS: after warm-up ${mb(memory.afterWarmupMb)}, at end ${mb(memory.endMb)}, max ${mb(memory.maxMb)}`);
  if (report.serviceError) console.log(`\nservice not measured: ${report.serviceError}`);
  printTargets(report.targets, report.pass);
}

export function writeReport(path: string, report: Report): void {
  writeJson(path, report);
}

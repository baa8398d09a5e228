/** Output helpers shared by the benchmarks: aligned text tables and the JSON results file. */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

export function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => (row[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join("  ");
  console.log(line(header));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const row of rows) console.log(line(row));
}

export function writeJson(path: string, value: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
}

/** The targets table and the overall verdict both benchmarks end with. */
export function printTargets(targets: Array<{ name: string; limit: string; value: string; pass: boolean }>, pass: boolean): void {
  console.log("\ntargets:");
  printTable(
    ["target", "limit", "measured", "result"],
    targets.map((t) => [t.name, t.limit, t.value, t.pass ? "PASS" : "FAIL"]),
  );
  console.log(`\noverall: ${pass ? "PASS" : "FAIL"}`);
}

/** Runs a bench's `main`: its answer is the exit code (1 when a target failed); a crash prints its stack and exits 1. */
export function runBench(main: () => Promise<number>): void {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      console.error(error instanceof Error ? (error.stack ?? error.message) : error);
      process.exitCode = 1;
    },
  );
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Runs one part of a bench; a failure is recorded in `errors` and printed, rather than ending the run. */
export async function attempt<T>(name: string, errors: Record<string, string>, work: () => Promise<T>): Promise<T | null> {
  try {
    return await work();
  } catch (error) {
    errors[name] = message(error);
    console.log(`  ${name}: not measured (${message(error).split("\n")[0]})`);
    return null;
  }
}

/** A figure for a table cell: `-` when there is none. */
export const fixed = (value: number | null | undefined, digits = 0) =>
  value === null || value === undefined ? "-" : value.toFixed(digits);

/** Console summary (per folder, totals, each failure with a compact diff) and results.json. */
import { writeFileSync } from "node:fs";
import { compact, firstErrorMessage } from "./compare.js";
import { shortName } from "./fixtures.js";
import type { CaseResult } from "./types.js";

export interface FolderSummary {
  folder: string;
  subscription: boolean;
  /** An additional area (e.g. "actions", actions-plan.ts), counted apart from the manifest's folders. */
  area?: string;
  pass: number;
  fail: number;
  skip: number;
  warnings: string[];
}

export function summarise(folder: string, subscription: boolean, results: CaseResult[], warnings: string[], area?: string): FolderSummary {
  const count = (outcome: CaseResult["outcome"]) => results.filter((r) => r.outcome === outcome).length;
  return { folder, subscription, ...(area ? { area } : {}), pass: count("pass"), fail: count("fail"), skip: count("skip"), warnings };
}

function pct(n: number, d: number): string {
  return d === 0 ? "n/a" : `${((100 * n) / d).toFixed(1)}%`;
}

export function totals(folders: FolderSummary[], results: CaseResult[]) {
  const sum = (list: FolderSummary[], key: "pass" | "fail" | "skip") => list.reduce((n, f) => n + f[key], 0);
  const scored = folders.filter((f) => !f.subscription && !f.area);
  const scoredFolders = new Set(scored.map((f) => f.folder));
  const soft = results.filter((r) => r.outcome === "fail" && r.errorBodiesOnly && scoredFolders.has(r.folder)).length;
  const pass = sum(scored, "pass");
  const fail = sum(scored, "fail");
  return {
    all: { pass: sum(folders, "pass"), fail: sum(folders, "fail"), skip: sum(folders, "skip") },
    scored: { pass, fail, skip: sum(scored, "skip"), passRate: pct(pass, pass + fail) },
    /** As if error bodies were only soft-checked (upstream's --avoid-error-message-checks). */
    lenient: { pass: pass + soft, fail: fail - soft, passRate: pct(pass + soft, pass + fail) },
    /** Each additional area on its own. */
    areas: Object.fromEntries(
      [...new Set(folders.flatMap((f) => (f.area ? [f.area] : [])))].map((area) => {
        const list = folders.filter((f) => f.area === area);
        const inArea = new Set(list.map((f) => f.folder));
        const areaSoft = results.filter((r) => r.outcome === "fail" && r.errorBodiesOnly && inArea.has(r.folder)).length;
        const areaPass = sum(list, "pass");
        const areaFail = sum(list, "fail");
        return [
          area,
          {
            pass: areaPass,
            fail: areaFail,
            skip: sum(list, "skip"),
            passRate: pct(areaPass, areaPass + areaFail),
            lenientPassRate: pct(areaPass + areaSoft, areaPass + areaFail),
          },
        ];
      }),
    ),
  };
}

function failureLine(r: CaseResult): string {
  const step = r.steps && r.steps > 1 ? ` [step ${r.step}/${r.steps}]` : "";
  const status = r.expectedStatus !== undefined ? ` status ${r.expectedStatus}→${r.actualStatus ?? "-"}` : "";
  // An inline test is named by its class too: several classes of a folder may have a `test_basic`.
  const name = r.file ? shortName(r.file) : `${r.className}.${r.test}`;
  const head = `  ✗ ${r.folder.replace(/^queries\//, "")}/${name}${step}${status}`;
  const expectedMessage = firstErrorMessage(r.expected);
  const actualMessage = firstErrorMessage(r.actual);
  if (r.diff) {
    const note = r.diff.note ? ` (${r.diff.note})` : "";
    const onMessage = /\.message$|\.error$/.test(r.diff.path);
    const messages =
      actualMessage && !onMessage && expectedMessage !== actualMessage
        ? `\n      errors: expected ${compact(expectedMessage ?? null, 150)}\n              actual   ${compact(actualMessage, 150)}`
        : "";
    const pad = " ".repeat(r.diff.path.length + 4);
    return `${head}\n      at ${r.diff.path}${note}: expected ${compact(r.diff.expected)}\n      ${pad}actual   ${compact(r.diff.actual)}${messages}`;
  }
  return `${head}\n      ${r.reason ?? "failed"}${actualMessage ? `: ${compact(actualMessage, 200)}` : ""}`;
}

export function printReport(folders: FolderSummary[], results: CaseResult[], backend: string, elapsedMs: number): void {
  const width = Math.max(...folders.map((f) => f.folder.length));
  console.log(`\nHasura tests-py conformance — backend ${backend}, ${(elapsedMs / 1000).toFixed(1)} s\n`);
  for (const f of folders) {
    const line = `${f.folder.padEnd(width)}  PASS ${String(f.pass).padStart(3)} / FAIL ${String(f.fail).padStart(3)} / SKIP ${String(f.skip).padStart(3)}`;
    console.log(line);
  }
  const t = totals(folders, results);
  console.log(`\nTOTAL (all folders)           PASS ${t.all.pass} / FAIL ${t.all.fail} / SKIP ${t.all.skip}`);
  if (folders.some((f) => !f.subscription && !f.area)) {
    console.log(
      `Postgres query+mutation+perm  PASS ${t.scored.pass} / FAIL ${t.scored.fail} / SKIP ${t.scored.skip}  →  ${t.scored.passRate} pass`,
    );
    console.log(`  (${t.lenient.passRate} if error bodies were only soft-checked, as upstream's --avoid-error-message-checks does)`);
  }
  for (const [area, a] of Object.entries(t.areas)) {
    const label = `${area[0]?.toUpperCase()}${area.slice(1)} area`.padEnd(29);
    console.log(`${label} PASS ${a.pass} / FAIL ${a.fail} / SKIP ${a.skip}  →  ${a.passRate} pass (${a.lenientPassRate} soft-checked)`);
  }

  const warned = folders.filter((f) => f.warnings.length > 0);
  if (warned.length > 0) {
    console.log("\nWarnings:");
    for (const f of warned) for (const w of f.warnings) console.log(`  ! ${f.folder}: ${compact(w, 240)}`);
  }
  const skips = new Map<string, string[]>();
  for (const r of results.filter((x) => x.outcome === "skip")) {
    const list = skips.get(r.reason ?? "") ?? [];
    list.push(r.file ? shortName(r.file) : r.test);
    skips.set(r.reason ?? "", list);
  }
  if (skips.size > 0) {
    console.log("\nSkipped:");
    for (const [reason, names] of skips) console.log(`  - ${reason} (${names.length}): ${compact(names.join(", "), 200)}`);
  }
  const failures = results.filter((r) => r.outcome === "fail");
  if (failures.length > 0) {
    console.log(`\nFailures (${failures.length}):`);
    for (const r of failures) console.log(failureLine(r));
  }
}

/** Writes results.json (git-ignored and outside Biome's file set). */
export function writeResults(path: string, folders: FolderSummary[], results: CaseResult[], backend: string, fixtureRoot: string): void {
  const body = { generatedAt: new Date().toISOString(), backend, fixtureRoot, totals: totals(folders, results), folders, cases: results };
  writeFileSync(path, `${JSON.stringify(body, null, 2)}\n`);
}

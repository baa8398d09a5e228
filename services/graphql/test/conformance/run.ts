/**
 * `npm run test:conformance -w services/graphql [-- FILTER...]`: runs Hasura's tests-py Postgres
 * fixtures against the in-process service and reports; it never gates (exit 0 unless it crashes).
 * Each case runs over every transport upstream names for it (HTTP, a WebSocket, as a subscription);
 * the subscriptions folders run test_subscriptions.py's bodies (subscriptions-plan.ts).
 * The folders of manifest.json come first, then the Actions area (actions-plan.ts; `-- actions`
 * runs only it), the remote schemas area (remote-schemas-plan.ts; `-- remote_schemas`) and the remote
 * relationships area (remote-relationships-plan.ts; `-- remote_relationships`), the event triggers area
 * (events-plan.ts; `-- event_triggers`) and the scheduled triggers area (scheduled-plan.ts;
 * `-- scheduled_triggers`). FILTERs are substrings matched against folder or case-file paths, or test names. Environment:
 * CONFORMANCE_DATABASE_URL / TEST_DATABASE_URL (PostgreSQL server; a fresh database per class),
 * HASURA_CONFORMANCE_DIR, CONFORMANCE_REQUEST_TIMEOUT_MS (30 s), CONFORMANCE_CLASS_TIMEOUT_MS (300 s),
 * CONFORMANCE_FOLDER_TIMEOUT_MS (600 s).
 */
import { fileURLToPath } from "node:url";
import { loadActionsPlan } from "./actions-plan.js";
import { loadEventsPlan } from "./events-plan.js";
import { FIXTURE_ROOT, type FolderPlan, loadPlan } from "./fixtures.js";
import { CLASS_TIMEOUT_MS, runClass } from "./harness.js";
import { loadRemoteRelationshipsPlan } from "./remote-relationships-plan.js";
import { loadRemoteSchemasPlan } from "./remote-schemas-plan.js";
import { type FolderSummary, printReport, summarise, writeResults } from "./report.js";
import { loadScheduledPlan } from "./scheduled-plan.js";
import { SERVER_URL } from "./service.js";
import { subscriptionFolders } from "./subscriptions-plan.js";
import { type CaseResult, failed, skipped } from "./types.js";

const RESULTS_PATH = fileURLToPath(new URL("./results.json", import.meta.url));
const FOLDER_TIMEOUT_MS = Number(process.env.CONFORMANCE_FOLDER_TIMEOUT_MS ?? 600_000);

function matches(filters: string[], folder: FolderPlan, file: string, test = ""): boolean {
  return filters.length === 0 || filters.some((f) => folder.folder.includes(f) || file.includes(f) || test.includes(f));
}

async function runFolder(folder: FolderPlan, filters: string[]): Promise<{ results: CaseResult[]; warnings: string[] }> {
  const results: CaseResult[] = [];
  const warnings: string[] = [];
  const deadline = Date.now() + FOLDER_TIMEOUT_MS;
  for (const cls of folder.classes) {
    const tests = cls.tests.filter((t) => matches(filters, folder, t.file, t.name));
    if (tests.length === 0) continue;
    const left = deadline - Date.now();
    if (left <= 0) {
      const reason = `folder timed out after ${FOLDER_TIMEOUT_MS} ms`;
      for (const t of tests) results.push(failed({ folder: folder.folder, className: cls.name, test: t.name, file: t.file }, reason));
      continue;
    }
    const run = await runClass({ ...cls, tests }, Math.min(CLASS_TIMEOUT_MS, left));
    results.push(...run.results);
    warnings.push(...run.warnings.map((w) => `${cls.name}: ${w}`));
  }
  for (const file of folder.unreferenced.filter((f) => matches(filters, folder, f)))
    results.push(
      skipped(
        { folder: folder.folder, className: "-", test: "-", file },
        folder.unreferencedReason ?? "not referenced by any upstream test class",
      ),
    );
  return { results, warnings };
}

async function main(): Promise<void> {
  const filters = process.argv.slice(2).filter((a) => a.trim() !== "");
  const backend = SERVER_URL ? `postgres (${new URL(SERVER_URL).host})` : "pglite (memory)";
  const started = Date.now();
  const summaries: FolderSummary[] = [];
  const all: CaseResult[] = [];
  for (const folder of [
    ...subscriptionFolders(loadPlan()),
    ...loadActionsPlan(),
    ...loadRemoteSchemasPlan(),
    ...loadRemoteRelationshipsPlan(),
    ...loadEventsPlan(),
    ...loadScheduledPlan(),
  ]) {
    const folderStarted = Date.now();
    const { results, warnings } = await runFolder(folder, filters);
    if (results.length === 0) continue;
    const summary = summarise(folder.folder, folder.subscription, results, warnings, folder.area);
    summaries.push(summary);
    all.push(...results);
    const secs = ((Date.now() - folderStarted) / 1000).toFixed(1);
    process.stderr.write(`${folder.folder}: ${summary.pass} pass, ${summary.fail} fail, ${summary.skip} skip (${secs} s)\n`);
  }
  printReport(summaries, all, backend, Date.now() - started);
  writeResults(RESULTS_PATH, summaries, all, backend, FIXTURE_ROOT);
  console.log(`\nFull results: ${RESULTS_PATH}`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error("conformance runner crashed:", error);
    process.exit(1);
  },
);

/** The figures: total / passed / failed / skipped, per file, and each failure with the first line of its error. */
import type { FileOutcome, TestOutcome } from "./jest.js";

const count = (tests: TestOutcome[], status: TestOutcome["status"]) => tests.filter((t) => t.status === status).length;

/** The first line that says something: jest's own "● test name" header lines are skipped. */
export function firstLine(message: string): string {
  const line = message
    .split("\n")
    .map((l) => l.trim())
    .find((l) => l !== "" && !l.startsWith("●"));
  return line ?? "(no message)";
}

/** For an expect() failure the first line names only the matcher: the Expected/Received lines say what happened. */
export function detail(message: string): string[] {
  if (!/^(Error: )?expect\(/.test(firstLine(message))) return [];
  return message
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => /^(Expected|Received)( \w+)?:/.test(l))
    .slice(0, 2)
    .map((l) => (l.length > 240 ? `${l.slice(0, 240)}…` : l));
}

export function formatReport(title: string, files: FileOutcome[]): string[] {
  const tests = files.flatMap((f) => f.tests);
  const brokenFiles = files.filter((f) => f.error !== undefined);
  const lines = [
    `== ${title}`,
    `total ${tests.length}  passed ${count(tests, "passed")}  failed ${count(tests, "failed")}  skipped ${count(tests, "skipped")}` +
      (brokenFiles.length > 0 ? `  (files failing outside any test: ${brokenFiles.length})` : ""),
    "",
    "per file (passed/failed/skipped of total):",
  ];
  for (const file of [...files].sort((a, b) => a.file.localeCompare(b.file))) {
    const t = file.tests;
    lines.push(
      `  ${file.file}: ${count(t, "passed")}/${count(t, "failed")}/${count(t, "skipped")} of ${t.length}${file.error ? "  FILE FAILED" : ""}`,
    );
  }
  lines.push("", "failures:");
  for (const file of brokenFiles) lines.push(`  [${file.file}] (file) ${firstLine(file.error as string)}`);
  for (const test of tests.filter((t) => t.status === "failed")) {
    const message = test.errors[0] ?? "";
    lines.push(`  [${test.file}] ${test.name}`, `      ${firstLine(message)}`, ...detail(message).map((l) => `        ${l}`));
  }
  return lines;
}

export function totals(files: FileOutcome[]) {
  const tests = files.flatMap((f) => f.tests);
  return { total: tests.length, passed: count(tests, "passed"), failed: count(tests, "failed"), skipped: count(tests, "skipped") };
}

import { jsonText } from "../../src/engine/json/number.js";

/** Failures of a run, grouped by class, each class shown with its shortest request (the easiest to reproduce). */

export interface Failure {
  failure: string;
  detail?: string;
  seed: number;
  index: number;
  role: string;
  query: string;
  variables: Record<string, unknown>;
  operationName?: string;
  response: string;
}

export function report(where: string, failures: Failure[]): string {
  if (failures.length === 0) return "";
  const groups = new Map<string, Failure[]>();
  for (const f of failures) groups.set(f.failure, [...(groups.get(f.failure) ?? []), f]);
  const sorted = [...groups.entries()].sort((a, b) => b[1].length - a[1].length);
  const lines = [`${failures.length} failing requests in ${groups.size} classes (${where}):`];
  for (const [failure, list] of sorted) {
    const shortest = list.reduce((a, b) => (size(b) < size(a) ? b : a));
    lines.push(
      "",
      `== ${failure} (${list.length} requests)`,
      `   seed=${shortest.seed} index=${shortest.index} role=${shortest.role}${shortest.detail ? ` detail: ${shortest.detail}` : ""}`,
      `   query: ${shortest.query.replace(/\n/g, "\n          ")}`,
      `   variables: ${jsonText(shortest.variables)}${shortest.operationName ? `  operationName: ${shortest.operationName}` : ""}`,
      `   response: ${shortest.response.length > 600 ? `${shortest.response.slice(0, 600)}…` : shortest.response}`,
    );
  }
  return lines.join("\n");
}

const size = (f: Failure) => f.query.length + jsonText(f.variables).length;

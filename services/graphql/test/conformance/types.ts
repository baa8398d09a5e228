/** The result of one upstream test (one case file, possibly a list of steps). */
import type { Diff } from "./compare.js";

export type Outcome = "pass" | "fail" | "skip";

export interface CaseBase {
  folder: string;
  className: string;
  test: string;
  /** Path below the fixture root; "" for inline tests. */
  file: string;
}

export interface CaseResult extends CaseBase {
  outcome: Outcome;
  reason?: string;
  /** 1-based index of the failing step in a list-of-cases file, and how many steps it has. */
  step?: number;
  steps?: number;
  url?: string;
  description?: string;
  expectedStatus?: number;
  actualStatus?: number;
  diff?: Diff;
  /** The step's expected and actual bodies (failures only). */
  expected?: unknown;
  actual?: unknown;
  /** Both bodies are error responses: upstream's --avoid-error-message-checks would only warn. */
  errorBodiesOnly?: boolean;
  ms?: number;
}

export function failed(base: CaseBase, reason: string): CaseResult {
  return { ...base, outcome: "fail", reason };
}

export function skipped(base: CaseBase, reason: string): CaseResult {
  return { ...base, outcome: "skip", reason };
}

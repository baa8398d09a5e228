/**
 * The web client's operations validated against the engine's introspected schemas: the admin
 * schema (the acceptance bar), then, as information, the roles MetaGame's auth webhook gives a
 * signed-in player (`player`, with the user's id) and an anonymous visitor (`public`). What a
 * role may not send is listed, not hidden.
 */

import type { Engine } from "./engine.js";
import type { ClientDocuments, Verdict } from "./operations.js";
import { validateOperations, validateUnusedFragments } from "./operations.js";
import type { Report } from "./report.js";

const ROLES: [string, Record<string, string>][] = [
  ["player", { "x-hasura-role": "player", "x-hasura-user-id": "00000000-0000-4000-8000-000000000001" }],
  ["public", { "x-hasura-role": "public" }],
];

function printVerdicts(report: Report, verdicts: Verdict[]): void {
  for (const v of verdicts)
    report.info(`${v.errors.length === 0 ? "valid  " : "INVALID"} ${v.name}${v.errors.map((e) => `\n             ${e}`).join("")}`);
}

export interface ClientResult {
  operations: number;
  fragments: number;
  adminValid: number;
  /** Role -> operations valid for it. */
  roles: Map<string, number>;
}

export async function validateClient(report: Report, engine: Engine, documents: ClientDocuments): Promise<ClientResult> {
  report.section(`web client: ${documents.operations.length} operations, ${documents.fragments.size} fragments`);
  // A checkout whose client yields no operation (an incomplete extraction, a moved directory) proves nothing.
  report.check(
    documents.operations.length > 0,
    "the web client's operations were found",
    documents.operations.length === 0 ? "none in packages/web" : undefined,
  );
  const admin = await engine.schema();
  const operations = validateOperations(admin, documents.operations);
  const unused = validateUnusedFragments(admin, documents);
  printVerdicts(report, [...operations, ...unused]);
  const invalid = [...operations, ...unused].filter((v) => v.errors.length > 0);
  const adminValid = operations.filter((v) => v.errors.length === 0).length;
  report.check(
    invalid.length === 0,
    `every operation valid against the admin schema (${adminValid}/${operations.length}; ${unused.length} fragments no operation uses checked too)`,
    invalid.map((v) => v.name).join(", ") || undefined,
  );
  const roles = new Map<string, number>();
  for (const [role, headers] of ROLES) {
    const results = validateOperations(await engine.schema(headers), documents.operations);
    const refused = results.filter((v) => v.errors.length > 0);
    roles.set(role, results.length - refused.length);
    report.section(`role ${role} (information): ${results.length - refused.length}/${results.length} operations valid`);
    printVerdicts(report, refused);
  }
  return { operations: documents.operations.length, fragments: documents.fragments.size, adminValid, roles };
}

/**
 * The admin schema we serve for projects/metagame against the checkout's committed
 * `schema.graphql` (the release's admin introspection, printed by Hasura 1.3.3), and the role
 * schemas against those the same engine serves for the checkout's own metadata. Reported: what
 * was compared, every accepted v1 → v2 change with its count, what v2 adds by feature.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { buildSchema, type GraphQLSchema } from "graphql";
import type { Checkout } from "./checkout.js";
import type { Report } from "./report.js";
import { diffSchemas, type SchemaDiff } from "./schema-diff.js";
import { additionFeature } from "./schema-diff-rules.js";

export interface ReleaseComparison {
  diff: SchemaDiff;
  accepted: Map<string, number>;
  additions: Map<string, string[]>;
}

export function compareWithRelease(report: Report, checkout: Checkout, ours: GraphQLSchema): ReleaseComparison {
  const file = join(checkout.root, "schema.graphql");
  report.section(`admin schema against ${file} (the release's, printed by Hasura 1.3.3)`);
  const theirs = buildSchema(readFileSync(file, "utf8"));
  const diff = diffSchemas(theirs, ours);
  const c = diff.compared;
  report.info(
    `compared: ${c.types} types, ${c.fields} fields, ${c.arguments} arguments, ${c.inputFields} input fields, ${c.enumValues} enum values`,
  );
  report.check(diff.missing.length === 0, "everything of theirs is in ours", diff.missing.join("\n") || undefined);
  const unexplained = diff.differences.filter((d) => !d.accepted);
  report.check(
    unexplained.length === 0,
    "every type of theirs typed the same in ours, but for v2's known changes",
    unexplained.map((d) => `${d.where}: theirs ${d.theirs}, ours ${d.ours}`).join("\n") || undefined,
  );
  const accepted = new Map<string, number>();
  for (const d of diff.differences) if (d.accepted) accepted.set(d.accepted, (accepted.get(d.accepted) ?? 0) + 1);
  for (const [change, count] of accepted) report.info(`accepted (${count}): ${change}`);
  report.info(
    `accepted (${diff.unreachable.length}): types of theirs that no root field reaches and ours lacks (v1 printed every table's types and the remote's orphans, v2 only what is in use): ${diff.unreachable.join(", ")}`,
  );
  const additions = new Map<string, string[]>();
  const other: string[] = [];
  for (const added of diff.added) {
    const feature = additionFeature(added);
    if (!feature) other.push(added);
    else additions.set(feature, [...(additions.get(feature) ?? []), added]);
  }
  report.section(`what ours adds (${diff.added.length})`);
  for (const [feature, names] of additions) report.info(`${feature} (${names.length}): ${names.join(", ")}`);
  report.check(other.length === 0, "every addition is one of v2's known additions", other.join("\n") || undefined);
  return { diff, accepted, additions };
}

/** A role's schema for our metadata against the same engine's for the release's metadata: the same types, fields, arguments and values (descriptions aside). */
export function compareRoleSchema(report: Report, role: string, release: GraphQLSchema, ours: GraphQLSchema): boolean {
  const there = diffSchemas(release, ours);
  const back = diffSchemas(ours, release);
  const problems = [
    ...[...there.missing, ...there.unreachable].map((m) => `missing: ${m}`),
    ...there.differences.map((d) => `${d.where}: release ${d.theirs}, ours ${d.ours}`),
    ...[...back.missing, ...back.unreachable].map((m) => `extra: ${m}`),
  ];
  return report.check(
    problems.length === 0,
    `role ${role}: the same schema as the release's metadata gives (${there.compared.types} types, ${there.compared.fields} fields)`,
    problems.join("\n") || undefined,
  );
}

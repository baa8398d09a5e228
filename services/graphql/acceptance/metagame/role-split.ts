/**
 * Which role sends each web-client operation. MetaGame's auth webhook makes a visitor without a
 * token `public` and a signed-in wallet `player`; a page works for visitors when its operation
 * validates as `public`, so an operation is counted `public` when it validates there and `player`
 * otherwise. Every operation must validate for the role that sends it.
 */
import type { GraphQLSchema } from "graphql";
import type { ClientOperation } from "./operations.js";
import { validateOperations } from "./operations.js";
import type { Report } from "./report.js";

export interface RoleSplit {
  public: string[];
  player: string[];
  invalid: string[];
}

export function splitByRole(
  report: Report,
  operations: ClientOperation[],
  schemas: { player: GraphQLSchema; public: GraphQLSchema },
): RoleSplit {
  report.section(`web client operations by role: ${operations.length} operations`);
  const asPublic = validateOperations(schemas.public, operations);
  const asPlayer = validateOperations(schemas.player, operations);
  const split: RoleSplit = { public: [], player: [], invalid: [] };
  operations.forEach((op, i) => {
    const label = `${op.kind} ${op.name}`;
    if (asPublic[i]?.errors.length === 0) split.public.push(label);
    else if (asPlayer[i]?.errors.length === 0) split.player.push(label);
    else split.invalid.push(`${label}: ${(asPlayer[i]?.errors ?? []).join("; ")}`);
  });
  report.info(`public (${split.public.length}): ${split.public.join(", ")}`);
  report.info(`player (${split.player.length}): ${split.player.join(", ")}`);
  report.check(
    split.invalid.length === 0,
    `every operation valid for the role that sends it (${split.public.length} public, ${split.player.length} player)`,
    split.invalid.join("\n") || undefined,
  );
  return split;
}

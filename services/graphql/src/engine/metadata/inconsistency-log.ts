/**
 * The log side of inconsistent metadata: one warn line per inconsistent object (its name, type
 * and reason, as get_inconsistent_metadata reports it), each logged once per process. At
 * start-up that is every object; after a metadata change only those the change brought in.
 */
import type { Logger } from "@platform/core";
import type { CatalogView } from "./catalog-view.js";
import { findInconsistencies, type InconsistentObject } from "./consistency.js";
import type { Metadata } from "./types.js";
import { unservedInconsistencies } from "./unserved.js";

export const INCONSISTENT_OBJECT_LOG = "inconsistent metadata object";

/** Everything get_inconsistent_metadata reports: broken objects (`remotes`: the remote schemas'), and those not served yet. */
export function allInconsistencies(metadata: Metadata, catalog: CatalogView, remotes: InconsistentObject[] = []): InconsistentObject[] {
  return [...findInconsistencies(metadata, catalog), ...remotes, ...unservedInconsistencies(metadata, catalog)];
}

const keyOf = (o: InconsistentObject) => JSON.stringify([o.type, o.name, o.reason]);

/**
 * Warns about each object not already logged (`previous`, the set this returned last time) and
 * returns the set to pass next time: the current objects, so one that is fixed and breaks
 * again is logged again.
 */
export function logNewInconsistencies(
  log: Pick<Logger, "warn"> | undefined,
  objects: readonly InconsistentObject[],
  previous: ReadonlySet<string>,
): Set<string> {
  const current = new Set<string>();
  for (const o of objects) {
    const key = keyOf(o);
    if (!previous.has(key) && !current.has(key)) log?.warn({ name: o.name, type: o.type, reason: o.reason }, INCONSISTENT_OBJECT_LOG);
    current.add(key);
  }
  return current;
}

/**
 * catalog_product_snapshots, written in the plan's time order. This is the hot loop of the
 * generator (millions of rows), so it works from typed arrays and precomputed strings.
 */
import { cents, ingestDelay } from "./listings.js";
import type { CatalogPlan } from "./plan.js";
import { NONE } from "./prices.js";
import { fingerprint } from "./random.js";
import type { Cursor } from "./reference.js";
import type { DemoRow } from "./tables.js";

export interface HistoryCounts {
  snapshots: number;
  intervalSnapshots: number;
  pointSnapshots: number;
  /** Where each store's receiver feed stopped, for the sync cursors. */
  cursors: Cursor[];
}

export function* snapshotRows(
  plan: CatalogPlan,
  sourceIds: string[],
  onProgress: (done: number) => void,
): Generator<DemoRow, HistoryCounts> {
  const stores = plan.options.stores;
  const storeCount = stores.length;
  const canonicalIds = plan.products.map((product) => product.id);
  const cursors: Cursor[] = stores.map((store) => ({ parserName: store.parserName, ingestedAt: 0, receiverProductId: 0 }));
  const counts: HistoryCounts = { snapshots: 0, intervalSnapshots: 0, pointSnapshots: 0, cursors };

  let runKey = -1;
  let runId = "";
  let artifact = "";
  let sortOrder = 0;
  const total = plan.order.length;
  for (let position = 0; position < total; position++) {
    const at = plan.order[position] ?? 0;
    const source = plan.snapSource[at] ?? 0;
    const store = plan.sourceStore[source] ?? 0;
    const firstRun = plan.snapFirstRun[at] ?? 0;
    const lastRun = plan.snapLastRun[at] ?? 0;
    const parserName = stores[store]?.parserName ?? "";
    const key = firstRun * storeCount + store;
    if (key !== runKey) {
      // One receiver artifact per store scrape; event uids grow with insertion order, which keeps
      // the UNIQUE index on source_event_uid an append.
      runKey = key;
      runId = `${parserName}-${String(firstRun + 1).padStart(5, "0")}`;
      artifact = String(key + 1).padStart(7, "0");
      sortOrder = 0;
    }
    sortOrder++;

    const firstSeen = plan.sourceTime(source, firstRun);
    // Snapshots whose content was last seen before the converter tracked intervals are points.
    const point = lastRun < plan.pointBeforeRun;
    const lastSeen = point ? firstSeen : plan.sourceTime(source, lastRun);
    const price = plan.snapPrice[at] ?? NONE;
    const discount = plan.snapDiscount[at] ?? NONE;
    const loyal = plan.snapLoyal[at] ?? NONE;
    const available = plan.snapAvailable[at] ?? NONE;
    const receiverProductId = position + 1;
    const createdAt = firstSeen + ingestDelay(at);
    yield {
      table: "catalog_product_snapshots",
      values: [
        // The id an autoincrement key gives in insertion order, explicit so every database gets the same one.
        position + 1,
        canonicalIds[plan.sourceProduct[source] ?? 0],
        parserName,
        sourceIds[source],
        runId,
        receiverProductId,
        key + 1,
        sortOrder,
        `rcv-${artifact}-${String(sortOrder).padStart(7, "0")}`,
        fingerprint(source, price, discount, loyal, available),
        point ? null : firstSeen,
        point ? null : lastSeen,
        lastSeen,
        createdAt,
        cents(price),
        cents(discount),
        cents(loyal),
        "RUB",
        available === NONE ? null : available,
      ],
    };
    if (point) counts.pointSnapshots++;
    else counts.intervalSnapshots++;
    const cursor = cursors[store];
    if (cursor) {
      cursor.ingestedAt = Math.max(cursor.ingestedAt, lastSeen + ingestDelay(at));
      cursor.receiverProductId = receiverProductId;
    }
    if ((position + 1) % 250_000 === 0) onProgress(position + 1);
  }
  counts.snapshots = total;
  return counts;
}

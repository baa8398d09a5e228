/**
 * The small tables of the demo catalog: settlements, per-store category trees and the
 * converter's sync cursors.
 */
import type { DemoRow } from "./tables.js";
import { isoWithOffset } from "./time.js";
import { KINDS, REGIONS, type Store, slug } from "./words.js";

export interface Settlements {
  ids: number[];
  /** Relative chance a listing is in each settlement: big cities get more. */
  weights: number[];
}

export function* settlementRows(regionCount: number, firstSeen: number, lastSeen: number): Generator<DemoRow, Settlements> {
  const result: Settlements = { ids: [], weights: [] };
  for (const [r, region] of REGIONS.slice(0, regionCount).entries()) {
    for (const [i, settlement] of region.settlements.entries()) {
      const id = result.ids.length + 1;
      // Some settlements lack region_normalized, so readers must fall back to `region` (the original's count routes do).
      const normalized = r % 2 === 0 && i === 1 ? null : region.name.toLowerCase();
      yield {
        table: "catalog_settlements",
        values: [
          id,
          `RUS:${slug(region.name)}:${slug(settlement.name)}`,
          "RUS",
          "россия",
          region.name,
          normalized,
          settlement.name,
          settlement.name.toLowerCase(),
          "город",
          slug(settlement.name),
          settlement.latitude,
          settlement.longitude,
          firstSeen,
          lastSeen,
          lastSeen,
        ],
      };
      result.ids.push(id);
      result.weights.push((i === 0 ? 4 : 1) * (r === 0 ? 2 : 1));
    }
  }
  return result;
}

/**
 * One category tree per store built from the kinds' paths. Returns, per store, the id of the
 * deepest category of each kind (a product's primary category).
 */
export function* categoryRows(stores: readonly Store[], firstSeen: number, lastSeen: number): Generator<DemoRow, Int32Array[]> {
  let nextId = 1;
  const leavesPerStore: Int32Array[] = [];
  for (const [s, store] of stores.entries()) {
    const uidByPath = new Map<string, string>();
    const idByPath = new Map<string, number>();
    const children = new Map<string, number>();
    const leaves = new Int32Array(KINDS.length);
    for (const [k, kind] of KINDS.entries()) {
      let parentPath = "";
      for (const [depth, title] of kind.categoryPath.entries()) {
        const path = parentPath ? `${parentPath}/${title}` : title;
        if (!idByPath.has(path)) {
          const id = nextId++;
          // Stores name their categories differently: slugs, plain numbers, prefixed numbers.
          const uid = s % 3 === 0 ? slug(path) : s % 3 === 1 ? String(4000 + id * 7) : `cat-${10000 + id}`;
          const sortOrder = children.get(parentPath) ?? 0;
          children.set(parentPath, sortOrder + 1);
          yield {
            table: "catalog_categories",
            values: [
              id,
              `${store.parserName}:${uid}`,
              store.parserName,
              uid,
              parentPath ? (uidByPath.get(parentPath) ?? null) : null,
              title,
              title.toLowerCase(),
              slug(title),
              depth + 1,
              sortOrder,
              firstSeen,
              lastSeen,
              lastSeen,
            ],
          };
          idByPath.set(path, id);
          uidByPath.set(path, uid);
        }
        parentPath = path;
      }
      leaves[k] = idByPath.get(parentPath) ?? 0;
    }
    leavesPerStore.push(leaves);
  }
  return leavesPerStore;
}

export interface Cursor {
  parserName: string;
  ingestedAt: number;
  receiverProductId: number;
}

export function* syncStateRows(cursors: Cursor[], updatedAt: number): Generator<DemoRow, void> {
  for (const cursor of cursors) {
    const value = `${isoWithOffset(cursor.ingestedAt)}\t${cursor.receiverProductId}`;
    yield { table: "converter_sync_state", values: [`receiver_cursor:${cursor.parserName}`, value, cursor.ingestedAt] };
  }
  // Not a cursor: readers must pick the receiver_cursor: keys only.
  yield { table: "converter_sync_state", values: ["catalog_schema_version", "7", updatedAt] };
}

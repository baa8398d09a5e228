/**
 * The small tables of the demo catalog: settlements, per-store category trees and the
 * converter's sync cursors.
 */
import type BetterSqlite3 from "better-sqlite3";
import { isoWithOffset, naive } from "./time.js";
import { KINDS, REGIONS, type Store, slug } from "./words.js";

export interface Settlements {
  ids: number[];
  /** Relative chance a listing is in each settlement: big cities get more. */
  weights: number[];
}

export function writeSettlements(db: BetterSqlite3.Database, regionCount: number, firstSeen: number, lastSeen: number): Settlements {
  const insert = db.prepare(
    `INSERT INTO catalog_settlements (id, geo_key, country, country_normalized, region, region_normalized, name,
       name_normalized, settlement_type, alias, latitude, longitude, first_seen_at, last_seen_at, updated_at)
     VALUES (?, ?, 'RUS', 'россия', ?, ?, ?, ?, 'город', ?, ?, ?, ?, ?, ?)`,
  );
  const result: Settlements = { ids: [], weights: [] };
  REGIONS.slice(0, regionCount).forEach((region, r) => {
    region.settlements.forEach((settlement, i) => {
      const id = result.ids.length + 1;
      // Some settlements lack region_normalized, so readers must fall back to `region` (reference 5.6).
      const normalized = r % 2 === 0 && i === 1 ? null : region.name.toLowerCase();
      insert.run(
        id,
        `RUS:${slug(region.name)}:${slug(settlement.name)}`,
        region.name,
        normalized,
        settlement.name,
        settlement.name.toLowerCase(),
        slug(settlement.name),
        settlement.latitude,
        settlement.longitude,
        naive(firstSeen),
        naive(lastSeen),
        naive(lastSeen),
      );
      result.ids.push(id);
      result.weights.push((i === 0 ? 4 : 1) * (r === 0 ? 2 : 1));
    });
  });
  return result;
}

/**
 * One category tree per store built from the kinds' paths. Returns, per store, the id of the
 * deepest category of each kind (a product's primary category).
 */
export function writeCategories(db: BetterSqlite3.Database, stores: readonly Store[], firstSeen: number, lastSeen: number): Int32Array[] {
  const insert = db.prepare(
    `INSERT INTO catalog_categories (id, category_key, parser_name, source_uid, parent_source_uid, title, title_normalized,
       alias, depth, sort_order, first_seen_at, last_seen_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  let nextId = 1;
  return stores.map((store, s) => {
    const uidByPath = new Map<string, string>();
    const idByPath = new Map<string, number>();
    const children = new Map<string, number>();
    const leaves = new Int32Array(KINDS.length);
    KINDS.forEach((kind, k) => {
      let parentPath = "";
      kind.categoryPath.forEach((title, depth) => {
        const path = parentPath ? `${parentPath}/${title}` : title;
        if (!idByPath.has(path)) {
          const id = nextId++;
          // Stores name their categories differently: slugs, plain numbers, prefixed numbers.
          const uid = s % 3 === 0 ? slug(path) : s % 3 === 1 ? String(4000 + id * 7) : `cat-${10000 + id}`;
          const sortOrder = children.get(parentPath) ?? 0;
          children.set(parentPath, sortOrder + 1);
          insert.run(
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
            naive(firstSeen),
            naive(lastSeen),
            naive(lastSeen),
          );
          idByPath.set(path, id);
          uidByPath.set(path, uid);
        }
        parentPath = path;
      });
      leaves[k] = idByPath.get(parentPath) ?? 0;
    });
    return leaves;
  });
}

export interface Cursor {
  parserName: string;
  ingestedAt: number;
  receiverProductId: number;
}

export function writeSyncState(db: BetterSqlite3.Database, cursors: Cursor[], updatedAt: number): void {
  const insert = db.prepare(`INSERT INTO converter_sync_state ("key", value, updated_at) VALUES (?, ?, ?)`);
  for (const cursor of cursors) {
    const value = `${isoWithOffset(cursor.ingestedAt)}\t${cursor.receiverProductId}`;
    insert.run(`receiver_cursor:${cursor.parserName}`, value, naive(cursor.ingestedAt));
  }
  // Not a cursor: readers must pick the receiver_cursor: keys only.
  insert.run("catalog_schema_version", "7", naive(updatedAt));
}

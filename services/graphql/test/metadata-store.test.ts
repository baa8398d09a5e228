/** Metadata in hdb_catalog.hdb_metadata: round trip, resource_version, concurrent writers. */
import { join } from "node:path";
import { type Database, sql } from "@platform/core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { HasuraError } from "../src/engine/errors/index.js";
import { loadMetadataDir } from "../src/engine/metadata/load-dir.js";
import { CONFLICT_CODE, MetadataStore } from "../src/engine/metadata/store.js";
import { emptyMetadata } from "../src/engine/metadata/types.js";
import { openTestDatabase, type TestDatabase, testBackends } from "./support/db.js";

const FIXTURE = join(import.meta.dirname, "fixtures", "metadata", "v3");

describe.each(testBackends)("MetadataStore on %s", (backend) => {
  let handle: TestDatabase;
  let db: Database;
  let store: MetadataStore;
  beforeAll(async () => {
    handle = await openTestDatabase(backend);
    db = handle.db;
  });
  afterAll(async () => {
    await handle.dispose();
  });
  afterEach(async () => {
    await db.exec("DROP SCHEMA IF EXISTS hdb_catalog CASCADE");
  });

  async function freshStore(): Promise<MetadataStore> {
    store = new MetadataStore(db);
    await store.init();
    return store;
  }

  it("creates Hasura's table shape, and init is idempotent", async () => {
    await freshStore();
    await Promise.all([store.init(), store.init()]);
    const { rows } = await db.query<{ column_name: string; data_type: string; is_nullable: string }>(
      sql`SELECT column_name, data_type, is_nullable FROM information_schema.columns
          WHERE table_schema = 'hdb_catalog' AND table_name = 'hdb_metadata' ORDER BY ordinal_position`,
    );
    expect(rows).toEqual([
      { column_name: "id", data_type: "integer", is_nullable: "NO" },
      { column_name: "metadata", data_type: "json", is_nullable: "NO" },
      { column_name: "resource_version", data_type: "integer", is_nullable: "NO" },
    ]);
  });

  it("loads empty metadata at version 0 before anything was saved", async () => {
    await freshStore();
    expect(await store.load()).toEqual({ metadata: emptyMetadata(), resourceVersion: 0 });
    expect(await store.currentVersion()).toBe(0);
  });

  it("round-trips metadata exactly and bumps resource_version on each save", async () => {
    await freshStore();
    const metadata = await loadMetadataDir(FIXTURE);
    expect(await store.save(metadata)).toBe(1);
    const loaded = await store.load();
    expect(loaded.resourceVersion).toBe(1);
    expect(loaded.metadata).toEqual(metadata);
    // json (not jsonb) keeps key order, so an export reads back as it was written.
    expect(JSON.stringify(loaded.metadata)).toBe(JSON.stringify(metadata));
    expect(await store.save(emptyMetadata())).toBe(2);
    expect(await store.save(metadata, 2)).toBe(3);
    expect(await store.currentVersion()).toBe(3);
  });

  it("refuses a save from a stale version with Hasura's 409 conflict", async () => {
    await freshStore();
    await store.save(emptyMetadata());
    await store.save(emptyMetadata());
    const error = await store.save(emptyMetadata(), 1).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HasuraError);
    expect(error).toMatchObject({
      code: CONFLICT_CODE,
      status: 409,
      path: "$",
      message: "metadata resource version referenced (1) did not match current version",
    });
    expect(await store.currentVersion()).toBe(2);
  });

  it("lets exactly one of several writers starting from the same version win", async () => {
    await freshStore();
    await store.save(emptyMetadata());
    const other = new MetadataStore(db);
    const attempts = await Promise.allSettled([
      store.save(emptyMetadata(), 1),
      other.save(emptyMetadata(), 1),
      store.save(emptyMetadata(), 1),
    ]);
    expect(attempts.filter((a) => a.status === "fulfilled")).toEqual([{ status: "fulfilled", value: 2 }]);
    for (const failed of attempts.filter((a) => a.status === "rejected")) {
      expect((failed as PromiseRejectedResult).reason).toMatchObject({ code: "conflict", status: 409 });
    }
    expect(await other.currentVersion()).toBe(2);
  });

  it("serialises unconditional saves so no increment is lost", async () => {
    await freshStore();
    const versions = await Promise.all(Array.from({ length: 8 }, () => store.save(emptyMetadata())));
    expect([...versions].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(await store.currentVersion()).toBe(8);
  });
});

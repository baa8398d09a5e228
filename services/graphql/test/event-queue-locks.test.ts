/**
 * The event queue's statements on one PostgreSQL database from several connections (PGlite serves
 * one connection, so this runs only with TEST_DATABASE_URL): renewing the leases of events while
 * the same events' attempts are recorded never deadlocks (a deadlock aborts one of them, and an
 * aborted recording means the events are delivered again). Renewals skip rows being recorded.
 */
import { openDatabase, sql } from "@platform/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureEventCatalog } from "../src/engine/eventing/catalog.js";
import { renewLeases } from "../src/engine/eventing/queue.js";
import { openTestDatabase, type TestDatabase, testBackends } from "./support/db.js";

const postgres = testBackends.includes("postgres") ? describe : describe.skip;

postgres("event queue locking on PostgreSQL", () => {
  let handle: TestDatabase;
  let other: Awaited<ReturnType<typeof openDatabase>>;

  beforeAll(async () => {
    handle = await openTestDatabase("postgres");
    await handle.db.query(sql`CREATE SCHEMA IF NOT EXISTS hdb_catalog`);
    await ensureEventCatalog(handle.db);
    other = await openDatabase({ url: handle.url as string, maxConnections: 4 });
  });
  afterAll(async () => {
    await other?.close();
    await handle?.dispose();
  });

  it("renews leases while a recording holds some of the same events, without a deadlock", async () => {
    const { rows } = await handle.db.query<{ id: string }>(
      sql`INSERT INTO hdb_catalog.event_log (schema_name, table_name, trigger_name, payload, locked)
          SELECT 'public', 't', 'trg', '{}', now() FROM generate_series(1, 2) RETURNING id`,
    );
    // The renewal visits the rows in the order they were written (a sequential scan of two rows); the
    // recording holds the second, then wants the first.
    const [first, second] = rows.map((r) => r.id) as [string, string];
    let renewed: Promise<unknown> = Promise.resolve();
    await handle.db.transaction(async (tx) => {
      await tx.query(sql`UPDATE hdb_catalog.event_log SET tries = tries + 1 WHERE id = ${second}`);
      renewed = renewLeases(other, [first, second]).then(
        () => "renewed",
        (error: unknown) => error,
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      await tx.query(sql`UPDATE hdb_catalog.event_log SET tries = tries + 1, delivered = true, locked = NULL WHERE id = ${first}`);
    });
    expect(await renewed).toBe("renewed");
    const after = await handle.db.query<{ delivered: boolean; tries: number }>(
      sql`SELECT delivered, tries FROM hdb_catalog.event_log WHERE id = ${first}`,
    );
    expect(after.rows[0]).toEqual({ delivered: true, tries: 1 });
  });
});

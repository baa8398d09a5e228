/**
 * Metadata kept in the database, in Hasura's own table, so every instance behind a load
 * balancer serves the same metadata: `hdb_catalog.hdb_metadata (id integer primary key,
 * metadata json not null, resource_version integer not null default 1)`, one row with id 1.
 *
 * `resource_version` is Hasura's optimistic-concurrency counter: each save bumps it in the
 * same statement that writes the metadata, and a save that names the version it started from
 * fails with 409 `conflict` when another writer got there first. Other instances poll
 * `currentVersion()` (one indexed read) and reload when it moves.
 */

import { type Database, sql } from "@platform/core";
import { type HasuraCode, HasuraError, resourceVersionConflict } from "../errors/index.js";
import { initScheduledCatalog } from "../eventing/scheduled-catalog.js";
import { initCatalog } from "./catalog-init.js";
import { emptyMetadata, type Metadata } from "./types.js";

/** Hasura's code for a stale resource_version (the errors of `resourceVersionConflict`). */
export const CONFLICT_CODE: HasuraCode = "conflict";

export function isResourceVersionConflict(error: unknown): boolean {
  return error instanceof HasuraError && error.code === CONFLICT_CODE;
}

export interface StoredMetadata {
  metadata: Metadata;
  /** 0 when nothing was ever saved. */
  resourceVersion: number;
}

/** What the metadata API needs from a store; `MetadataStore` is the database-backed one. */
export interface MetadataStoreLike {
  load(): Promise<StoredMetadata>;
  /** Saves and returns the new resource version; with `expectedVersion`, only if it is still current. */
  save(metadata: Metadata, expectedVersion?: number): Promise<number>;
}

const ROW_ID = 1;

/** Asynchronous actions' calls, in Hasura's table (server/src-rsr/initialise.sql); executors/async-actions.ts uses it. */
const ACTION_LOG_TABLE = sql`CREATE TABLE IF NOT EXISTS hdb_catalog.hdb_action_log (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  action_name text,
  input_payload jsonb NOT NULL,
  request_headers jsonb NOT NULL,
  session_variables jsonb NOT NULL,
  response_payload jsonb NULL,
  errors jsonb NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  response_received_at timestamptz NULL,
  status text NOT NULL,
  CHECK (status IN ('created', 'processing', 'completed', 'error'))
)`;

export interface MetadataStoreOptions {
  /** Where pgcrypto is created on a fresh database (HASURA_GRAPHQL_METADATA_DATABASE_EXTENSIONS_SCHEMA). */
  extensionsSchema?: string;
}

export class MetadataStore implements MetadataStoreLike {
  constructor(
    private readonly db: Database,
    private readonly options: MetadataStoreOptions = {},
  ) {}

  /**
   * Prepares a fresh database as Hasura does (catalog-init.ts), then creates
   * `hdb_catalog.hdb_metadata` if missing; safe to run from several instances at once.
   */
  async init(): Promise<void> {
    await this.db.transaction(async (tx) => {
      // CREATE ... IF NOT EXISTS still races on the catalog when two instances run it together.
      await tx.query(sql`SELECT pg_advisory_xact_lock(${0x68646d64})`);
      await initCatalog(tx, this.options.extensionsSchema ?? "public");
      await tx.query(
        sql`CREATE TABLE IF NOT EXISTS hdb_catalog.hdb_metadata (id integer PRIMARY KEY, metadata json NOT NULL, resource_version integer NOT NULL DEFAULT 1)`,
      );
      await tx.query(ACTION_LOG_TABLE);
      await initScheduledCatalog(tx);
    });
  }

  async load(): Promise<StoredMetadata> {
    const { rows } = await this.db.query<{ metadata: unknown; resource_version: number }>(
      sql`SELECT metadata, resource_version FROM hdb_catalog.hdb_metadata WHERE id = ${ROW_ID}`,
    );
    const row = rows[0];
    if (!row) return { metadata: emptyMetadata(), resourceVersion: 0 };
    // Both drivers parse json columns; a text value would mean a hand-edited row.
    const metadata = (typeof row.metadata === "string" ? JSON.parse(row.metadata) : row.metadata) as Metadata;
    return { metadata, resourceVersion: Number(row.resource_version) };
  }

  async save(metadata: Metadata, expectedVersion?: number): Promise<number> {
    const text = JSON.stringify(metadata);
    // One statement, so the version check and the write are atomic: ON CONFLICT DO UPDATE
    // locks the row and re-checks the WHERE against the latest committed version.
    const { rows } =
      expectedVersion === undefined
        ? await this.db.query<{ resource_version: number }>(
            sql`INSERT INTO hdb_catalog.hdb_metadata (id, metadata, resource_version) VALUES (${ROW_ID}, ${text}::json, 1)
                ON CONFLICT (id) DO UPDATE SET metadata = EXCLUDED.metadata, resource_version = hdb_metadata.resource_version + 1
                RETURNING resource_version`,
          )
        : await this.db.query<{ resource_version: number }>(
            sql`INSERT INTO hdb_catalog.hdb_metadata (id, metadata, resource_version) VALUES (${ROW_ID}, ${text}::json, 1)
                ON CONFLICT (id) DO UPDATE SET metadata = EXCLUDED.metadata, resource_version = hdb_metadata.resource_version + 1
                WHERE hdb_metadata.resource_version = ${expectedVersion}
                RETURNING resource_version`,
          );
    const row = rows[0];
    if (!row) throw resourceVersionConflict(expectedVersion ?? 0);
    return Number(row.resource_version);
  }

  /** The current resource version (0 when nothing was saved): cheap enough to poll. */
  async currentVersion(): Promise<number> {
    const { rows } = await this.db.query<{ resource_version: number }>(
      sql`SELECT resource_version FROM hdb_catalog.hdb_metadata WHERE id = ${ROW_ID}`,
    );
    return rows[0] ? Number(rows[0].resource_version) : 0;
  }
}

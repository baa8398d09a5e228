/**
 * The engine suites' common setup: sessions, and an Engine over a fresh database (support/db.ts)
 * that holds a test's SCHEMA script, built from its metadata as the runtime builds it (the
 * values of `is_enum` tables loaded), with `run` to execute a query and parse the response.
 */
import type { Database } from "@platform/core";
import { afterAll, beforeAll } from "vitest";
import { loadEnumValues } from "../../src/engine/catalog/enum-table.js";
import { introspect } from "../../src/engine/catalog/introspect.js";
import { Engine, type EngineOptions } from "../../src/engine/execute.js";
import { emptyMetadata, type FunctionMetadata, type Metadata, type TableMetadata } from "../../src/engine/metadata/types.js";
import { buildModel } from "../../src/engine/model/build.js";
import type { Model } from "../../src/engine/model/types.js";
import type { Session } from "../../src/engine/request/session.js";
import { openTestDatabase, type TestBackend, type TestDatabase } from "./db.js";

/** The admin session (admin secret given), without session variables. */
export const ADMIN: Session = { role: "admin", variables: {}, isAdmin: true, useBackendOnly: false };

/** A session of `role` with these session variables. */
export const asRole = (role: string, variables: Record<string, string> = {}): Session => ({
  role,
  variables,
  isAdmin: false,
  useBackendOnly: false,
});

/** The session with its role also given as the `x-hasura-role` variable, as Hasura passes it to SQL functions. */
export const withRoleVariable = (session: Session): Session => ({
  ...session,
  variables: { ...session.variables, "x-hasura-role": session.role },
});

/** Metadata whose default source tracks these tables (and functions). */
export function metadataWith(tables: TableMetadata[], functions?: FunctionMetadata[]): Metadata {
  const metadata = emptyMetadata();
  const source = metadata.sources[0] as Metadata["sources"][number];
  source.tables = tables;
  if (functions) source.functions = functions;
  return metadata;
}

export interface EngineSetup {
  /** SQL run on the fresh database before it is introspected. */
  schema: string;
  /** The metadata the model is built from. */
  metadata: () => Metadata;
  /** Engine options over `{ booleanNullCollapse: false }`. */
  options?: Partial<EngineOptions>;
  /** The session `run` uses when given none: ADMIN unless told. */
  session?: Session;
  /** The database the engine queries through (e.g. one that records statements); setup and introspection use the real one. */
  database?: (db: Database) => Database;
}

/**
 * Registers beforeAll/afterAll hooks that open a database on `backend`, run the schema and build
 * the engine. The returned object's db, engine and model are there from beforeAll on.
 */
export function useTestEngine(backend: TestBackend, setup: EngineSetup) {
  let handle: TestDatabase | undefined;
  let built: { engine: Engine; model: Model } | undefined;
  const options = (extra?: Partial<EngineOptions>): EngineOptions => ({ booleanNullCollapse: false, ...setup.options, ...extra });
  const ready = () => {
    if (!handle || !built) throw new Error("the test engine is built in beforeAll: use it inside hooks and tests");
    return { db: handle.db, ...built };
  };

  beforeAll(async () => {
    handle = await openTestDatabase(backend);
    const db = handle.db;
    await db.exec(setup.schema);
    const metadata = setup.metadata();
    const catalog = await introspect(db);
    for (const source of metadata.sources) {
      for (const t of source.tables) {
        const table = t.is_enum ? catalog.tables.get(`${t.table.schema}.${t.table.name}`) : undefined;
        if (table) catalog.enumValues.set(`${table.schema}.${table.name}`, await loadEnumValues(db, table));
      }
    }
    const model = buildModel(metadata, catalog);
    built = { model, engine: new Engine(setup.database ? setup.database(db) : db, model, options()) };
  });
  afterAll(async () => handle?.dispose());

  return {
    get db(): Database {
      return ready().db;
    },
    get engine(): Engine {
      return ready().engine;
    },
    get model(): Model {
      return ready().model;
    },
    /** Another engine over the same database and model, with other options. */
    engineWith: (extra: Partial<EngineOptions>): Engine => new Engine(ready().db, ready().model, options(extra)),
    /** Executes a query (in the setup's session unless told) and parses the response. */
    run: async (query: string, session: Session = setup.session ?? ADMIN, variables?: Record<string, unknown>) =>
      JSON.parse(await ready().engine.execute({ query, variables }, session)),
  };
}

/**
 * The engine modules of services/graphql, loaded in this process to compile SQL and to time
 * the schema build. They are imported at run time by path, with the few signatures used here
 * declared below, because the bench TypeScript project does not reference services/graphql
 * (a static import would pull that project's sources into this one).
 */
import type { Database, Queryable } from "@platform/core";

export interface QualifiedTable {
  schema: string;
  name: string;
}

/** Hasura metadata as export_metadata answers it; only the tracked tables are read here. */
export interface Metadata {
  version: 3;
  sources: { name: string; tables: { table: QualifiedTable }[] }[];
}

export interface Session {
  role: string;
  variables: Record<string, string>;
  isAdmin: boolean;
  useBackendOnly: boolean;
}

export const ADMIN_SESSION: Session = { role: "admin", variables: {}, isAdmin: true, useBackendOnly: false };

type Catalog = { readonly __catalog: unique symbol };
type Model = { readonly __model: unique symbol };

export interface EngineModules {
  introspect(db: Queryable, tables?: readonly QualifiedTable[]): Promise<Catalog>;
  buildModel(metadata: Metadata, catalog: Catalog): Model;
  Engine: new (
    db: Database,
    model: Model,
    options: { booleanNullCollapse: boolean },
  ) => {
    execute(request: { query: string; variables?: unknown }, session: Session): Promise<string>;
  };
  RoleSchemaBuilder: new (model: Model, role: string) => { build(): { getTypeMap(): Record<string, unknown> } };
}

const ENGINE_DIR = new URL("../../services/graphql/src/engine/", import.meta.url);

async function load<T>(path: string): Promise<T> {
  return (await import(new URL(path, ENGINE_DIR).href)) as T;
}

export async function loadEngine(): Promise<EngineModules> {
  const [catalog, model, execute, schema] = await Promise.all([
    load<Pick<EngineModules, "introspect">>("catalog/introspect.ts"),
    load<Pick<EngineModules, "buildModel">>("model/build.ts"),
    load<Pick<EngineModules, "Engine">>("execute.ts"),
    load<Pick<EngineModules, "RoleSchemaBuilder">>("schema/build.ts"),
  ]);
  return {
    introspect: catalog.introspect,
    buildModel: model.buildModel,
    Engine: execute.Engine,
    RoleSchemaBuilder: schema.RoleSchemaBuilder,
  };
}

/** The tables a metadata document tracks in its default source. */
export function trackedTables(metadata: Metadata): QualifiedTable[] {
  const source = metadata.sources.find((s) => s.name === "default") ?? metadata.sources[0];
  return (source?.tables ?? []).map((t) => t.table);
}

/**
 * The engine of services/graphql, loaded in this process to compile SQL (for the raw-pg
 * baseline) and to time the schema build without HTTP in between.
 */
import { buildModel, Engine, introspect, type Metadata, RoleSchemaBuilder, type Session } from "@platform/graphql";

export type { Metadata, Session };

export const ADMIN_SESSION: Session = { role: "admin", variables: {}, isAdmin: true, useBackendOnly: false };

const modules = { introspect, buildModel, Engine, RoleSchemaBuilder };
export type EngineModules = typeof modules;

export async function loadEngine(): Promise<EngineModules> {
  return modules;
}

/** The tables a metadata document tracks in its default source. */
export function trackedTables(metadata: Metadata): Array<{ schema: string; name: string }> {
  const source = metadata.sources.find((s) => s.name === "default") ?? metadata.sources[0];
  return (source?.tables ?? []).map((t) => t.table);
}

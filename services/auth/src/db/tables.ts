/** The service's tables in schema `auth`, each prefixed with DB_NAMESPACE (`<namespace>_users`). */
import { ident } from "@platform/core";

export type Table = ReturnType<typeof ident>;

export interface AuthTables {
  /** `<namespace>_` or empty. */
  prefix: string;
  users: Table;
  identities: Table;
  sessions: Table;
  refreshTokens: Table;
  amrClaims: Table;
  oneTimeTokens: Table;
  auditLog: Table;
  signingKeys: Table;
  migrations: Table;
}

export const SCHEMA = "auth";

export function authTables(namespace: string): AuthTables {
  const prefix = namespace ? `${namespace}_` : "";
  const table = (name: string) => ident(SCHEMA, `${prefix}${name}`);
  return {
    prefix,
    users: table("users"),
    identities: table("identities"),
    sessions: table("sessions"),
    refreshTokens: table("refresh_tokens"),
    amrClaims: table("mfa_amr_claims"),
    oneTimeTokens: table("one_time_tokens"),
    auditLog: table("audit_log_entries"),
    signingKeys: table("signing_keys"),
    migrations: table("schema_migrations"),
  };
}

/**
 * The service's tables. As in GoTrue, DB_NAMESPACE names the schema that holds them (`auth`
 * by default, so `auth.users`); the table names themselves never change.
 */
import { ident } from "@platform/core";

export type Table = ReturnType<typeof ident>;

export interface AuthTables {
  /** The schema (DB_NAMESPACE). */
  schema: string;
  users: Table;
  identities: Table;
  sessions: Table;
  refreshTokens: Table;
  amrClaims: Table;
  oneTimeTokens: Table;
  flowStates: Table;
  oauthClientStates: Table;
  factors: Table;
  challenges: Table;
  auditLog: Table;
  signingKeys: Table;
  migrations: Table;
}

/** GoTrue's default DB_NAMESPACE. */
export const DEFAULT_SCHEMA = "auth";

export function authTables(schema: string = DEFAULT_SCHEMA): AuthTables {
  const table = (name: string) => ident(schema, name);
  return {
    schema,
    users: table("users"),
    identities: table("identities"),
    sessions: table("sessions"),
    refreshTokens: table("refresh_tokens"),
    amrClaims: table("mfa_amr_claims"),
    factors: table("mfa_factors"),
    challenges: table("mfa_challenges"),
    oneTimeTokens: table("one_time_tokens"),
    flowStates: table("flow_state"),
    oauthClientStates: table("oauth_client_states"),
    auditLog: table("audit_log_entries"),
    signingKeys: table("signing_keys"),
    migrations: table("schema_migrations"),
  };
}

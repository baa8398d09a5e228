/**
 * Rows as the drivers return them: timestamps as PostgreSQL's text (see @platform/core's
 * type parsing), jsonb as parsed values.
 */
export type Timestamp = string;
export type Json = Record<string, unknown>;

export interface UserRow {
  id: string;
  aud: string | null;
  role: string | null;
  email: string | null;
  encrypted_password: string | null;
  email_confirmed_at: Timestamp | null;
  invited_at: Timestamp | null;
  confirmation_token: string;
  confirmation_sent_at: Timestamp | null;
  recovery_token: string;
  recovery_sent_at: Timestamp | null;
  email_change_token_new: string;
  email_change: string;
  email_change_sent_at: Timestamp | null;
  email_change_token_current: string;
  email_change_confirm_status: number;
  last_sign_in_at: Timestamp | null;
  raw_app_meta_data: Json;
  raw_user_meta_data: Json;
  created_at: Timestamp;
  updated_at: Timestamp;
  phone: string | null;
  phone_confirmed_at: Timestamp | null;
  phone_change: string;
  phone_change_token: string;
  phone_change_sent_at: Timestamp | null;
  confirmed_at: Timestamp | null;
  banned_until: Timestamp | null;
  reauthentication_token: string;
  reauthentication_sent_at: Timestamp | null;
  is_sso_user: boolean;
  deleted_at: Timestamp | null;
  is_anonymous: boolean;
}

export interface IdentityRow {
  id: string;
  provider_id: string;
  user_id: string;
  identity_data: Json;
  provider: string;
  last_sign_in_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  email: string | null;
}

export interface SessionRow {
  id: string;
  user_id: string;
  created_at: Timestamp;
  updated_at: Timestamp;
  factor_id: string | null;
  aal: "aal1" | "aal2" | "aal3";
  not_after: Timestamp | null;
  refreshed_at: Timestamp | null;
  user_agent: string | null;
  ip: string | null;
  tag: string | null;
}

export interface RefreshTokenRow {
  id: number | string;
  token: string;
  user_id: string;
  revoked: boolean;
  created_at: Timestamp;
  updated_at: Timestamp;
  parent: string | null;
  session_id: string | null;
}

export interface AmrClaimRow {
  authentication_method: string;
  /** Seconds since the epoch. */
  timestamp: number;
}

export type FactorType = "totp" | "phone" | "webauthn";

export interface FactorRow {
  id: string;
  user_id: string;
  friendly_name: string | null;
  factor_type: FactorType;
  status: "unverified" | "verified";
  created_at: Timestamp;
  updated_at: Timestamp;
  secret: string | null;
  phone: string | null;
  last_challenged_at: Timestamp | null;
  /** The time step of the last TOTP code accepted (see migration 0005). */
  last_totp_step: number | string | null;
}

export interface ChallengeRow {
  id: string;
  factor_id: string;
  created_at: Timestamp;
  verified_at: Timestamp | null;
  ip_address: string;
  /** For phone factors: the hash of the code sent (one-time-tokens.ts tokenHash, keyed by the challenge id). */
  otp_code: string | null;
}

export type OneTimeTokenType =
  | "confirmation_token"
  | "reauthentication_token"
  | "recovery_token"
  | "email_change_token_new"
  | "email_change_token_current"
  | "phone_change_token";

export interface SigningKeyRow {
  id: string;
  algorithm: string;
  private_jwk: Json;
  public_jwk: Json;
}

-- The tables of Supabase Auth (GoTrue) in schema auth. {{prefix}} is DB_NAMESPACE followed by
-- an underscore (or nothing), so several deployments can share one schema.

CREATE TABLE auth.{{prefix}}users (
  instance_id uuid,
  id uuid PRIMARY KEY,
  aud varchar(255),
  role varchar(255),
  email varchar(255),
  encrypted_password varchar(255),
  email_confirmed_at timestamptz,
  invited_at timestamptz,
  confirmation_token varchar(255) NOT NULL DEFAULT '',
  confirmation_sent_at timestamptz,
  recovery_token varchar(255) NOT NULL DEFAULT '',
  recovery_sent_at timestamptz,
  email_change_token_new varchar(255) NOT NULL DEFAULT '',
  email_change varchar(255) NOT NULL DEFAULT '',
  email_change_sent_at timestamptz,
  email_change_token_current varchar(255) NOT NULL DEFAULT '',
  email_change_confirm_status smallint NOT NULL DEFAULT 0 CHECK (email_change_confirm_status BETWEEN 0 AND 2),
  last_sign_in_at timestamptz,
  raw_app_meta_data jsonb NOT NULL DEFAULT '{}',
  raw_user_meta_data jsonb NOT NULL DEFAULT '{}',
  is_super_admin boolean,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  phone text UNIQUE,
  phone_confirmed_at timestamptz,
  phone_change text NOT NULL DEFAULT '',
  phone_change_token varchar(255) NOT NULL DEFAULT '',
  phone_change_sent_at timestamptz,
  confirmed_at timestamptz GENERATED ALWAYS AS (LEAST(email_confirmed_at, phone_confirmed_at)) STORED,
  banned_until timestamptz,
  reauthentication_token varchar(255) NOT NULL DEFAULT '',
  reauthentication_sent_at timestamptz,
  is_sso_user boolean NOT NULL DEFAULT false,
  deleted_at timestamptz,
  is_anonymous boolean NOT NULL DEFAULT false
);
CREATE UNIQUE INDEX {{prefix}}users_email_partial_key ON auth.{{prefix}}users (email) WHERE is_sso_user = false;
CREATE INDEX {{prefix}}users_is_anonymous_idx ON auth.{{prefix}}users (is_anonymous);
CREATE INDEX {{prefix}}users_created_at_idx ON auth.{{prefix}}users (created_at);

CREATE TABLE auth.{{prefix}}identities (
  provider_id text NOT NULL,
  user_id uuid NOT NULL REFERENCES auth.{{prefix}}users (id) ON DELETE CASCADE,
  identity_data jsonb NOT NULL,
  provider text NOT NULL,
  last_sign_in_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  email text GENERATED ALWAYS AS (lower(identity_data ->> 'email')) STORED,
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  UNIQUE (provider_id, provider)
);
CREATE INDEX {{prefix}}identities_user_id_idx ON auth.{{prefix}}identities (user_id);
CREATE INDEX {{prefix}}identities_email_idx ON auth.{{prefix}}identities (email text_pattern_ops);

CREATE TYPE auth.{{prefix}}aal_level AS ENUM ('aal1', 'aal2', 'aal3');

CREATE TABLE auth.{{prefix}}sessions (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES auth.{{prefix}}users (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  factor_id uuid,
  aal auth.{{prefix}}aal_level NOT NULL DEFAULT 'aal1',
  not_after timestamptz,
  refreshed_at timestamptz,
  user_agent text,
  ip inet,
  tag text,
  oauth_client_id uuid,
  scopes text,
  refresh_token_hmac_key text,
  refresh_token_counter bigint
);
CREATE INDEX {{prefix}}sessions_user_id_created_at_idx ON auth.{{prefix}}sessions (user_id, created_at);
CREATE INDEX {{prefix}}sessions_not_after_idx ON auth.{{prefix}}sessions (not_after DESC);

CREATE TABLE auth.{{prefix}}refresh_tokens (
  instance_id uuid,
  id bigserial PRIMARY KEY,
  token varchar(255) NOT NULL UNIQUE,
  user_id varchar(255) NOT NULL,
  revoked boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  parent varchar(255),
  session_id uuid REFERENCES auth.{{prefix}}sessions (id) ON DELETE CASCADE
);
CREATE INDEX {{prefix}}refresh_tokens_parent_idx ON auth.{{prefix}}refresh_tokens (parent);
CREATE INDEX {{prefix}}refresh_tokens_session_id_revoked_idx ON auth.{{prefix}}refresh_tokens (session_id, revoked);
CREATE INDEX {{prefix}}refresh_tokens_updated_at_idx ON auth.{{prefix}}refresh_tokens (updated_at DESC);

CREATE TYPE auth.{{prefix}}factor_type AS ENUM ('totp', 'webauthn', 'phone');
CREATE TYPE auth.{{prefix}}factor_status AS ENUM ('unverified', 'verified');

CREATE TABLE auth.{{prefix}}mfa_factors (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES auth.{{prefix}}users (id) ON DELETE CASCADE,
  friendly_name text,
  factor_type auth.{{prefix}}factor_type NOT NULL,
  status auth.{{prefix}}factor_status NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  secret text,
  phone text,
  last_challenged_at timestamptz,
  web_authn_credential jsonb,
  web_authn_aaguid uuid,
  last_webauthn_challenge_data jsonb
);
CREATE UNIQUE INDEX {{prefix}}mfa_factors_user_friendly_name_unique ON auth.{{prefix}}mfa_factors (friendly_name, user_id) WHERE trim(friendly_name) <> '';
CREATE INDEX {{prefix}}mfa_factors_user_id_idx ON auth.{{prefix}}mfa_factors (user_id);

CREATE TABLE auth.{{prefix}}mfa_challenges (
  id uuid PRIMARY KEY,
  factor_id uuid NOT NULL REFERENCES auth.{{prefix}}mfa_factors (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  verified_at timestamptz,
  ip_address inet NOT NULL,
  otp_code text,
  web_authn_session_data jsonb
);

CREATE TABLE auth.{{prefix}}mfa_amr_claims (
  id uuid PRIMARY KEY,
  session_id uuid NOT NULL REFERENCES auth.{{prefix}}sessions (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  authentication_method text NOT NULL,
  UNIQUE (session_id, authentication_method)
);

CREATE TYPE auth.{{prefix}}code_challenge_method AS ENUM ('s256', 'plain');

CREATE TABLE auth.{{prefix}}flow_state (
  id uuid PRIMARY KEY,
  user_id uuid,
  auth_code text,
  code_challenge_method auth.{{prefix}}code_challenge_method,
  code_challenge text,
  provider_type text NOT NULL,
  provider_access_token text,
  provider_refresh_token text,
  authentication_method text NOT NULL,
  auth_code_issued_at timestamptz,
  invite_token text,
  referrer text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX {{prefix}}flow_state_auth_code_idx ON auth.{{prefix}}flow_state (auth_code);
CREATE INDEX {{prefix}}flow_state_created_at_idx ON auth.{{prefix}}flow_state (created_at DESC);

CREATE TYPE auth.{{prefix}}one_time_token_type AS ENUM (
  'confirmation_token',
  'reauthentication_token',
  'recovery_token',
  'email_change_token_new',
  'email_change_token_current',
  'phone_change_token'
);

CREATE TABLE auth.{{prefix}}one_time_tokens (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES auth.{{prefix}}users (id) ON DELETE CASCADE,
  token_type auth.{{prefix}}one_time_token_type NOT NULL,
  token_hash text NOT NULL CHECK (char_length(token_hash) > 0),
  relates_to text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (user_id, token_type)
);
CREATE INDEX {{prefix}}one_time_tokens_token_hash_idx ON auth.{{prefix}}one_time_tokens USING hash (token_hash);
CREATE INDEX {{prefix}}one_time_tokens_relates_to_idx ON auth.{{prefix}}one_time_tokens USING hash (relates_to);

CREATE TABLE auth.{{prefix}}audit_log_entries (
  instance_id uuid,
  id uuid PRIMARY KEY,
  payload json,
  created_at timestamptz NOT NULL DEFAULT now(),
  ip_address varchar(64) NOT NULL DEFAULT ''
);
CREATE INDEX {{prefix}}audit_logs_created_at_idx ON auth.{{prefix}}audit_log_entries (created_at);

-- Sign-in with external OAuth providers (supabase/auth migrations 20260115000000 and
-- 20251201000000): every OAuth flow keeps its state in flow_state, the row's id being the
-- `state` sent to the provider; a flow may link an identity to a signed-in user; a provider
-- that requires PKCE of its clients (x) gets its own verifier in oauth_client_states.
ALTER TABLE auth.flow_state
  ADD COLUMN oauth_client_state_id uuid,
  ADD COLUMN linking_target_id uuid,
  ADD COLUMN email_optional boolean NOT NULL DEFAULT false;
CREATE INDEX flow_state_user_id_auth_method_idx ON auth.flow_state (user_id, authentication_method);

CREATE TABLE auth.oauth_client_states (
  id uuid PRIMARY KEY,
  provider_type text NOT NULL,
  code_verifier text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX oauth_client_states_created_at_idx ON auth.oauth_client_states (created_at);

-- Multi-factor authentication (supabase/auth internal/api/mfa.go). The tables are GoTrue's and
-- exist since 0001; this adds what its later migrations and our replay rule need:
-- - one phone factor per number and user (supabase/auth migration 20240729123726,
--   unique_phone_factor_per_user);
-- - the time step of the last TOTP code accepted for a factor, so that a code is accepted once
--   (RFC 6238 section 5.2: a verifier must not accept the second attempt of an OTP after a
--   successful validation), where GoTrue accepts it again on a new challenge within its window.
CREATE UNIQUE INDEX unique_phone_factor_per_user ON auth.mfa_factors (user_id, phone);
ALTER TABLE auth.mfa_factors ADD COLUMN last_totp_step bigint;
CREATE INDEX mfa_challenge_created_at_idx ON auth.mfa_challenges (created_at DESC);
CREATE INDEX sessions_factor_id_idx ON auth.sessions (factor_id) WHERE factor_id IS NOT NULL;

-- Our own table (not GoTrue's): the key pair generated on first start when AUTH_JWT_KEYS is not
-- set, shared by every instance. Older rows stay so tokens they signed keep verifying.
CREATE TABLE auth.{{prefix}}signing_keys (
  id text PRIMARY KEY,
  algorithm text NOT NULL,
  private_jwk jsonb NOT NULL,
  public_jwk jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX {{prefix}}signing_keys_algorithm_idx ON auth.{{prefix}}signing_keys (algorithm, created_at DESC);

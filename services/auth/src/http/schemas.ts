/**
 * JSON schemas of the request bodies. Unknown fields are allowed (clients send extras such as
 * gotrue_meta_security) and every field may be null, which reads as absent, as in GoTrue.
 */
const text = { type: ["string", "null"] } as const;
const object = { type: ["object", "null"] } as const;

function body(properties: Record<string, unknown>) {
  return { type: "object", properties, additionalProperties: true } as const;
}

export const signupBody = body({
  email: text,
  phone: text,
  password: text,
  data: object,
  channel: text,
  code_challenge: text,
  code_challenge_method: text,
});

export const recoverBody = body({ email: text, code_challenge: text, code_challenge_method: text });

const flag = { type: ["boolean", "null"] } as const;

export const otpBody = body({
  email: text,
  phone: text,
  create_user: flag,
  data: object,
  channel: text,
  code_challenge: text,
  code_challenge_method: text,
});

export const magicLinkBody = body({ email: text, data: object, code_challenge: text, code_challenge_method: text });

export const resendBody = body({ type: text, email: text, phone: text, code_challenge: text, code_challenge_method: text });

export const tokenBody = body({
  email: text,
  phone: text,
  password: text,
  refresh_token: text,
  auth_code: text,
  code_verifier: text,
  id_token: text,
  provider: text,
  client_id: text,
  issuer: text,
  access_token: text,
  nonce: text,
  link_identity: flag,
  gotrue_meta_security: object,
});

export const tokenQuery = { type: "object", properties: { grant_type: { type: "string" } } } as const;

export const userUpdateBody = body({
  email: text,
  phone: text,
  password: text,
  current_password: text,
  nonce: text,
  data: object,
  app_metadata: object,
  channel: text,
  code_challenge: text,
  code_challenge_method: text,
});

export const logoutQuery = { type: "object", properties: { scope: { type: "string" } } } as const;

/** A body field that is absent or null reads as undefined. */
export function field<T>(value: T | null | undefined): T | undefined {
  return value === null ? undefined : value;
}

/** JSON schemas of the admin, link and /verify request bodies (unknown fields allowed, null reads as absent). */
const text = { type: ["string", "null"] } as const;
const object = { type: ["object", "null"] } as const;
const flag = { type: ["boolean", "null"] } as const;

function body(properties: Record<string, unknown>) {
  return { type: "object", properties, additionalProperties: true } as const;
}

export const adminUserBody = body({
  id: text,
  aud: text,
  role: text,
  email: text,
  phone: text,
  password: text,
  password_hash: text,
  email_confirm: flag,
  phone_confirm: flag,
  user_metadata: object,
  app_metadata: object,
  ban_duration: text,
});

export const generateLinkBody = body({
  type: text,
  email: text,
  new_email: text,
  password: text,
  data: object,
  redirect_to: text,
});

export const inviteBody = body({ email: text, data: object });

export const verifyBody = body({
  type: text,
  token: text,
  token_hash: text,
  email: text,
  phone: text,
  redirect_to: text,
});

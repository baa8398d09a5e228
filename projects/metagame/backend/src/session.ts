/** Session variables as Hasura sends them to action and event handlers (lower-case names). */
export type SessionVariables = Record<string, string | undefined>;

/** Reads `session_variables` case-insensitively, as Hasura's names are case-insensitive. */
export function sessionVariables(raw: unknown): SessionVariables {
  const out: SessionVariables = {};
  if (raw === null || typeof raw !== "object") return out;
  for (const [name, value] of Object.entries(raw as Record<string, unknown>)) {
    if (typeof value === "string") out[name.toLowerCase()] = value;
  }
  return out;
}

export const roleOf = (session: SessionVariables) => session["x-hasura-role"];
export const userIdOf = (session: SessionVariables) => session["x-hasura-user-id"];

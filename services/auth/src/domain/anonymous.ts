/** Anonymous sign-in: POST /signup with neither email nor phone, when EXTERNAL_ANONYMOUS_USERS_ENABLED. */
import { randomUUID } from "node:crypto";
import { insertUser } from "../db/users.js";
import { audit } from "./audit.js";
import type { AuthDeps, RequestMeta } from "./context.js";
import { errors } from "./errors.js";
import { startSession, type TokenResponse } from "./sessions.js";

export async function signInAnonymously(
  deps: AuthDeps,
  meta: RequestMeta,
  data: Record<string, unknown> | undefined,
): Promise<TokenResponse> {
  const { config } = deps;
  if (!config.external.anonymousUsers) throw errors.anonymousDisabled();
  if (config.disableSignup) throw errors.signupDisabled();
  return deps.db.transaction(async (tx) => {
    const user = await insertUser(tx, deps.tables, {
      id: randomUUID(),
      aud: meta.audience ?? config.jwt.aud,
      role: config.jwt.defaultGroupName,
      email: null,
      phone: null,
      encryptedPassword: null,
      appMetadata: {},
      userMetadata: data ?? {},
      isAnonymous: true,
      emailConfirmed: false,
      phoneConfirmed: false,
    });
    await audit(tx, deps, meta, user, "user_signedup", { provider: "anonymous" });
    return startSession(tx, deps, meta, user, "anonymous");
  });
}

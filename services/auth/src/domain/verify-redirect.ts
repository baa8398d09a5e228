/**
 * GET /verify?token=<hash>&type=...&redirect_to=... (GoTrue's verify.go): the link a mail
 * carries, checked and applied as POST /verify does (verify.ts), answered with the URL to
 * redirect to (303): the session in the fragment with `type`, or, for a `pkce_` token, the flow's
 * auth code as `?code=` (exchanged at POST /token?grant_type=pkce); errors go in the fragment.
 */
import type { AuthDeps, RequestMeta } from "./context.js";
import { AuthError, errors } from "./errors.js";
import { type Notice, sendNotices } from "./notifications.js";
import { flowMethodOfType, issueAuthCode, PKCE_PREFIX } from "./pkce.js";
import { errorRedirect, fragmentRedirect, sessionRedirect, withQuery } from "./redirect-urls.js";
import { startSession, type TokenResponse } from "./sessions.js";
import { apply, checkTokenHash, methodOf, SINGLE_CONFIRMATION_ACCEPTED } from "./verify.js";

type GetOutcome = { kind: "half" } | { kind: "code"; code: string } | { kind: "session"; session: TokenResponse; type: string };

export async function verifyGet(
  deps: AuthDeps,
  meta: RequestMeta,
  input: { type?: string | undefined; token?: string | undefined },
  redirectTo: string,
) {
  const type = input.type ?? "";
  if (type === "") throw errors.validation("Verify requires a verification type");
  if (!input.token) throw errors.validation("Verify requires a token or a token hash");
  const hash = input.token;
  const pkce = hash.startsWith(PKCE_PREFIX);
  const method = pkce ? flowMethodOfType(type) : undefined;
  if (pkce && !method) throw errors.validation(`unsupported authentication method "${type}"`);
  const notices: Notice[] = [];
  try {
    const outcome = await deps.db.transaction(async (tx): Promise<GetOutcome> => {
      const checked = await checkTokenHash(tx, deps, type, hash);
      const user = await apply(tx, deps, meta, checked, notices);
      if (!user) return { kind: "half" };
      if (method) return { kind: "code", code: await issueAuthCode(tx, deps, user.id, method) };
      return { kind: "session", session: await startSession(tx, deps, meta, user, methodOf(checked.type)), type: checked.type };
    });
    await sendNotices(deps, notices);
    if (outcome.kind === "half") return fragmentRedirect(redirectTo, [["message", SINGLE_CONFIRMATION_ACCEPTED]], pkce);
    if (outcome.kind === "code") return withQuery(redirectTo, [["code", outcome.code]]);
    return sessionRedirect(redirectTo, outcome.session, [["type", outcome.type]]);
  } catch (error) {
    if (error instanceof AuthError) return errorRedirect(redirectTo, error, pkce);
    throw error;
  }
}

import { describe, expect, it } from "vitest";
import { createAuthConfig } from "../src/engine/auth/config.js";
import { ADMIN_SECRET, bearer, HS_SECRET, hasuraClaims, hsKey, jwtAuth, NAMESPACE, rejects, session, sign } from "./support/auth.js";

const NO_AUTH = createAuthConfig({});
const SECRET_ONLY = createAuthConfig({ adminSecret: ADMIN_SECRET });
const WITH_ANON = createAuthConfig({ adminSecret: ADMIN_SECRET, unauthorizedRole: "anonymous" });
const BACKEND_ONLY_ERROR =
  'x-hasura-use-backend-only-permissions:  Not a valid boolean text. True values are ["true","t","yes","y"] and  False values are ["false","f","no","n"]. All values are case insensitive';

describe("session precedence without an admin secret", () => {
  it("makes every request admin", async () => {
    expect(await session({}, NO_AUTH)).toEqual({
      role: "admin",
      variables: { "x-hasura-role": "admin" },
      isAdmin: true,
      useBackendOnly: false,
    });
  });

  it("uses x-hasura-role and every x-hasura-* header when a role is sent", async () => {
    const s = await session({ "x-hasura-role": "user", "X-Hasura-User-Id": "7", "x-hasura-org": "{1,2}", accept: "*/*" }, NO_AUTH);
    expect(s).toEqual({
      role: "user",
      variables: { "x-hasura-role": "user", "x-hasura-user-id": "7", "x-hasura-org": "{1,2}" },
      isAdmin: true,
      useBackendOnly: false,
    });
  });

  it("honours x-hasura-use-backend-only-permissions", async () => {
    expect((await session({ "x-hasura-use-backend-only-permissions": "True" }, NO_AUTH)).useBackendOnly).toBe(true);
    expect((await session({ "x-hasura-use-backend-only-permissions": "n" }, NO_AUTH)).useBackendOnly).toBe(false);
    await rejects(session({ "x-hasura-use-backend-only-permissions": "maybe" }, NO_AUTH), "bad-request", BACKEND_ONLY_ERROR);
  });
});

describe("session precedence with an admin secret", () => {
  it("accepts the secret (and the deprecated access key) as admin, or as the role named", async () => {
    expect((await session({ "x-hasura-admin-secret": ADMIN_SECRET }, SECRET_ONLY)).role).toBe("admin");
    expect((await session({ "x-hasura-access-key": ADMIN_SECRET }, SECRET_ONLY)).role).toBe("admin");
    const s = await session({ "x-hasura-admin-secret": ADMIN_SECRET, "x-hasura-role": "user", "x-hasura-user-id": "1" }, SECRET_ONLY);
    expect(s).toEqual({
      role: "user",
      variables: { "x-hasura-role": "user", "x-hasura-user-id": "1" },
      isAdmin: true,
      useBackendOnly: false,
    });
  });

  it("rejects a wrong secret, even when a JWT or an unauthorized role would do", async () => {
    const message = "invalid x-hasura-admin-secret/x-hasura-access-key";
    await rejects(session({ "x-hasura-admin-secret": "nope" }, SECRET_ONLY), "access-denied", message, 401);
    await rejects(session({ "x-hasura-access-key": "nope" }, WITH_ANON), "access-denied", message, 401);
    const token = await sign({ [NAMESPACE]: hasuraClaims() }, hsKey(), "HS256");
    await rejects(
      session(bearer(token, { "x-hasura-admin-secret": "nope" }), jwtAuth({ type: "HS256", key: HS_SECRET })),
      "access-denied",
      message,
      401,
    );
  });

  it("prefers the admin secret over a JWT", async () => {
    const cfg = jwtAuth({ type: "HS256", key: HS_SECRET });
    const s = await session({ authorization: "Bearer garbage", "x-hasura-admin-secret": ADMIN_SECRET }, cfg);
    expect(s.role).toBe("admin");
    expect(s.isAdmin).toBe(true);
  });

  it("honours backend-only permissions only with the secret", async () => {
    const header = { "x-hasura-use-backend-only-permissions": "true" };
    expect((await session({ ...header, "x-hasura-admin-secret": ADMIN_SECRET }, SECRET_ONLY)).useBackendOnly).toBe(true);
    expect((await session({ ...header }, WITH_ANON)).useBackendOnly).toBe(false);
    const token = await sign({ [NAMESPACE]: hasuraClaims() }, hsKey(), "HS256");
    expect((await session(bearer(token, header), jwtAuth({ type: "HS256", key: HS_SECRET }))).useBackendOnly).toBe(false);
  });

  it("answers without credentials with the unauthorized role, else denies", async () => {
    await rejects(session({}, SECRET_ONLY), "access-denied", "x-hasura-admin-secret/x-hasura-access-key required, but not found", 401);
    const s = await session({ "x-hasura-role": "admin", "x-hasura-user-id": "3" }, WITH_ANON);
    expect(s).toEqual({
      role: "anonymous",
      variables: { "x-hasura-role": "anonymous", "x-hasura-user-id": "3" },
      isAdmin: false,
      useBackendOnly: false,
    });
  });

  it("falls back to the unauthorized role in JWT mode only when no token is sent", async () => {
    const cfg = jwtAuth({ type: "HS256", key: HS_SECRET }, { unauthorizedRole: "anonymous" });
    expect((await session({}, cfg)).role).toBe("anonymous");
    await rejects(session(bearer("bad.token.here"), cfg), "invalid-jwt", expect.any(String) as unknown as string);
    await rejects(
      session({}, jwtAuth({ type: "HS256", key: HS_SECRET })),
      "invalid-headers",
      "Missing 'Authorization' or 'Cookie' header in JWT authentication mode",
    );
  });
});

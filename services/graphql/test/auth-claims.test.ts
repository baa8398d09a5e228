import { describe, expect, it } from "vitest";
import { bearer, HS_SECRET, hasuraClaims, hsKey, jwtAuth, NAMESPACE, rejects, session, sign } from "./support/auth.js";

const HS = jwtAuth({ type: "HS256", key: HS_SECRET });
const token = (payload: Record<string, unknown>): Promise<string> => sign(payload, hsKey(), "HS256");

describe("JWT claims", () => {
  it("takes the role from x-hasura-role when it is allowed, else the default role", async () => {
    const t = await token({ [NAMESPACE]: hasuraClaims() });
    expect((await session(bearer(t, { "x-hasura-role": "editor" }), HS)).role).toBe("editor");
    expect((await session(bearer(t, { "x-hasura-role": "" }), HS)).role).toBe("user");
    await rejects(session(bearer(t, { "x-hasura-role": "admin" }), HS), "access-denied", "Your requested role is not in allowed roles");
  });

  it("uses only x-hasura-* claims as variables; request headers other than x-hasura-role are not trusted", async () => {
    const t = await token({
      [NAMESPACE]: {
        ...hasuraClaims(),
        "X-Hasura-Org-Ids": ["1", "2", "a b"],
        "x-hasura-level": 3,
        "x-hasura-flags": { beta: true },
        name: "not a session variable",
      },
    });
    const s = await session(bearer(t, { "x-hasura-user-id": "999", "x-hasura-role": "editor" }), HS);
    expect(s.variables).toEqual({
      "x-hasura-user-id": "42",
      "x-hasura-org-ids": '{1,2,"a b"}',
      "x-hasura-level": "3",
      "x-hasura-flags": '{"beta":true}',
      "x-hasura-role": "editor",
    });
  });

  it("reports missing or malformed role claims with Hasura's codes", async () => {
    const { "x-hasura-allowed-roles": _, ...noAllowed } = hasuraClaims();
    await rejects(
      session(bearer(await token({ [NAMESPACE]: noAllowed })), HS),
      "jwt-missing-role-claims",
      "JWT claim does not contain x-hasura-allowed-roles",
    );
    const { "x-hasura-default-role": __, ...noDefault } = hasuraClaims();
    await rejects(
      session(bearer(await token({ [NAMESPACE]: noDefault })), HS),
      "jwt-missing-role-claims",
      "JWT claim does not contain x-hasura-default-role",
    );
    await rejects(
      session(bearer(await token({ [NAMESPACE]: hasuraClaims({ "x-hasura-allowed-roles": "user" }) })), HS),
      "jwt-invalid-claims",
      "invalid x-hasura-allowed-roles; should be a list of roles: parsing [] failed, expected Array, but encountered String",
    );
    await rejects(
      session(bearer(await token({ [NAMESPACE]: hasuraClaims({ "x-hasura-default-role": 7 }) })), HS),
      "jwt-invalid-claims",
      "invalid x-hasura-default-role; should be a single role name: parsing Text failed, expected String, but encountered Number",
    );
    await rejects(
      session(bearer(await token({ other: hasuraClaims() })), HS),
      "jwt-invalid-claims",
      `claims key: '${NAMESPACE}' not found`,
    );
    await rejects(
      session(bearer(await token({ [NAMESPACE]: "{}" })), HS),
      "jwt-invalid-claims",
      "expecting a json object when claims_format is json",
    );
  });

  it("reads a custom claims_namespace", async () => {
    const cfg = jwtAuth({ type: "HS256", key: HS_SECRET, claims_namespace: "hasura" });
    expect((await session(bearer(await token({ hasura: hasuraClaims() })), cfg)).role).toBe("user");
  });

  it("reads claims at claims_namespace_path, including `$`", async () => {
    const nested = jwtAuth({ type: "HS256", key: HS_SECRET, claims_namespace_path: "$.hasura.claims" });
    expect((await session(bearer(await token({ hasura: { claims: hasuraClaims() } })), nested)).variables["x-hasura-user-id"]).toBe("42");
    await rejects(
      session(bearer(await token({ hasura: {} })), nested),
      "jwt-invalid-claims",
      "claims not found at claims_namespace_path: '$.hasura.claims'",
    );
    const root = jwtAuth({ type: "HS256", key: HS_SECRET, claims_namespace_path: "$" });
    expect((await session(bearer(await token({ sub: "s", ...hasuraClaims() })), root)).variables).toEqual({
      "x-hasura-user-id": "42",
      "x-hasura-role": "user",
    });
  });

  it("reads stringified_json claims", async () => {
    const cfg = jwtAuth({ type: "HS256", key: HS_SECRET, claims_format: "stringified_json" });
    expect((await session(bearer(await token({ [NAMESPACE]: JSON.stringify(hasuraClaims()) })), cfg)).role).toBe("user");
    await rejects(
      session(bearer(await token({ [NAMESPACE]: hasuraClaims() })), cfg),
      "jwt-invalid-claims",
      "expecting a string when claims_format is stringified_json",
    );
    await rejects(
      session(bearer(await token({ [NAMESPACE]: "{oops" })), cfg),
      "jwt-invalid-claims",
      `expecting stringified json at: 'claims_namespace ${NAMESPACE}', but found: {oops`,
    );
  });

  it("maps our auth service's tokens ({sub, role, aud}) through claims_map", async () => {
    const cfg = jwtAuth({
      type: "HS256",
      key: HS_SECRET,
      audience: "authenticated",
      claims_map: {
        "x-hasura-allowed-roles": ["authenticated", "anon"],
        "x-hasura-default-role": { path: "$.role" },
        "x-hasura-user-id": { path: "$.sub" },
        "x-hasura-team": { path: "$.app_metadata.team", default: "none" },
      },
    });
    const t = await token({ sub: "5f0c-user", role: "authenticated", aud: "authenticated", email: "a@b.c" });
    expect(await session(bearer(t), cfg)).toEqual({
      role: "authenticated",
      variables: { "x-hasura-user-id": "5f0c-user", "x-hasura-team": "none", "x-hasura-role": "authenticated" },
      isAdmin: false,
      useBackendOnly: false,
    });
    await rejects(
      session(bearer(await token({ role: "authenticated", aud: "authenticated" })), cfg),
      "jwt-invalid-claims",
      "JWT claim from claims_map, x-hasura-user-id not found",
    );
    await rejects(
      session(bearer(await token({ sub: "x", aud: "authenticated" })), cfg),
      "jwt-missing-role-claims",
      "JWT claim does not contain x-hasura-default-role",
    );
  });

  it("takes allowed roles from a claims_map path, with its default", async () => {
    const cfg = jwtAuth({
      type: "HS256",
      key: HS_SECRET,
      claims_map: {
        "x-hasura-allowed-roles": { path: "$.roles", default: ["user"] },
        "x-hasura-default-role": { path: "$['default role']", default: "user" },
      },
    });
    expect((await session(bearer(await token({ roles: ["user", "mod"], "default role": "mod" })), cfg)).role).toBe("mod");
    expect((await session(bearer(await token({})), cfg)).role).toBe("user");
    await rejects(
      session(bearer(await token({ roles: "mod" })), cfg),
      "jwt-invalid-claims",
      "invalid x-hasura-allowed-roles; should be a list of roles: parsing [] failed, expected Array, but encountered String",
    );
  });
});

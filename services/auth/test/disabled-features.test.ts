/**
 * GoTrue features this service does not have answer as GoTrue answers while they are disabled
 * (status, error_code, message), after the authentication GoTrue asks for first: SAML SSO, the
 * OAuth 2.1 server, custom OAuth/OIDC providers, passkeys and Web3 sign-in; the admin lists of SSO
 * providers and passkeys are empty.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminApi, adminToken, createConfirmedUser } from "./support/admin.js";
import { backends, openTestDatabase, readJson, startTestServer, type TestDatabase, type TestServer } from "./support/server.js";

describe.each(backends)("disabled features on %s", (backend) => {
  let database: TestDatabase;
  let server: TestServer;

  beforeAll(async () => {
    database = await openTestDatabase(backend);
    server = await startTestServer(database.db);
  });
  afterAll(async () => {
    await server?.close();
    await database?.dispose();
  });

  const answer = async (path: string, init: RequestInit = {}) => {
    const response = await server.request(path, init);
    return { status: response.status, body: await readJson(response) };
  };
  const refused = (status: number, code: string, msg: string) => ({
    status,
    body: expect.objectContaining({ code: status, error_code: code, msg }),
  });

  it("answers SAML SSO, passkeys and the OAuth server's public endpoints as disabled", async () => {
    const saml = refused(404, "saml_provider_disabled", "SAML 2.0 is disabled");
    expect(await answer("/sso", { method: "POST", body: JSON.stringify({ domain: "example.com" }) })).toEqual(saml);
    expect(await answer("/sso/saml/metadata")).toEqual(saml);
    expect(await answer("/sso/saml/acs", { method: "POST" })).toEqual(saml);
    const passkeys = refused(404, "passkey_disabled", "Passkeys are disabled");
    expect(await answer("/passkeys/authentication/options", { method: "POST" })).toEqual(passkeys);
    const oauthServer = refused(404, "feature_disabled", "OAuth server is disabled");
    expect(await answer("/oauth/token", { method: "POST" })).toEqual(oauthServer);
    expect(await answer("/oauth/clients/register", { method: "POST" })).toEqual(oauthServer);
    expect(await answer("/.well-known/oauth-authorization-server")).toEqual(oauthServer);
    expect(await answer("/token?grant_type=web3", { method: "POST", body: "{}" })).toEqual(
      refused(422, "web3_provider_disabled", "Web3 provider is disabled"),
    );
  });

  it("asks for an admin before answering that the OAuth server's clients and custom providers are disabled", async () => {
    expect(await answer("/admin/oauth/clients")).toEqual(refused(401, "no_authorization", "This endpoint requires a valid Bearer token"));
    const admin = { authorization: `Bearer ${await adminToken()}` };
    expect(await answer("/admin/oauth/clients", { headers: admin })).toEqual(refused(404, "feature_disabled", "OAuth server is disabled"));
    expect(await answer("/admin/custom-providers", { method: "POST", headers: admin, body: "{}" })).toEqual(
      refused(404, "feature_disabled", "Custom OAuth providers are disabled"),
    );
    const { data, error } = await (await adminApi(server)).oauth.listClients();
    expect(data).toEqual({ clients: [] });
    expect(error).toMatchObject({ status: 404, code: "feature_disabled", message: "OAuth server is disabled" });
  });

  it("asks for a user before answering that OAuth grants are disabled; auth-js's SSO sign-in gets GoTrue's error", async () => {
    expect((await answer("/user/oauth/grants")).status).toBe(401);
    const { address, password } = await createConfirmedUser(await adminApi(server), "grants");
    const client = server.client();
    const { data } = await client.signInWithPassword({ email: address, password });
    const bearer = { authorization: `Bearer ${data.session?.access_token}` };
    expect(await answer("/user/oauth/grants", { headers: bearer })).toEqual(refused(404, "feature_disabled", "OAuth server is disabled"));
    const sso = await server.client().signInWithSSO({ domain: "example.com" });
    expect(sso.error).toMatchObject({ status: 404, code: "saml_provider_disabled", message: "SAML 2.0 is disabled" });
  });

  it("lists no SSO providers and no passkeys to an admin, finds none, and creates no SSO provider", async () => {
    expect((await answer("/admin/sso/providers")).status).toBe(401);
    const admin = { authorization: `Bearer ${await adminToken()}` };
    expect(await answer("/admin/sso/providers", { headers: admin })).toEqual({ status: 200, body: { items: [] } });
    expect(await answer("/admin/sso/providers", { method: "POST", headers: admin, body: "{}" })).toEqual(
      refused(404, "saml_provider_disabled", "SAML 2.0 is disabled"),
    );
    expect(await answer("/admin/sso/providers/00000000-0000-4000-8000-000000000000", { headers: admin })).toEqual(
      refused(404, "sso_provider_not_found", "SSO Identity Provider not found"),
    );
    const { data } = await (await adminApi(server)).createUser({ email: `passkeys-${Date.now()}@example.com` });
    const userId = data.user?.id as string;
    expect(await answer(`/admin/users/${userId}/passkeys`, { headers: admin })).toEqual({ status: 200, body: [] });
    expect(
      await answer(`/admin/users/${userId}/passkeys/00000000-0000-4000-8000-000000000000`, { method: "DELETE", headers: admin }),
    ).toEqual(refused(404, "validation_failed", "Passkey not found"));
    expect((await answer("/admin/users/00000000-0000-4000-8000-000000000000/passkeys", { headers: admin })).status).toBe(404);
  });
});

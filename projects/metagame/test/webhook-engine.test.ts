/**
 * The auth webhook through the engine, with our real auth service issuing the tokens: requests
 * with `authorization: Bearer <token>` go to GET /auth-webhook (startPlatform sets
 * HASURA_GRAPHQL_AUTH_HOOK), which verifies them against the service's JWKS.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiKey, type Session, startTestAuth, type TestAuth, uniqueEmail, webhookEnv } from "./support/auth.js";
import { startPlatform, type TestPlatform } from "./support/platform.js";
import { SETUP_TIMEOUT_MS } from "./support/timeouts.js";

let auth: TestAuth;
let platform: TestPlatform;

beforeAll(async () => {
  auth = await startTestAuth();
  platform = await startPlatform({ backendEnv: webhookEnv(auth) });
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await platform?.close();
  await auth?.close();
});

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const ME = "{ me { id username ethereumAddress player { id totalXP profile { username } } } }";

async function counts(id: string) {
  const answer = await platform.admin<{
    player_aggregate: { aggregate: { count: number } };
    profile_aggregate: { aggregate: { count: number } };
  }>(
    `query Counts($id: uuid!) {
      player_aggregate(where: {id: {_eq: $id}}) { aggregate { count } }
      profile_aggregate(where: {playerId: {_eq: $id}}) { aggregate { count } }
    }`,
    { id },
  );
  return { players: answer.data?.player_aggregate.aggregate.count, profiles: answer.data?.profile_aggregate.aggregate.count };
}

describe("signing in through the engine", () => {
  let alice: Session;

  it("creates the player and its empty profile on the first request, and `me` returns them", async () => {
    alice = await auth.signUp();
    expect(await counts(alice.userId)).toEqual({ players: 0, profiles: 0 });
    const answer = await platform.graphql(ME, {}, bearer(alice.accessToken));
    expect(answer.errors).toBeUndefined();
    expect(answer.data).toEqual({
      me: [
        {
          id: alice.userId,
          username: null,
          ethereumAddress: `0x0000${alice.userId}`,
          player: { id: alice.userId, totalXP: 0, profile: { username: null } },
        },
      ],
    });
    expect(await counts(alice.userId)).toEqual({ players: 1, profiles: 1 });
  });

  it("creates exactly one player for 20 concurrent first requests", async () => {
    const bob = await auth.signUp();
    const answers = await Promise.all(Array.from({ length: 20 }, () => platform.graphql(ME, {}, bearer(bob.accessToken))));
    for (const answer of answers) {
      expect(answer.errors).toBeUndefined();
      expect((answer.data as { me: Array<{ id: string }> }).me).toEqual([expect.objectContaining({ id: bob.userId })]);
    }
    expect(await counts(bob.userId)).toEqual({ players: 1, profiles: 1 });
  });

  it("lets the player act as role player: an unfiltered update reaches its own row only", async () => {
    const answer = await platform.graphql<{ update_player: { affected_rows: number } }>(
      `mutation { update_player(where: {}, _set: {profileLayout: "compact"}) { affected_rows } }`,
      {},
      bearer(alice.accessToken),
    );
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.update_player.affected_rows).toBe(1);
  });

  it("takes the wallet address of a user who signed in with an Ethereum wallet", async () => {
    const wallet = "0xAbCdEf0123456789aBcDeF0123456789AbCdEf01";
    const email = uniqueEmail("wallet");
    const service = await apiKey("service_role");
    const created = await fetch(`${auth.url}/admin/users`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${service}` },
      body: JSON.stringify({
        email,
        password: "a-test-password-1",
        email_confirm: true,
        app_metadata: { provider: "web3", providers: ["web3"] },
        user_metadata: { sub: `web3:ethereum:${wallet}`, custom_claims: { address: wallet, chain: "ethereum", network: 1 } },
      }),
    });
    expect(created.status).toBe(200);
    const session = await auth.signIn(email);
    const answer = await platform.graphql<{ me: Array<{ ethereumAddress: string }> }>(ME, {}, bearer(session.accessToken));
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.me[0]?.ethereumAddress).toBe(wallet.toLowerCase());
  });

  it("is role public without a token: quests are readable, `me` is not there", async () => {
    const quests = await platform.graphql("{ quest(limit: 1) { id title } }");
    expect(quests.errors).toBeUndefined();
    expect(quests.data).toEqual({ quest: [] });
    const me = await platform.graphql(ME);
    expect(me.errors?.[0]?.extensions?.code).toBe("validation-failed");
    const emptyBearer = await platform.graphql(ME, {}, { authorization: "Bearer " });
    expect(emptyBearer.errors?.[0]?.extensions?.code).toBe("validation-failed");
  });

  it("refuses an expired token", async () => {
    const shortLived = await auth.sibling({ AUTH_JWT_EXP: "1" });
    try {
      const session = await shortLived.signUp();
      await new Promise((resolve) => setTimeout(resolve, 2_100));
      const answer = await platform.graphql(ME, {}, bearer(session.accessToken));
      expect(answer.errors).toEqual([
        { message: "Authentication hook unauthorized this request", extensions: { code: "access-denied", path: "$" } },
      ]);
      // Hasura answers auth failures on /v1/graphql with HTTP 200.
      expect(answer.status).toBe(200);
    } finally {
      await shortLived.close();
    }
  });

  it("refuses a tampered token and a token of another issuer", async () => {
    const [header, payload, signature] = alice.accessToken.split(".") as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as Record<string, unknown>;
    const forged = Buffer.from(JSON.stringify({ ...claims, sub: "00000000-0000-4000-8000-0000000000ff" })).toString("base64url");
    const flipped = `${signature.slice(0, -2)}${signature.endsWith("AA") ? "BB" : "AA"}`;
    const foreign = await auth.sibling({ AUTH_JWT_ISSUER: "http://someone-else.test" });
    try {
      const other = await foreign.signUp();
      for (const token of [`${header}.${forged}.${signature}`, `${header}.${payload}.${flipped}`, other.accessToken, "not-a-jwt"]) {
        const answer = await platform.graphql(ME, {}, bearer(token));
        expect(answer.errors?.[0]?.message).toBe("Authentication hook unauthorized this request");
      }
    } finally {
      await foreign.close();
    }
    const basic = await platform.graphql(ME, {}, { authorization: "Basic dXNlcjpwYXNz" });
    expect(basic.errors?.[0]?.message).toBe("Authentication hook unauthorized this request");
  });

  it("accepts HS256 user tokens when the auth service signs with its secret", async () => {
    const hs = await auth.sibling({ AUTH_JWT_ALGORITHM: "HS256" });
    try {
      const session = await hs.signUp();
      expect(JSON.parse(Buffer.from(session.accessToken.split(".")[0] ?? "", "base64url").toString()).alg).toBe("HS256");
      const answer = await platform.graphql<{ me: Array<{ id: string }> }>(ME, {}, bearer(session.accessToken));
      expect(answer.errors).toBeUndefined();
      expect(answer.data?.me).toEqual([expect.objectContaining({ id: session.userId })]);
    } finally {
      await hs.close();
    }
  });

  it("maps the API keys: anon is public, service_role is admin", async () => {
    const anon = await platform.graphql("{ QuestStatus { status } }", {}, bearer(await apiKey("anon")));
    expect(anon.errors?.[0]?.extensions?.code).toBe("validation-failed");
    const service = await platform.graphql<{ QuestStatus: unknown[] }>(
      "{ QuestStatus(order_by: {status: asc}) { status } }",
      {},
      bearer(await apiKey("service_role")),
    );
    expect(service.errors).toBeUndefined();
    expect(service.data?.QuestStatus).toEqual([{ status: "CLOSED" }, { status: "OPEN" }]);
    const wrongSecret = await platform.graphql(
      "{ quest { id } }",
      {},
      bearer(await apiKey("service_role", "another-secret-that-is-long-enough-000")),
    );
    expect(wrongSecret.errors?.[0]?.message).toBe("Authentication hook unauthorized this request");
  });
});

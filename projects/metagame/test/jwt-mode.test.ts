/**
 * JWT mode (npm start's METAGAME_AUTH=jwt, or a deployment's own HASURA_GRAPHQL_JWT_SECRET): the
 * engine verifies the auth service's access tokens itself through its JWKS, and claims_map makes
 * every session role `player` with the token's `sub` as X-Hasura-User-Id. No webhook runs, so
 * the player must exist for the player-only parts to work.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AUTH_ISSUER, startTestAuth, type TestAuth } from "./support/auth.js";
import { startPlatform, type TestPlatform } from "./support/platform.js";

let auth: TestAuth;
let platform: TestPlatform;

beforeAll(async () => {
  auth = await startTestAuth();
  platform = await startPlatform({
    webhook: false,
    engineEnv: {
      HASURA_GRAPHQL_JWT_SECRET: JSON.stringify({
        jwk_url: auth.jwksUrl,
        issuer: AUTH_ISSUER,
        claims_map: {
          "x-hasura-allowed-roles": ["player"],
          "x-hasura-default-role": "player",
          "x-hasura-user-id": { path: "$.sub" },
        },
      }),
      HASURA_GRAPHQL_UNAUTHORIZED_ROLE: "public",
    },
  });
});
afterAll(async () => {
  await platform?.close();
  await auth?.close();
});

describe("JWT mode with claims_map from the auth service's token", () => {
  it("makes a signed-up user role player with their id, and creates a quest once their player exists", async () => {
    const { accessToken: token, userId } = await auth.signUp();
    const bearer = { authorization: `Bearer ${token}` };
    // Role player at once (`me` is a player-only root field), but no player row yet.
    expect(await platform.graphql("{ me { id } }", {}, bearer)).toEqual({ status: 200, data: { me: [] } });

    const address = `0x${"a".repeat(40)}`;
    const inserted = await platform.admin(
      `mutation ($id: uuid!, $address: String!) {
        insert_player_one(object: {id: $id, ethereumAddress: $address}) { id }
        insert_profile_one(object: {playerId: $id}) { id }
      }`,
      { id: userId, address },
    );
    expect(inserted.errors).toBeUndefined();
    expect(await platform.graphql("{ me { id ethereumAddress } }", {}, bearer)).toEqual({
      status: 200,
      data: { me: [{ id: userId, ethereumAddress: address }] },
    });

    const created = await platform.graphql<{
      createQuest: { success: boolean; error: string | null; quest: { createdByPlayerId: string } };
    }>(
      `mutation ($q: CreateQuestInput!) { createQuest(quest: $q) { success error quest { createdByPlayerId } } }`,
      { q: { guildId: "f94b7cd4-cf29-4251-baa5-eaacab98a719", title: "JWT mode works", roleIds: ["BUILDER"], skillIds: [] } },
      bearer,
    );
    expect(created.data?.createQuest).toEqual({ success: true, error: null, quest: { createdByPlayerId: userId } });
  });

  it("reads as public without a token, and refuses a token the JWKS did not sign", async () => {
    const anonymous = await platform.graphql<{ guild: unknown[] }>("{ guild(limit: 1) { guildname } }");
    expect(anonymous.data?.guild).toHaveLength(1);
    expect((await platform.graphql("{ me { id } }")).errors?.[0]?.extensions?.code).toBe("validation-failed");

    const { accessToken: token } = await auth.signUp();
    const [header, payload] = token.split(".");
    const forged = `${header}.${payload}.${"A".repeat(86)}`;
    const refused = await platform.graphql("{ guild(limit: 1) { guildname } }", {}, { authorization: `Bearer ${forged}` });
    expect(refused.errors?.[0]?.extensions?.code).toBe("invalid-jwt");
  });
});

/** The engine serves the project: every migration applied, the seeded lookup rows readable by role. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPlatform, type TestPlatform } from "./support/platform.js";

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startPlatform();
});
afterAll(() => platform?.close());

describe("the metagame project", () => {
  it("seeds the lookup tables and the founding guilds", async () => {
    const answer = await platform.admin<{
      skill_aggregate: { aggregate: { count: number } };
      ColorAspect_aggregate: { aggregate: { count: number } };
      guild: Array<{ guildname: string; daos: Array<{ contractAddress: string }> }>;
    }>(`{
      skill_aggregate { aggregate { count } }
      ColorAspect_aggregate { aggregate { count } }
      guild(order_by: {guildname: asc}) { guildname daos { contractAddress } }
    }`);
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.skill_aggregate.aggregate.count).toBe(95);
    expect(answer.data?.ColorAspect_aggregate.aggregate.count).toBe(32);
    expect(answer.data?.guild).toEqual([
      { guildname: "metacartelventures", daos: [{ contractAddress: "0x4570b4faf71e23942b8b9f934b47ccedf7540162" }] },
      { guildname: "metafam", daos: [] },
    ]);
  });

  it("lets role player read the world but not the enum tables", async () => {
    const player = "00000000-0000-4000-8000-000000000001";
    const answer = await platform.asPlayer(player, "{ PlayerRole(order_by: {role: asc}, limit: 1) { role label basic } }");
    expect(answer.data).toEqual({ PlayerRole: [{ role: "ARTIST", label: "Artist", basic: true }] });
    const refused = await platform.asPlayer(player, "{ QuestStatus { status } }");
    expect(refused.errors?.[0]?.extensions?.code).toBe("validation-failed");
  });
});

/**
 * createQuestCompletion and updateQuestCompletion through the engine: MetaGame's rules in order and
 * words, the UNIQUE quest closed with its other completions rejected in one mutation, and the
 * Discord props message posted to a Discord stand-in once a completion is accepted.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPlayer, eventually, type StandIn, startStandIn } from "./support/actions-support.js";
import { startPlatform, type TestPlatform } from "./support/platform.js";

const METAFAM = "f94b7cd4-cf29-4251-baa5-eaacab98a719";
const CHANNEL = "718557002221224037";

let platform: TestPlatform;
let discord: StandIn;

beforeAll(async () => {
  discord = await startStandIn(() => ({ json: { id: "1" } }));
  platform = await startPlatform({
    backendEnv: {
      DISCORD_API_URL: discord.url,
      DISCORD_BOT_TOKEN: "bot-token",
      DISCORD_PROPS_CHANNEL_ID: CHANNEL,
      FRONTEND_URL: "https://game.example",
    },
  });
});
afterAll(async () => {
  await platform?.close();
  await discord?.close();
});

const COMPLETE = `mutation ($c: CreateQuestCompletionInput!) {
  createQuestCompletion(questCompletion: $c) { success error quest_completion_id quest_completion { status submissionText completedByPlayerId } }
}`;
const UPDATE = `mutation ($u: UpdateQuestCompletionInput!) {
  updateQuestCompletion(updateData: $u) { success error quest_completion_id quest_completion { status } }
}`;

type Outcome = {
  success: boolean;
  error: string | null;
  quest_completion_id: string | null;
  quest_completion: Record<string, unknown> | null;
};

async function makeQuest(creator: string, quest: Record<string, unknown> = {}): Promise<string> {
  const answer = await platform.admin<{ insert_quest_one: { id: string } }>(
    `mutation ($q: quest_insert_input!) { insert_quest_one(object: $q) { id } }`,
    { q: { guildId: METAFAM, title: "Quest", createdByPlayerId: creator, ...quest } },
  );
  if (!answer.data) throw new Error(JSON.stringify(answer.errors));
  return answer.data.insert_quest_one.id;
}

async function complete(playerId: string, c: Record<string, unknown>): Promise<Outcome> {
  const answer = await platform.asPlayer<{ createQuestCompletion: Outcome }>(playerId, COMPLETE, { c });
  expect(answer.errors).toBeUndefined();
  return answer.data?.createQuestCompletion as Outcome;
}

async function update(playerId: string, u: Record<string, unknown>): Promise<Outcome> {
  const answer = await platform.asPlayer<{ updateQuestCompletion: Outcome }>(playerId, UPDATE, { u });
  expect(answer.errors).toBeUndefined();
  return answer.data?.updateQuestCompletion as Outcome;
}

async function statuses(questId: string) {
  const answer = await platform.admin<{ quest_by_pk: { status: string; quest_completions: Array<{ id: string; status: string }> } }>(
    `query ($id: uuid!) { quest_by_pk(id: $id) { status quest_completions { id status } } }`,
    { id: questId },
  );
  return answer.data?.quest_by_pk;
}

describe("createQuestCompletion", () => {
  it("checks role, submission, quest and status in MetaGame's order", async () => {
    const creator = await createPlayer(platform.admin);
    const admin = await platform.admin<{ createQuestCompletion: Outcome }>(COMPLETE, { c: { questId: "x", submissionText: "t" } });
    expect(admin.data?.createQuestCompletion).toMatchObject({ success: false, error: "Expected player role; got admin." });
    expect(await complete(creator.id, { questId: "not-a-uuid" })).toMatchObject({
      success: false,
      error: "Must provide at least a submission link or text",
    });
    expect(await complete(creator.id, { questId: "not-a-uuid", submissionLink: "" })).toMatchObject({
      error: "Must provide at least a submission link or text",
    });
    expect(await complete(creator.id, { questId: "not-a-uuid", submissionText: "done" })).toMatchObject({ error: "Quest not found." });
    expect(await complete(creator.id, { questId: "00000000-0000-4000-8000-000000000000", submissionText: "done" })).toMatchObject({
      error: "Quest not found.",
    });
    const closed = await makeQuest(creator.id, { status: "CLOSED" });
    expect(await complete(creator.id, { questId: closed, submissionText: "done" })).toMatchObject({ error: "Quest must be open." });
  });

  it("takes one completion per player of a UNIQUE or PERSONAL quest, any number of players", async () => {
    const creator = await createPlayer(platform.admin);
    const [a, b] = [await createPlayer(platform.admin), await createPlayer(platform.admin)];
    for (const repetition of ["UNIQUE", "PERSONAL"]) {
      const questId = await makeQuest(creator.id, { repetition });
      const first = await complete(a.id, { questId, submissionLink: "https://example.com/pr/1" });
      expect(first).toMatchObject({ success: true, error: null, quest_completion: { status: "PENDING", completedByPlayerId: a.id } });
      expect(await complete(a.id, { questId, submissionText: "again" })).toMatchObject({
        success: false,
        error: "You already submitted a completion this personal/unique quest",
      });
      expect(await complete(b.id, { questId, submissionText: "mine" })).toMatchObject({ success: true });
    }
  });

  it("makes a player wait out a RECURRING quest's cooldown", async () => {
    const creator = await createPlayer(platform.admin);
    const player = await createPlayer(platform.admin);
    const questId = await makeQuest(creator.id, { repetition: "RECURRING", cooldown: 3600 });
    expect(await complete(player.id, { questId, submissionText: "1" })).toMatchObject({ success: true });
    expect(await complete(player.id, { questId, submissionText: "2" })).toMatchObject({
      success: false,
      error: "Player have to wait before being able to do this quest again",
    });
    // Once the cooldown has passed since the latest completion, another is taken.
    await platform.admin(
      `mutation ($q: uuid!) { update_quest_completion(where: {questId: {_eq: $q}}, _set: {submittedAt: "2020-01-01T00:00:00Z"}) { affected_rows } }`,
      { q: questId },
    );
    expect(await complete(player.id, { questId, submissionText: "3" })).toMatchObject({ success: true });
  });
});

describe("updateQuestCompletion", () => {
  it("checks role, completion, quest, status, creator and pending state in MetaGame's order", async () => {
    const creator = await createPlayer(platform.admin);
    const other = await createPlayer(platform.admin);
    const admin = await platform.admin<{ updateQuestCompletion: Outcome }>(UPDATE, { u: { questCompletionId: "x", status: "ACCEPTED" } });
    expect(admin.data?.updateQuestCompletion).toMatchObject({ success: false, error: "Expected player role" });
    expect(await update(creator.id, { questCompletionId: "nope", status: "ACCEPTED" })).toMatchObject({
      error: "Quest completion not found",
    });
    const questId = await makeQuest(creator.id, { repetition: "PERSONAL" });
    const done = await complete(other.id, { questId, submissionText: "done" });
    const id = done.quest_completion_id as string;
    expect(await update(other.id, { questCompletionId: id, status: "ACCEPTED" })).toMatchObject({
      error: "Only quest creator can update a completion",
    });
    expect(await update(creator.id, { questCompletionId: id, status: "REJECTED" })).toMatchObject({
      success: true,
      quest_completion_id: id,
      quest_completion: { status: "REJECTED" },
    });
    expect(await update(creator.id, { questCompletionId: id, status: "ACCEPTED" })).toMatchObject({
      error: "Quest completion already marked as done",
    });
    await platform.admin(`mutation ($id: uuid!) { update_quest_by_pk(pk_columns: {id: $id}, _set: {status: CLOSED}) { id } }`, {
      id: questId,
    });
    expect(await update(creator.id, { questCompletionId: id, status: "ACCEPTED" })).toMatchObject({ error: "Quest must be open" });
  });

  it("closes an accepted UNIQUE quest and rejects its other completions", async () => {
    const creator = await createPlayer(platform.admin);
    const players = [await createPlayer(platform.admin), await createPlayer(platform.admin), await createPlayer(platform.admin)];
    const questId = await makeQuest(creator.id, { repetition: "UNIQUE" });
    const ids: string[] = [];
    for (const p of players) ids.push((await complete(p.id, { questId, submissionText: "me" })).quest_completion_id as string);
    expect(await update(creator.id, { questCompletionId: ids[1], status: "ACCEPTED" })).toMatchObject({
      success: true,
      quest_completion: { status: "ACCEPTED" },
    });
    const after = await statuses(questId);
    expect(after?.status).toBe("CLOSED");
    expect(new Map(after?.quest_completions.map((c) => [c.id, c.status]))).toEqual(
      new Map([
        [ids[0], "REJECTED"],
        [ids[1], "ACCEPTED"],
        [ids[2], "REJECTED"],
      ]),
    );
  });

  it("leaves a PERSONAL quest open when a completion is accepted", async () => {
    const creator = await createPlayer(platform.admin);
    const [a, b] = [await createPlayer(platform.admin), await createPlayer(platform.admin)];
    const questId = await makeQuest(creator.id, { repetition: "PERSONAL" });
    const first = (await complete(a.id, { questId, submissionText: "a" })).quest_completion_id;
    await complete(b.id, { questId, submissionText: "b" });
    expect(await update(creator.id, { questCompletionId: first, status: "ACCEPTED" })).toMatchObject({ success: true });
    const after = await statuses(questId);
    expect(after?.status).toBe("OPEN");
    expect(after?.quest_completions.map((c) => c.status).sort()).toEqual(["ACCEPTED", "PENDING"]);
  });

  it("gives props in Discord for an accepted completion of a player with a Discord account", async () => {
    const creator = await createPlayer(platform.admin);
    const player = await createPlayer(platform.admin, {}, { discordId: "4242" });
    const questId = await makeQuest(creator.id, { repetition: "PERSONAL", title: "Fix the docs" });
    const id = (await complete(player.id, { questId, submissionText: "done" })).quest_completion_id;
    expect(await update(creator.id, { questCompletionId: id, status: "ACCEPTED" })).toMatchObject({ success: true });
    const posted = await eventually(async () => discord.requests.find((r) => r.path === `/channels/${CHANNEL}/messages`));
    expect(posted.method).toBe("POST");
    expect(posted.headers.authorization).toBe("Bot bot-token");
    const { content } = JSON.parse(posted.body) as { content: string };
    expect(content).toContain("<@4242>");
    expect(content).toContain("Fix the docs");
    expect(content).toContain(`https://game.example/quest/${questId}`);
  });
});

/**
 * MetaGame's demo world: a deterministic set of players, guilds, DAOs, quests and completions
 * that `loadDemoData(db)` puts into a project database with no players yet (the `seed` script,
 * `npm run seed -w projects/metagame -- <postgres url | PGlite directory> [--scale bench]`,
 * applies the migrations first and then calls it).
 *
 * Who is who (the same in every database; test/demo-data.test.ts checks each line):
 *
 * | who | id | what they are for |
 * |---|---|---|
 * | player 1, `nova` | `00000000-0000-4000-8001-000000000001`, address `demoPlayer(1).address` | DIAMOND, the most XP (25,000); created guild `raidguild` (its guild_metadata creator, so may edit it) and the showcase quests 1, 3 and 5 (the OPEN ones), whose PENDING completions it can review |
 * | player 2, `quill` | `...8001-000000000002` | created guild `seedclub` and the showcase quests 2, 4 and 6 (the CLOSED ones) |
 * | players 3, 4 | `...8001-000000000003`, `...04` | created `tavernkeepers` and `metalab` (PENDING, so without quests) |
 * | player n | `demoId("player", n)`, username `demoUsername(n)` | every player has a profile, an ETHEREUM account (their address), 1-3 roles ranked from 1 and 2-6 skills |
 * | quest 1 | `00000000-0000-4000-8005-000000000001` | UNIQUE, OPEN, in MetaFam, with PENDING and REJECTED completions and none ACCEPTED |
 * | quest 2 | `...8005-000000000002` | UNIQUE, CLOSED by accepting one completion: the others are REJECTED |
 * | quests 3-6 | `...03` - `...06` | PERSONAL OPEN, PERSONAL CLOSED, RECURRING OPEN, RECURRING CLOSED |
 *
 * Guild n of the demo is `demoId("guild", n)` (raidguild, seedclub, tavernkeepers, metalab);
 * the two guilds the migrations seed (metafam, metacartelventures) keep their fixed ids.
 * Images are plain URLs (picsum.photos); nothing is fetched while loading.
 */
import { demoAddress, demoId } from "./ids.js";
import { demoUsername } from "./people.js";

export { DEMO_SEED, generateDemoWorld } from "./generate.js";
export { METACARTEL_GUILD_ID, METAFAM_GUILD_ID } from "./guilds.js";
export { type DemoIdKind, demoAddress, demoDiscordId, demoId } from "./ids.js";
export { type LoadDemoOptions, loadDemoData, resolveScale } from "./load.js";
export { DEMO_NOW, demoUsername } from "./people.js";
export { SHOWCASE } from "./quests.js";
export * from "./world.js";

export interface DemoPlayer {
  id: string;
  username: string;
  /** Lower-case, as the schema requires. */
  address: string;
}

/** Player n of the demo (1-based). */
export function demoPlayer(n: number): DemoPlayer {
  return { id: demoId("player", n), username: demoUsername(n), address: demoAddress("player", n) };
}

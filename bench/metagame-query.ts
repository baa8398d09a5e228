/**
 * The profile page of MetaGame's web client, the heaviest read it makes: one player by username
 * (as `getPlayer` in packages/web/graphql/getPlayer.ts of github.com/MetaFam/TheGame asks, with
 * `_ilike`) or by id, with the selection of its PlayerFragment (profile, skills, roles, accounts,
 * guilds, DAOs) plus the profile's colour aspect and explorer type, the quests the player posted
 * and their quest completions with each quest (the page's "quests" sections). The remote fields
 * of the fragment (brightid_status, daohausMemberships) are left out: they call third-party APIs,
 * not the database. Our own query text, same shape.
 *
 * Beside it, the hand-written SQL a careful developer would send for the same JSON: one statement
 * that builds the whole answer with json_build_object / json_agg, run by the direct baseline.
 */
import { demoUsername } from "@platform/metagame/demo";

const SELECTION = `
    id
    totalXP
    seasonXP
    rank
    ethereumAddress
    profileLayout
    profile {
      name
      username
      description
      emoji
      profileImageURL
      bannerImageURL
      backgroundImageURL
      location
      countryCode
      website
      pronouns
      availableHours
      timeZone
      colorMask
      explorerTypeTitle
      colorAspect { mask name description }
      explorerType { id title description imageURL }
    }
    skills { Skill { category id name } }
    roles(order_by: { rank: asc }) { role rank PlayerRole { label } }
    accounts(where: { type: { _in: [TWITTER, GITHUB, MEETWITHWALLET] } }) { identifier type }
    guilds { Guild { id guildname name logo } }
    daos { visible Dao { contractAddress network label url } }
    quests(order_by: { createdAt: desc }) {
      id title status repetition cooldown createdAt
      guild { name logo }
    }
    quest_completions(order_by: { submittedAt: desc }) {
      id status submittedAt submissionLink submissionText
      quest { id title repetition status }
    }`;

export const BY_USERNAME_QUERY = `query PlayerProfile($username: String!) {
  player(where: { profile: { username: { _ilike: $username } } }) {${SELECTION}
  }
}`;

export const BY_ID_QUERY = `query PlayerProfileById($id: uuid!) {
  player_by_pk(id: $id) {${SELECTION}
  }
}`;

/**
 * The same answer by hand: one statement, each level a `row_to_json` of a sub-select whose column
 * aliases are the GraphQL names (so the JSON is as compact as the engine's and the same size),
 * each list a `json_agg` with the ORDER BY the query asks for. `$1` is the username pattern
 * (ILIKE, as `_ilike`) or the player id; `{{WHERE}}` is replaced below, never by input.
 */
const PROFILE_SQL = `
SELECT p.id, p.total_xp AS "totalXP", p.season_xp AS "seasonXP", p.rank, p.ethereum_address AS "ethereumAddress",
  p.profile_layout AS "profileLayout",
  (SELECT row_to_json(f) FROM (
    SELECT f.name, f.username, f.description, f.emoji, f.profile_image_url AS "profileImageURL",
      f.banner_image_url AS "bannerImageURL", f.background_image_url AS "backgroundImageURL", f.location,
      f.country_code AS "countryCode", f.website, f.pronouns, f.available_hours AS "availableHours",
      f.time_zone AS "timeZone", f.color_mask AS "colorMask", f.explorer_type_title AS "explorerTypeTitle",
      (SELECT row_to_json(c) FROM (SELECT c.mask, c.name, c.description FROM "ColorAspect" c WHERE c.mask = f.color_mask) c) AS "colorAspect",
      (SELECT row_to_json(e) FROM (SELECT e.id, e.title, e.description, e.image_url AS "imageURL" FROM "ExplorerType" e
        WHERE e.title = f.explorer_type_title) e) AS "explorerType"
    FROM profile f WHERE f.player_id = p.id LIMIT 1) f) AS profile,
  (SELECT coalesce(json_agg(row_to_json(x)), '[]') FROM (
    SELECT (SELECT row_to_json(s) FROM (SELECT s.category, s.id, s.name) s) AS "Skill"
    FROM player_skill ps JOIN skill s ON s.id = ps.skill_id WHERE ps.player_id = p.id) x) AS skills,
  (SELECT coalesce(json_agg(row_to_json(x) ORDER BY x.rank), '[]') FROM (
    SELECT r.role, r.rank, (SELECT row_to_json(l) FROM (SELECT pr.label) l) AS "PlayerRole"
    FROM player_role r JOIN "PlayerRole" pr ON pr.role = r.role WHERE r.player_id = p.id) x) AS roles,
  (SELECT coalesce(json_agg(row_to_json(x)), '[]') FROM (
    SELECT a.identifier, a.type FROM player_account a
    WHERE a.player_id = p.id AND a.type IN ('TWITTER', 'GITHUB', 'MEETWITHWALLET')) x) AS accounts,
  (SELECT coalesce(json_agg(row_to_json(x)), '[]') FROM (
    SELECT (SELECT row_to_json(g) FROM (SELECT g.id, g.guildname, g.name, g.logo) g) AS "Guild"
    FROM guild_player gp JOIN guild g ON g.id = gp.guild_id WHERE gp.player_id = p.id) x) AS guilds,
  (SELECT coalesce(json_agg(row_to_json(x)), '[]') FROM (
    SELECT dp.visible, (SELECT row_to_json(d) FROM (SELECT d.contract_address AS "contractAddress", d.network, d.label, d.url) d) AS "Dao"
    FROM dao_player dp JOIN dao d ON d.id = dp.dao_id WHERE dp.player_id = p.id) x) AS daos,
  (SELECT coalesce(json_agg(row_to_json(x) ORDER BY x."createdAt" DESC), '[]') FROM (
    SELECT q.id, q.title, q.status, q.repetition, q.cooldown, q.created_at AS "createdAt",
      (SELECT row_to_json(g) FROM (SELECT g.name, g.logo) g) AS guild
    FROM quest q JOIN guild g ON g.id = q.guild_id WHERE q.created_by_player_id = p.id) x) AS quests,
  (SELECT coalesce(json_agg(row_to_json(x) ORDER BY x."submittedAt" DESC), '[]') FROM (
    SELECT c.id, c.status, c.submitted_at AS "submittedAt", c.submission_link AS "submissionLink",
      c.submission_text AS "submissionText", (SELECT row_to_json(q) FROM (SELECT q.id, q.title, q.repetition, q.status) q) AS quest
    FROM quest_completion c JOIN quest q ON q.id = c.quest_id WHERE c.completed_by_player_id = p.id) x) AS quest_completions
FROM player p
{{WHERE}}`;

/** By username: the list `player(where: ...)` answers, `[]` when nobody matches. */
export const BY_USERNAME_SQL = `SELECT coalesce(json_agg(row_to_json(t)), '[]')::text AS json FROM (${PROFILE_SQL.replace(
  "{{WHERE}}",
  "WHERE EXISTS (SELECT 1 FROM profile f WHERE f.player_id = p.id AND f.username ILIKE $1)",
)}) t`;

/** By id: the object `player_by_pk` answers, no row when there is none. */
export const BY_ID_SQL = `SELECT row_to_json(t)::text AS json FROM (${PROFILE_SQL.replace("{{WHERE}}", "WHERE p.id = $1")}) t`;

export type Scenario = "username" | "id";

/** The players whose pages are loaded, in turn: every 50th of the 10,000 (typical pages, not only the busiest). */
export function benchPlayers(players: number, count = 200): number[] {
  const step = Math.max(1, Math.floor(players / count));
  return Array.from({ length: Math.min(count, players) }, (_, i) => (i + 1) * step);
}

export function requestBody(scenario: Scenario, n: number, id: string): string {
  return scenario === "username"
    ? JSON.stringify({ query: BY_USERNAME_QUERY, variables: { username: demoUsername(n) } })
    : JSON.stringify({ query: BY_ID_QUERY, variables: { id } });
}

/** Lists the query leaves unordered (so either side may give them in any order) are compared sorted. */
const UNORDERED = new Set(["skills", "accounts", "guilds", "daos"]);

/** The answer with its unordered lists sorted: equal for two answers with the same content. */
export function canonical(value: unknown, key = ""): unknown {
  if (Array.isArray(value)) {
    const items = value.map((v) => canonical(v));
    return UNORDERED.has(key) ? items.map((v) => JSON.stringify(v)).sort() : items;
  }
  if (value !== null && typeof value === "object")
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, canonical(v, k)]));
  return value;
}

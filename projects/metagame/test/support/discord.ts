/**
 * A stand-in for Discord's REST API over real HTTP, holding servers' members and their roles:
 * it answers the calls the backend makes (members, one member, roles, channels, messages) and
 * applies role changes, so a test asserts both what was sent and the resulting state.
 */
import { type StandIn, type StandInAnswer, type StandInRequest, startStandIn } from "./stand-in.js";

export const BOT_TOKEN = "stand-in-bot-token";

export interface DiscordStandIn extends StandIn {
  /** server id -> user id -> role ids */
  members: Map<string, Map<string, string[]>>;
  /** Messages posted, by channel. */
  posted: Array<{ channel: string; content: string }>;
  /** Answer this status to every call while set (to exercise failures). */
  failWith: number | null;
}

export async function startDiscordStandIn(): Promise<DiscordStandIn> {
  const members = new Map<string, Map<string, string[]>>();
  const posted: DiscordStandIn["posted"] = [];
  let self: DiscordStandIn | undefined;
  const serverOf = (id: string) => members.get(id) ?? members.set(id, new Map()).get(id) ?? new Map<string, string[]>();

  const answer = (request: StandInRequest): StandInAnswer => {
    if (request.headers.authorization !== `Bot ${BOT_TOKEN}`) return { status: 401, body: { message: "401: Unauthorized", code: 0 } };
    const failWith = self?.failWith ?? null;
    if (failWith !== null) return { status: failWith, body: { message: "failing on purpose", code: 0 } };
    const url = new URL(request.path, "http://discord");
    const p = url.pathname.split("/").filter(Boolean);
    if (p[0] === "guilds" && p[2] === "members" && p.length === 3 && request.method === "GET") {
      const after = BigInt(url.searchParams.get("after") ?? "0");
      const limit = Number(url.searchParams.get("limit") ?? "1");
      const list = [...serverOf(p[1] ?? "")]
        .filter(([id]) => BigInt(id) > after)
        .sort(([a], [b]) => (BigInt(a) < BigInt(b) ? -1 : 1))
        .slice(0, limit)
        .map(([id, roles]) => ({ user: { id }, roles }));
      return { body: list };
    }
    if (p[0] === "guilds" && p[2] === "members" && p.length === 4 && request.method === "GET") {
      const roles = serverOf(p[1] ?? "").get(p[3] ?? "");
      return roles ? { body: { user: { id: p[3] }, roles } } : { status: 404, body: { message: "Unknown Member", code: 10007 } };
    }
    if (p[0] === "guilds" && p[2] === "members" && p[4] === "roles" && p.length === 6) {
      const server = serverOf(p[1] ?? "");
      const roles = server.get(p[3] ?? "");
      if (!roles) return { status: 404, body: { message: "Unknown Member", code: 10007 } };
      const role = p[5] ?? "";
      if (request.method === "PUT" && !roles.includes(role)) roles.push(role);
      if (request.method === "DELETE")
        server.set(
          p[3] ?? "",
          roles.filter((r) => r !== role),
        );
      return { status: 204 };
    }
    if (p[0] === "channels" && p[2] === "messages" && request.method === "POST") {
      posted.push({ channel: p[1] ?? "", content: (request.body as { content: string }).content });
      return { body: { id: "1" } };
    }
    return { status: 404, body: { message: "404: Not Found", code: 0 } };
  };

  self = Object.assign(await startStandIn(answer), { members, posted, failWith: null as number | null });
  return self;
}

/**
 * A real GraphQL client library subscribing against the platform as `npm start` starts it: urql,
 * its subscriptionExchange forwarding to graphql-ws's client (the `graphql-transport-ws`
 * protocol), mutations over HTTP with urql's fetchExchange, and a session JWT from the auth
 * service (a supabase-js sign-up, confirmed by the caught mail). Once directly on the engine's
 * WebSocket and once through the gateway (the key in the URL); and a JWT whose signature is wrong.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient as createSupabaseClient } from "@supabase/supabase-js";
import { Client, CombinedError, fetchExchange, type OperationResult, subscriptionExchange } from "@urql/core";
import { createClient as createWsClient, type Client as WsClient, type ClientOptions as WsClientOptions } from "graphql-ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { freePorts, type Platform, portEnv, startPlatform } from "./support/platform.js";

/** How long any one message, close or answer may take before the test fails rather than waits on. */
const WAIT_MS = 10_000;
/** The demo world's `metafam` guild (its id is fixed). */
const METAFAM = "f94b7cd4-cf29-4251-baa5-eaacab98a719";
const PASSWORD = "correct horse battery";

const MY_QUESTS = "subscription { me { id player { quests(order_by: {title: asc}) { title } } } }";
const CREATE_QUEST =
  "mutation ($quest: CreateQuestInput!) { createQuest(quest: $quest) { success error quest { title guild { guildname } } } }";

interface MyQuests {
  me: Array<{ id: string; player: { quests: Array<{ title: string }> } }>;
}
interface CreatedQuest {
  createQuest: { success: boolean; error: string | null; quest: { title: string; guild: { guildname: string } } | null };
}

const dir = mkdtempSync(join(tmpdir(), "platform-subscriptions-client-"));
let platform: Platform;
let anonKey: string;

beforeAll(async () => {
  platform = await startPlatform({ PLATFORM_DATA_DIR: join(dir, "data"), ...portEnv(await freePorts()) });
  anonKey = platform.ready.keys["anon key"] as string;
}, 120_000);

afterAll(async () => {
  await platform?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Values that arrive on their own (urql's results, the socket's closes), awaited one at a time, each within WAIT_MS. */
class Inbox<T> {
  private readonly arrived: T[] = [];
  private wake: (() => void) | undefined;

  readonly push = (value: T): void => {
    this.arrived.push(value);
    this.wake?.();
  };

  get pending(): readonly T[] {
    return this.arrived;
  }

  async next(what: string): Promise<T> {
    const deadline = Date.now() + WAIT_MS;
    while (this.arrived.length === 0) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`${what}: nothing arrived within ${WAIT_MS} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
    return this.arrived.shift() as T;
  }
}

interface Closed {
  code: number;
  reason: string;
  wasClean: boolean;
}

/** `ws` as graphql-ws's WebSocket, keeping every message the client sends. */
function recordingWebSocket(sent: Array<Record<string, unknown>>) {
  return class extends WebSocket {
    constructor(address: string, protocols?: string | string[]) {
      super(address, protocols);
      const send = this.send.bind(this);
      this.send = ((data: string, ...rest: never[]) => {
        sent.push(JSON.parse(String(data)) as Record<string, unknown>);
        send(data, ...rest);
      }) as WebSocket["send"];
    }
  };
}

interface UrqlOverWs {
  urql: Client;
  socket: WsClient;
  /** What the client sent on its sockets, in order (pongs to the server's keep-alive pings left out). */
  sent(): Array<Record<string, unknown>>;
  closes: Inbox<Closed>;
}

/**
 * urql as its documentation wires it to graphql-ws: subscriptions over the socket, everything else
 * over HTTP. graphql-ws retries no connection here unless told (a failure must show, not be retried away).
 */
function urqlOverWs(
  http: { url: string; headers: Record<string, string> },
  ws: { url: string; token: string },
  options: Partial<WsClientOptions> = {},
): UrqlOverWs {
  const sent: Array<Record<string, unknown>> = [];
  const closes = new Inbox<Closed>();
  const socket = createWsClient({
    url: ws.url,
    webSocketImpl: recordingWebSocket(sent),
    connectionParams: { headers: { Authorization: `Bearer ${ws.token}` } },
    retryAttempts: 0,
    on: {
      closed: (event) => {
        const { code, reason, wasClean } = event as Closed;
        closes.push({ code, reason: String(reason), wasClean });
      },
    },
    ...options,
  });
  const urql = new Client({
    url: http.url,
    fetchOptions: { headers: http.headers },
    exchanges: [
      subscriptionExchange({
        forwardSubscription: (request) => ({
          subscribe: (sink) => ({ unsubscribe: socket.subscribe({ ...request, query: request.query ?? "" }, sink) }),
        }),
      }),
      fetchExchange,
    ],
  });
  return { urql, socket, closes, sent: () => sent.filter((message) => message.type !== "pong") };
}

/** A new user, signed up with supabase-js through the gateway and confirmed by the link in the caught mail: its id and session JWT. */
async function signUp(email: string): Promise<{ id: string; token: string }> {
  const supabase = createSupabaseClient(platform.gateway, anonKey, {
    auth: { persistSession: false, autoRefreshToken: false },
    realtime: { transport: WebSocket as never },
  });
  const signedUp = await supabase.auth.signUp({ email, password: PASSWORD });
  if (signedUp.error) throw signedUp.error;
  const mail = await fetch(`${platform.gateway}/auth/v1/_mail.json?to=${encodeURIComponent(email)}`, { headers: { apikey: anonKey } });
  const [caught] = (await mail.json()) as Array<{ link: string }>;
  const token_hash = new URL(caught?.link as string).searchParams.get("token") as string;
  const { data, error } = await supabase.auth.verifyOtp({ type: "signup", token_hash });
  if (error) throw error;
  if (!data.user || !data.session) throw new Error(`no session for ${email}`);
  return { id: data.user.id, token: data.session.access_token };
}

const routes = {
  "directly on the engine's WebSocket": (token: string) => {
    const direct = platform.ready.urls["graphql (direct)"] as string; // http://127.0.0.1:<port>/v1/graphql
    return {
      http: { url: direct, headers: { authorization: `Bearer ${token}` } },
      ws: { url: direct.replace(/^http/, "ws"), token },
    };
  },
  "through the gateway, the anon key in the URL": (token: string) => ({
    http: { url: `${platform.gateway}/graphql/v1`, headers: { apikey: anonKey, authorization: `Bearer ${token}` } },
    ws: { url: `${platform.gateway.replace(/^http/, "ws")}/graphql/v1?apikey=${encodeURIComponent(anonKey)}`, token },
  }),
};

describe.each(Object.entries(routes))("urql subscribing with graphql-ws %s", (name, route) => {
  const slug = name.startsWith("directly") ? "direct" : "gateway";

  it("gets the player's quests, then the quest it creates with a urql mutation, and completes cleanly when unsubscribed", async () => {
    const user = await signUp(`urql-${slug}@example.com`);
    const { http, ws } = route(user.token);
    const { urql, socket, closes, sent } = urqlOverWs(http, ws);
    const results = new Inbox<OperationResult<MyQuests>>();
    const subscription = urql.subscription<MyQuests>(MY_QUESTS, {}).subscribe(results.push);
    try {
      // A new user is a player with no quests yet (the webhook made the player at connection_init).
      const first = await results.next("the subscription's first result");
      expect(first.error).toBeUndefined();
      expect(first.data).toEqual({ me: [{ id: user.id, player: { quests: [] } }] });

      const title = `Subscribe with urql (${slug})`;
      const created = await urql
        .mutation<CreatedQuest>(CREATE_QUEST, { quest: { guildId: METAFAM, title, roleIds: [], skillIds: [] } })
        .toPromise();
      expect(created.error).toBeUndefined();
      expect(created.data).toEqual({ createQuest: { success: true, error: null, quest: { title, guild: { guildname: "metafam" } } } });

      // The next poll finds the new quest and pushes the changed answer.
      const next = await results.next("the result with the new quest");
      expect(next.error).toBeUndefined();
      expect(next.data).toEqual({ me: [{ id: user.id, player: { quests: [{ title }] } }] });

      // Unsubscribing completes the operation; graphql-ws (lazy, nothing left to run) then closes its socket normally.
      subscription.unsubscribe();
      expect(await closes.next("the socket's close after unsubscribing")).toEqual({ code: 1000, reason: "Normal Closure", wasClean: true });
      const messages = sent();
      expect(messages).toEqual([
        { type: "connection_init", payload: { headers: { Authorization: `Bearer ${user.token}` } } },
        {
          id: expect.any(String),
          type: "subscribe",
          payload: { query: expect.stringContaining("quests(order_by: {title: asc})"), variables: {} },
        },
        { id: messages[1]?.id, type: "complete" },
      ]);
      expect(results.pending).toEqual([]);
    } finally {
      subscription.unsubscribe();
      await socket.dispose();
    }
    // Disposing the client opened nothing more.
    expect(closes.pending).toEqual([]);
  });
});

describe.each(Object.entries(routes))("urql with a session JWT whose signature is wrong, %s", (name, route) => {
  const slug = name.startsWith("directly") ? "direct" : "gateway";

  it("gets an error result carrying the socket's 4403 Forbidden close, after every retry is refused alike; over HTTP, access-denied", async () => {
    const user = await signUp(`urql-forged-${slug}@example.com`);
    const [header, payload, signature] = user.token.split(".") as [string, string, string];
    const forged = `${header}.${payload}.${signature.startsWith("A") ? "B" : "A"}${signature.slice(1)}`;
    const { http, ws } = route(forged);
    // graphql-ws retries a 4403 close (access might be granted on a retry, as after an expiry), by
    // default 5 times with a randomised exponential backoff of seconds; here twice, at once.
    const { urql, socket, closes, sent } = urqlOverWs(http, ws, { retryAttempts: 2, retryWait: async () => {} });
    let connecting = 0;
    socket.on("connecting", () => {
      connecting += 1;
    });
    const results = new Inbox<OperationResult<MyQuests>>();
    const subscription = urql.subscription<MyQuests>(MY_QUESTS, {}).subscribe(results.push);
    try {
      const refused = await results.next("the subscription's error result");
      expect(refused.data).toBeUndefined();
      expect(refused.error).toBeInstanceOf(CombinedError);
      expect(refused.error?.graphQLErrors).toEqual([]);
      // urql's networkError is the close event graphql-ws failed with; the engine refused connection_init.
      const { code, reason, wasClean } = (refused.error as CombinedError).networkError as unknown as Closed;
      expect({ code, reason, wasClean }).toEqual({ code: 4403, reason: "Forbidden", wasClean: true });

      // Three connections (the first and two retries), each refused at connection_init, nothing ever subscribed.
      expect(connecting).toBe(3);
      expect(closes.pending).toEqual(Array(3).fill({ code: 4403, reason: "Forbidden", wasClean: true }));
      expect(sent()).toEqual(Array(3).fill({ type: "connection_init", payload: { headers: { Authorization: `Bearer ${forged}` } } }));

      // The same token on urql's HTTP route: Hasura's GraphQL error from the refused webhook.
      const created = await urql
        .mutation<CreatedQuest>(CREATE_QUEST, { quest: { guildId: METAFAM, title: "Never created", roleIds: [], skillIds: [] } })
        .toPromise();
      expect(created.data).toBeUndefined();
      expect(created.error?.networkError).toBeUndefined();
      expect(created.error?.response?.status).toBe(200);
      expect(created.error?.graphQLErrors.map(({ message, extensions }) => ({ message, extensions }))).toEqual([
        { message: "Authentication hook unauthorized this request", extensions: { path: "$", code: "access-denied" } },
      ]);
      expect(created.error?.message).toBe("[GraphQL] Authentication hook unauthorized this request");
      expect(results.pending).toEqual([]);
    } finally {
      subscription.unsubscribe();
      await socket.dispose();
    }
  });
});

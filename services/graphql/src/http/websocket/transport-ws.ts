/**
 * The `graphql-transport-ws` protocol (https://github.com/enisdenjo/graphql-ws/blob/master/PROTOCOL.md),
 * served by the graphql-ws library's own server (`makeServer`) on a `ws` socket: its framing,
 * message validation and close codes are the library's (4400 bad message, 4401 subscribe before
 * the ack, 4403 refused `connection_init`, 4408 init timeout, 4409 duplicate id, 4429 second
 * init). What runs is the engine's: `connection_init` is authenticated by the connection
 * (connection.ts), and each `subscribe` is started there; the library is handed the result, an
 * answer or a stream of answers.
 *
 * As Hasura answers on this protocol, a refused operation is an `error` message followed by
 * `complete`. Answers go out as the engine wrote their JSON (digits of big numbers kept): the
 * library's messages carry a placeholder that the socket replaces with the answer's text.
 */
import { type GraphQLFormattedError, parse } from "graphql";
import { type ExecutionResult, makeServer, type Server } from "graphql-ws";
import { HasuraError } from "../../engine/errors/index.js";
import type { GraphQLRequest } from "../../engine/request/operation.js";
import type { Channel, ChannelOptions } from "./channel.js";
import type { Connection, OperationSink } from "./connection.js";

/** What the keep-alive sends once the connection is acknowledged. */
const KEEP_ALIVE = '{"type":"ping","payload":{"message":"keepalive"}}';

/** An answer's JSON text, spliced into the message the library writes. */
class RawJson {
  constructor(readonly text: string) {}
}

let placeholders = 0;
const pending = new Map<string, string>();
const PLACEHOLDER = /"\\u0001raw:(\d+)"/g;

/** The library's JSON.stringify replacer: an answer becomes a placeholder, its text kept for the socket to put back. */
function replacer(_key: string, value: unknown): unknown {
  if (!(value instanceof RawJson)) return value;
  placeholders += 1;
  const key = String(placeholders);
  pending.set(key, value.text);
  return `\u0001raw:${key}`;
}

function withAnswers(data: string): string {
  if (!data.includes("\\u0001raw:")) return data;
  return data.replace(PLACEHOLDER, (_match, key: string) => {
    const text = pending.get(key) ?? "null";
    pending.delete(key);
    return text;
  });
}

/** The answers of one operation, as the library takes them: a stream it iterates (and returns, to stop it). */
class Answers implements AsyncGenerator<ExecutionResult> {
  private readonly queue: RawJson[] = [];
  private waiting: ((result: IteratorResult<ExecutionResult>) => void) | undefined;
  private done = false;
  /** The operation's refusal or failure: its errors. */
  failure: GraphQLFormattedError[] | undefined;

  readonly sink: OperationSink = new AnswersSink(this);

  constructor(
    private readonly connection: Connection,
    private readonly id: string,
  ) {}

  push(answer: RawJson): void {
    if (this.done) return;
    const waiting = this.waiting;
    if (waiting) {
      this.waiting = undefined;
      waiting({ value: answer as unknown as ExecutionResult, done: false });
    } else this.queue.push(answer);
  }

  end(): void {
    this.done = true;
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.({ value: undefined, done: true });
  }

  /** The one answer of a query or a mutation. */
  first(): ExecutionResult {
    return (this.queue.shift() ?? new RawJson("null")) as unknown as ExecutionResult;
  }

  next(): Promise<IteratorResult<ExecutionResult>> {
    // A refused operation's stream fails at once: the library answers that with an `error` message.
    if (this.failure) return Promise.reject(new Error("the operation was refused"));
    const answer = this.queue.shift();
    if (answer) return Promise.resolve({ value: answer as unknown as ExecutionResult, done: false });
    if (this.done) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  return(): Promise<IteratorResult<ExecutionResult>> {
    this.connection.stop(this.id);
    this.end();
    return Promise.resolve({ value: undefined, done: true });
  }

  throw(error: unknown): Promise<IteratorResult<ExecutionResult>> {
    this.return();
    return Promise.reject(error);
  }

  [Symbol.asyncIterator](): AsyncGenerator<ExecutionResult> {
    return this;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.return();
  }
}

/** Where the connection sends an operation's answers: into its stream. */
class AnswersSink implements OperationSink {
  constructor(private readonly answers: Answers) {}
  next(body: string): void {
    this.answers.push(new RawJson(body));
  }
  error(body: string): void {
    this.answers.failure = (JSON.parse(body) as { errors: GraphQLFormattedError[] }).errors;
  }
  complete(): void {
    this.answers.end();
  }
}

/** The id of a `complete` message, if it is one. */
function completedId(text: string): string | undefined {
  try {
    const message = JSON.parse(text) as { type?: unknown; id?: unknown };
    return message.type === "complete" && typeof message.id === "string" ? message.id : undefined;
  } catch {
    // Not JSON: not a `complete` (the library answers the unreadable message itself).
    return undefined;
  }
}

/** Documents the library reads only the operation's kind from (what runs is the engine's). */
const QUERY = parse("query { __typename }");
const SUBSCRIPTION = parse("subscription { __typename }");

interface Extra {
  connection: Connection;
  /** The errors of refused operations, by id, for the `error` message the library sends. */
  failures: Map<string, GraphQLFormattedError[]>;
}

/**
 * The protocol's server: the library's `makeServer`, made once (its hooks read the socket's own
 * state from `extra`), and what serves one socket with it.
 */
export function transportWsServer(options: ChannelOptions): (channel: Channel) => void {
  const { onError } = options;
  const server = makeServer<Record<string, unknown> | undefined, Extra>({
    connectionInitWaitTimeout: options.initTimeoutMs,
    jsonMessageReplacer: replacer,
    onConnect: async (ctx) => {
      try {
        await ctx.extra.connection.init(ctx.connectionParams);
        return true;
      } catch (error) {
        // Refused credentials are the protocol's 4403; anything else is a fault, logged as well.
        if (!(error instanceof HasuraError)) onError(error);
        return false;
      }
    },
    onSubscribe: async (ctx, id, payload) => {
      const answers = new Answers(ctx.extra.connection, id);
      await ctx.extra.connection.start(id, payload as GraphQLRequest, answers.sink);
      // A refusal is a stream that fails at once (the library's errors are made with its own
      // GraphQLError class, which need not be this module's): its `error` message carries ours.
      if (answers.failure) ctx.extra.failures.set(id, answers.failure);
      const subscription = answers.failure !== undefined || ctx.extra.connection.has(id);
      return { schema: undefined as never, document: subscription ? SUBSCRIPTION : QUERY, contextValue: answers };
    },
    execute: (args) => (args.contextValue as Answers).first(),
    subscribe: (args) => args.contextValue as Answers,
    onNext: (_ctx, _id, _payload, _args, result) => result as never,
    onError: (ctx, id, _payload, errors) => {
      const failure = ctx.extra.failures.get(id);
      ctx.extra.failures.delete(id);
      return failure ?? errors.map((e) => e.toJSON());
    },
  });
  return (channel) => serve(server, channel);
}

function serve(server: Server<Extra>, channel: Channel): void {
  const { ws, connection, options } = channel;
  const closed = server.opened(
    {
      protocol: ws.protocol,
      send: (data) => {
        channel.send(withAnswers(data));
        // Hasura completes a refused operation after its error.
        const refused = /^\{"id":("(?:[^"\\]|\\.)*"),"type":"error"/.exec(data);
        if (refused) channel.send(`{"id":${refused[1]},"type":"complete"}`);
        // The ack starts the keep-alive pings (Hasura's HASURA_GRAPHQL_WEBSOCKET_KEEPALIVE).
        if (channel.keepAlive === undefined && data.includes('"type":"connection_ack"')) channel.keepAlive = KEEP_ALIVE;
      },
      close: (code, reason) => ws.close(code, reason),
      onMessage: (cb) =>
        ws.on("message", (data) => {
          const text = String(data);
          // The library stops only what it already iterates: a query or a subscription still
          // starting (inside onSubscribe) is stopped here, its statement cancelled.
          const completed = text.includes("complete") ? completedId(text) : undefined;
          if (completed !== undefined) connection.stop(completed);
          cb(text).catch((error: unknown) => {
            options.onError(error);
            ws.close(4500, "Internal server error");
          });
        }),
    },
    { connection, failures: new Map() },
  );
  ws.once("close", (code, reason) => {
    connection.close();
    closed(code, String(reason)).catch(options.onError);
  });
}

/**
 * The actions webhook of Hasura's tests-py, ported: hasura/graphql-engine server/tests-py/context.py
 * `ActionsWebhookServer` / `ActionsWebhookHandler` (started per test class by conftest.py's
 * `actions_fixture`, which hands its URL to the engine as ACTION_WEBHOOK_HANDLER).
 *
 * The fixtures' expected bodies quote what this server answers (for instance the `internal.response`
 * of an "unexpected response" error lists exactly its two headers), so the port reproduces the
 * Python server on the wire, not just its JSON:
 * - `http.server.HTTPServer` (not the threading variant) handles one request at a time: requests
 *   queue here and run in arrival order, so a route that sleeps holds up the next request.
 * - `BaseHTTPRequestHandler` speaks HTTP/1.0: status line `HTTP/1.0 <code> <phrase>`, the body runs
 *   to the end of the connection (no Content-Length), and the connection closes after each answer.
 *   `_send_response` uses `send_response_only`, so the answer carries exactly `Content-Type:
 *   application/json` and `Set-Cookie: abcd` (no Date, no Server); routes answered with
 *   `send_response` (GET, unknown paths) carry Server and Date and no body.
 * - bodies are `json.dumps` output (python-json.ts), requests are read as `json.loads` reads them;
 *   where the Python handler raises (no Content-Length, a body that is not JSON, a missing key, the
 *   `map` object /get-users-by-email-nested returns for lists) the connection closes with whatever
 *   was written so far, as socketserver's handle_error does.
 * - callbacks into the engine (create-user, get-user-by-email, ...) POST to `<hge_url>/v1/graphql`
 *   with `X-Hasura-Admin-Secret` when the engine has one (`requests.post(..., timeout=60)`).
 * Responses are written on the request's socket, since Node's ServerResponse always frames
 * HTTP/1.1 bodies and adds Date/Connection headers.
 */
import http, { type IncomingMessage, STATUS_CODES } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { contains, dict, dumps, fromJs, iterate, loads, type Py, PyError, PyMapObject, path as pyPath, setItem } from "./python-json.js";

/** `BaseHTTPRequestHandler.version_string()`; the Python minor version is not pinned upstream. */
const SERVER_HEADER = "BaseHTTP/0.6 Python/3.11";

export interface ActionsWebhookServer {
  /** `ActionsWebhookServer.url`: `http://host:port`, the value of ACTION_WEBHOOK_HANDLER. */
  readonly url: string;
  /** The engine the handlers call back into (known only once the engine listens). */
  setEngine(hgeUrl: string, hgeKey?: string): void;
  /** What `log_message` would have printed, oldest first. */
  readonly log: string[];
  close(): Promise<void>;
}

interface Handled {
  status: number;
  body: Py;
}

/** `re.search('^\\w+([\\.-]?\\w+)*@\\w+([\\.-]?\\w+)*(\\.\\w{2,3})+$', email)`: Python's \w is Unicode and its $ also matches before a final newline. */
const EMAIL = /^[\p{L}\p{N}_]+([.-]?[\p{L}\p{N}_]+)*@[\p{L}\p{N}_]+([.-]?[\p{L}\p{N}_]+)*(\.[\p{L}\p{N}_]{2,3})+\n?$/u;

function checkEmail(email: Py): boolean {
  if (typeof email !== "string") throw new PyError("TypeError: expected string or bytes-like object");
  return EMAIL.test(email);
}

const BAD_REQUEST = 400;
const OK = 200;

/** One request as ActionsWebhookHandler sees it. */
class Handler {
  constructor(
    readonly reqJson: Py,
    readonly rawHeaders: string[],
    readonly engine: { url?: string; key?: string },
    readonly logMessage: (line: string) => void,
  ) {}

  async executeQuery(query: Py): Promise<{ code: number; resp: Py }> {
    if (!this.engine.url) throw new PyError("requests.exceptions.MissingSchema: the engine URL is not known yet");
    const headers: Record<string, string> = { "Content-Type": "application/json" };
    if (this.engine.key !== undefined) headers["X-Hasura-Admin-Secret"] = this.engine.key;
    let response: Response;
    try {
      response = await fetch(`${this.engine.url}/v1/graphql`, {
        method: "POST",
        headers,
        body: dumps(query),
        signal: AbortSignal.timeout(60_000),
      });
    } catch (error) {
      throw new PyError(`requests.exceptions.ConnectionError: ${(error as Error).message}`);
    }
    const data = loads(await response.text());
    this.logMessage(dumps(data));
    return { code: response.status, resp: data };
  }

  failed(): Handled {
    return { status: BAD_REQUEST, body: dict({ message: "GraphQL query execution failed", code: "unexpected" }) };
  }

  invalidEmail(message = "Given email address is not valid"): Handled {
    return { status: BAD_REQUEST, body: dict({ message, code: "invalid-email" }) };
  }

  intentionalError(): Handled {
    return { status: BAD_REQUEST, body: pyPath(this.reqJson, "input", "blob") };
  }

  async insertUserOne(): Promise<Handled | Py> {
    const email = pyPath(this.reqJson, "input", "email");
    const name = pyPath(this.reqJson, "input", "name");
    if (!checkEmail(email)) return this.invalidEmail();
    const gqlQuery = `
        mutation ($email: String! $name: String!) {
          insert_user_one(object: {email: $email, name: $name}){
            id
          }
        }
        `;
    const { code, resp } = await this.executeQuery(dict({ query: gqlQuery, variables: dict({ email, name }) }));
    if (code !== 200 || !contains(resp, "data")) return this.failed();
    return pyPath(resp, "data", "insert_user_one");
  }

  async createUser(): Promise<Handled> {
    const result = await this.insertUserOne();
    return isHandled(result) ? result : { status: OK, body: result };
  }

  async createUserNested(): Promise<Handled> {
    const result = await this.insertUserOne();
    return isHandled(result) ? result : { status: OK, body: dict({ userObj: result }) };
  }

  async createUsers(): Promise<Handled> {
    const inputs = pyPath(this.reqJson, "input", "users");
    for (const input of iterate(inputs)) {
      const email = pyPath(input, "email");
      if (!checkEmail(email)) return this.invalidEmail(`Email address is not valid: ${email as string}`);
    }
    const gqlQuery = `
        mutation ($insert_inputs: [user_insert_input!]!){
          insert_user(objects: $insert_inputs){
            returning{
              id
            }
          }
        }
        `;
    const { code, resp } = await this.executeQuery(dict({ query: gqlQuery, variables: dict({ insert_inputs: inputs }) }));
    if (code !== 200 || !contains(resp, "data")) return this.failed();
    return { status: OK, body: pyPath(resp, "data", "insert_user", "returning") };
  }

  async getUsersByEmail(singleUser: boolean): Promise<Handled> {
    const email = pyPath(this.reqJson, "input", "email");
    if (!checkEmail(email)) return this.invalidEmail();
    const gqlQuery = `
        query get_user($email:String!) {
           user(where:{email:{_eq:$email}},order_by: {id: asc}) {
            id
        }
        }
        `;
    const { code, resp } = await this.executeQuery(dict({ query: gqlQuery, variables: dict({ email }) }));
    if (code !== 200 || !contains(resp, "data")) return this.failed();
    return { status: OK, body: singleUser ? pyPath(resp, "data", "user", 0) : pyPath(resp, "data", "user") };
  }

  async getUsersByEmailNested(singleUser: boolean): Promise<Handled> {
    const { status, body } = await this.getUsersByEmail(singleUser);
    const makeNestedOutObject = (outObj: Py): Py => {
      setItem(outObj, "address", dict({ city: "New York", country: "USA" }));
      setItem(outObj, "addresses", [dict({ city: "Bangalore", country: "India" }), dict({ city: "Melbourne", country: "Australia" })]);
      setItem(outObj, "user_id", dict({ id: pyPath(outObj, "id") }));
      return outObj;
    };
    if (status !== OK) return { status, body };
    // Python 3's map() is lazy: json.dumps later refuses it (see dumps), after the headers went out.
    return { status, body: singleUser ? makeNestedOutObject(body) : new PyMapObject(iterate(body).map(makeNestedOutObject)) };
  }

  mirrorHeaders(): Handled {
    const headers: Py[] = [];
    for (let i = 0; i + 1 < this.rawHeaders.length; i += 2)
      headers.push(dict({ name: this.rawHeaders[i] as string, value: this.rawHeaders[i + 1] as string }));
    return { status: OK, body: dict({ headers }) };
  }

  /** `do_POST`'s routes; undefined for a path it does not know (answered 204). */
  async route(reqPath: string): Promise<Handled | undefined> {
    switch (reqPath) {
      case "/create-user":
        return this.createUser();
      case "/create-user-timeout":
        await new Promise((resolve) => setTimeout(resolve, 3000));
        return this.createUser();
      case "/create-users":
        return this.createUsers();
      case "/create-user-nested":
        return this.createUserNested();
      case "/mirror-action":
        return { status: OK, body: pyPath(this.reqJson, "input", "arg") };
      case "/mirror-headers":
        return this.mirrorHeaders();
      case "/get-user-by-email":
        return this.getUsersByEmail(true);
      case "/get-user-by-email-nested":
        return this.getUsersByEmailNested(true);
      case "/get-users-by-email":
        return this.getUsersByEmail(false);
      case "/get-users-by-email-nested":
        return this.getUsersByEmailNested(false);
      case "/intentional-error":
        return this.intentionalError();
      case "/null-response":
        return { status: OK, body: null };
      case "/omitted-response-field":
        return { status: OK, body: dict({ country: "India" }) };
      case "/scalar-response":
        return { status: OK, body: "some-string" };
      case "/json-response":
        return { status: OK, body: dict({ foo: "bar" }) };
      case "/custom-scalar-array-response":
        return { status: OK, body: [dict({ foo: "bar" })] };
      case "/scalar-array-response":
        return { status: OK, body: ["foo", "bar", null] };
      case "/recursive-output":
        return {
          status: OK,
          body: fromJs({
            direct: { id: 1, this: { id: 2, this: { id: 3 } } },
            list: { id: 1, these: [{ id: 2, these: [{ id: 3 }] }, { id: 4 }] },
            mutual: { id: 1, that: { id: 2, other: { id: 3, that: { id: 4 } } } },
          }),
        };
      case "/get-results":
        return { status: OK, body: fromJs({ result_ids: [1, 2, 3, 4] }) };
      case "/typed-nested-null":
        return { status: OK, body: fromJs({ id: 1, child: null }) };
      case "/typed-nested-null-wrong-field":
        return { status: OK, body: fromJs({ id: null, child: null }) };
      case "/get_messages":
        return {
          status: OK,
          body: fromJs([
            { content: "baz", user_name: "foo" },
            { content: "foo", user_name: "bar" },
          ]),
        };
      default:
        return undefined;
    }
  }
}

function isHandled(value: Handled | Py): value is Handled {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Map) && "status" in value;
}

function statusLine(code: number, phrase = STATUS_CODES[code] ?? ""): string {
  return `HTTP/1.0 ${code} ${phrase}\r\n`;
}

/** `send_response(code)` + `end_headers()`: Server and Date, no body. */
function bareAnswer(code: number): string {
  return `${statusLine(code)}Server: ${SERVER_HEADER}\r\nDate: ${new Date().toUTCString()}\r\n\r\n`;
}

/** `send_error(501, "Unsupported method (%r)")` for methods the handler has no do_* for. */
function unsupported(method: string): string {
  const message = `Unsupported method ('${method}')`;
  const escaped = message.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  const explain = "Server does not support this operation";
  const body = `<!DOCTYPE HTML>
<html lang="en">
    <head>
        <meta charset="utf-8">
        <title>Error response</title>
    </head>
    <body>
        <h1>Error response</h1>
        <p>Error code: 501</p>
        <p>Message: ${escaped}.</p>
        <p>Error code explanation: 501 - ${explain}.</p>
    </body>
</html>
`;
  const head = `${statusLine(501, message)}Server: ${SERVER_HEADER}\r\nDate: ${new Date().toUTCString()}\r\nConnection: close\r\n`;
  const content = `Content-Type: text/html;charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`;
  return head + content + (method === "HEAD" ? "" : body);
}

/** A request's whole body. */
export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

export async function startActionsWebhook(
  options: { host?: string; hgeUrl?: string; hgeKey?: string } = {},
): Promise<ActionsWebhookServer> {
  const engine: { url?: string; key?: string } = { url: options.hgeUrl, key: options.hgeKey };
  const log: string[] = [];
  const verbose = Boolean(process.env.CONFORMANCE_WEBHOOK_LOG);
  const logMessage = (line: string) => {
    log.push(line);
    if (verbose) process.stderr.write(`actions webhook: ${line}\n`);
  };
  let queue: Promise<void> = Promise.resolve();

  async function handle(req: IncomingMessage, socket: Socket): Promise<void> {
    const body = await readBody(req);
    const method = req.method ?? "";
    const reqPath = req.url ?? "";
    if (method === "GET") {
      logMessage(`"GET ${reqPath}" 200`);
      socket.end(bareAnswer(OK));
      return;
    }
    if (method !== "POST") {
      logMessage(`"${method} ${reqPath}" 501`);
      socket.end(unsupported(method));
      return;
    }
    let headersSent = false;
    try {
      // content_len = self.headers.get('Content-Length'); self.rfile.read(int(content_len)).decode("utf-8")
      if (req.headers["content-length"] === undefined) throw new PyError("TypeError: int() argument must be a string, not 'NoneType'");
      let text: string;
      try {
        text = new TextDecoder("utf-8", { fatal: true }).decode(body);
      } catch {
        throw new PyError("UnicodeDecodeError: 'utf-8' codec can't decode the request body");
      }
      const reqJson = loads(text);
      logMessage(dumps(reqJson));
      const handler = new Handler(reqJson, req.rawHeaders, engine, logMessage);
      const answer = await handler.route(reqPath);
      if (!answer) {
        logMessage(`"POST ${reqPath}" 204`);
        socket.end(bareAnswer(204));
        return;
      }
      // _send_response: the status line and headers are flushed before json.dumps runs.
      logMessage(`"POST ${reqPath}" ${answer.status}`);
      socket.write(`${statusLine(answer.status)}Content-Type: application/json\r\nSet-Cookie: abcd\r\n\r\n`);
      headersSent = true;
      socket.end(dumps(answer.body));
    } catch (error) {
      // socketserver.handle_error prints the traceback and the connection is shut down.
      logMessage(`exception handling POST ${reqPath}${headersSent ? " (after the headers)" : ""}: ${(error as Error).message}`);
      socket.end();
    }
  }

  const server = http.createServer((req, res) => {
    const socket = res.socket ?? req.socket;
    const job = () => handle(req, socket);
    queue = queue.then(job, job).catch((error: unknown) => {
      logMessage(`webhook failure: ${(error as Error).message}`);
      socket.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, options.host ?? "127.0.0.1", () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${address.address}:${address.port}`,
    setEngine(hgeUrl, hgeKey) {
      engine.url = hgeUrl.replace(/\/$/, "");
      engine.key = hgeKey;
    },
    log,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

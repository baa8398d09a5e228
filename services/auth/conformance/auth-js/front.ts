/**
 * What stands in front of each server on the port the tests use: a plain pass-through for the
 * docker-compose servers (the tests talk to GoTrue directly there), and for the CLI server what
 * the CLI's Kong route `auth-v1` does (strip `/auth/v1`; Authorization is kept unless it is a
 * `Bearer sb_` key, else it becomes the apikey header as sent). Every exchange is appended to a
 * JSON-lines traffic log (bodies cut at 4 kB) so a failing test can be matched to what was asked
 * and answered.
 */
import { appendFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, request, type Server } from "node:http";

export interface Front {
  close(): Promise<void>;
}

const LIMIT = 4096;
const cut = (body: Buffer) => (body.length > LIMIT ? `${body.subarray(0, LIMIT).toString("utf8")}…` : body.toString("utf8"));

function kongHeaders(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const authorization = headers.authorization;
  if (authorization !== undefined && !authorization.startsWith("Bearer sb_")) return headers;
  const { authorization: _dropped, ...rest } = headers;
  const apikey = headers.apikey;
  return apikey === undefined ? rest : { ...rest, authorization: Array.isArray(apikey) ? apikey[0] : apikey };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
}

export async function startFront(options: {
  name: string;
  port: number;
  prefix: string;
  target: number;
  trafficLog: string;
}): Promise<Front> {
  const { name, prefix, target, trafficLog } = options;
  const handler = (req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const url = req.url ?? "/";
      const path = prefix && url.startsWith(prefix) ? url.slice(prefix.length) || "/" : url;
      const headers = prefix ? kongHeaders(req.headers) : req.headers;
      const at = new Date().toISOString();
      const upstream = request({ host: "127.0.0.1", port: target, method: req.method, path, headers }, (answer) => {
        const out: Buffer[] = [];
        answer.on("data", (chunk: Buffer) => out.push(chunk));
        answer.on("end", () => {
          const response = Buffer.concat(out);
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          res.end(response);
          const entry = {
            at,
            server: name,
            method: req.method,
            url,
            status: answer.statusCode,
            request: cut(body),
            response: cut(response),
          };
          appendFileSync(trafficLog, `${JSON.stringify(entry)}\n`);
        });
      });
      upstream.on("error", (error) => {
        res.writeHead(502, { "content-type": "text/plain" });
        res.end(`front: ${error.message}`);
        appendFileSync(trafficLog, `${JSON.stringify({ at, server: name, method: req.method, url, status: 502, error: error.message })}\n`);
      });
      upstream.end(body);
    });
  };
  // Both loopback families: "localhost" may resolve to ::1 first.
  const servers = [createServer(handler)];
  await listen(servers[0] as Server, options.port, "127.0.0.1");
  const v6 = createServer(handler);
  try {
    await listen(v6, options.port, "::1");
    servers.push(v6);
  } catch (error) {
    // No IPv6 loopback here: 127.0.0.1 alone. Anything else (the port taken) is an error.
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "EADDRNOTAVAIL" && code !== "EAFNOSUPPORT") throw error;
  }
  return {
    close: async () => {
      await Promise.all(
        servers.map((s) => {
          s.closeAllConnections();
          return new Promise<void>((resolve) => s.close(() => resolve()));
        }),
      );
    },
  };
}

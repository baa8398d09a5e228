/**
 * Before anything starts: is every port `npm start` will listen on free? A newcomer often has
 * another stack on the same ports (Supabase's gateway is 54321 too); one message naming each
 * taken port and the setting that moves it beats a stack trace after the databases are open.
 */
import { createServer } from "node:net";
import { ConfigError } from "@platform/core";

export interface Listener {
  service: string;
  /** The setting that changes the port. */
  setting: string;
  host: string;
  port: number;
}

/** Why `port` on `host` cannot be listened on, or null when it can. */
function probe(host: string, port: number): Promise<string | null> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "EADDRINUSE") resolve("is already in use");
      else if (error.code === "EACCES") resolve("needs privileges this process lacks");
      else resolve(`cannot be listened on (${error.code ?? error.message})`);
    });
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(null)));
  });
}

/** Throws a ConfigError naming every listener whose port is taken. */
export async function checkPorts(listeners: Listener[]): Promise<void> {
  const problems: string[] = [];
  for (const listener of listeners) {
    const reason = await probe(listener.host, listener.port);
    if (reason) {
      problems.push(
        `${listener.setting}: port ${listener.port} on ${listener.host} (${listener.service}) ${reason}; stop what uses it or set ${listener.setting} to another port (0 picks a free one)`,
      );
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
}

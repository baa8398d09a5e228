/**
 * The console's scripts and styles, served from this server instead of a CDN so the console
 * works offline: GraphiQL, React and ReactDOM (UMD builds) and GraphiQL's explorer plugin, out
 * of node_modules, plus the page's own script and style. Each file is read once, on the first
 * console request, and named after a hash of its content, so browsers may keep it forever.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { CONSOLE_CSS, CONSOLE_SCRIPT } from "./console-script.js";

export interface ConsoleAsset {
  /** The file name under /console/assets/, e.g. `graphiql.min.1a2b3c4d5e.js`. */
  name: string;
  contentType: string;
  body: Buffer;
}

/** The assets in the order the page loads them. */
export interface ConsoleAssets {
  styles: ConsoleAsset[];
  scripts: ConsoleAsset[];
  byName: Map<string, ConsoleAsset>;
}

const JS = "text/javascript; charset=utf-8";
const CSS = "text/css; charset=utf-8";

// Packages whose `exports` hide their UMD files are located through their package.json.
const require = createRequire(import.meta.url);
const packageFile = (pkg: string, file: string): string => join(dirname(require.resolve(`${pkg}/package.json`)), file);

function asset(base: string, extension: "js" | "css", body: Buffer): ConsoleAsset {
  const hash = createHash("sha256").update(body).digest("hex").slice(0, 10);
  return { name: `${base}.${hash}.${extension}`, contentType: extension === "js" ? JS : CSS, body };
}

function load(): ConsoleAssets {
  const read = (pkg: string, file: string) => readFileSync(packageFile(pkg, file));
  const styles = [
    asset("graphiql.min", "css", read("graphiql", "graphiql.min.css")),
    asset("plugin-explorer", "css", read("@graphiql/plugin-explorer", "dist/style.css")),
    asset("console", "css", Buffer.from(CONSOLE_CSS)),
  ];
  // GraphiQL's UMD build reads the globals React and ReactDOM; the explorer's reads React and GraphiQL.
  const scripts = [
    asset("react.production.min", "js", read("react", "umd/react.production.min.js")),
    asset("react-dom.production.min", "js", read("react-dom", "umd/react-dom.production.min.js")),
    asset("graphiql.min", "js", read("graphiql", "graphiql.min.js")),
    asset("plugin-explorer.umd", "js", read("@graphiql/plugin-explorer", "dist/index.umd.js")),
    // graphql-ws's client (the global `graphqlWs`): subscriptions run over the engine's WebSocket.
    asset("graphql-ws.min", "js", read("graphql-ws", "umd/graphql-ws.min.js")),
    asset("console", "js", Buffer.from(CONSOLE_SCRIPT)),
  ];
  return { styles, scripts, byName: new Map([...styles, ...scripts].map((a) => [a.name, a])) };
}

let loaded: ConsoleAssets | undefined;

/** The assets, read on first use and kept. */
export function consoleAssets(): ConsoleAssets {
  loaded ??= load();
  return loaded;
}

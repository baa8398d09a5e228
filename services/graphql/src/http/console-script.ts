/**
 * The console page's own script and style, served as assets (console-assets.ts) so the page
 * needs no inline script. The script reads its settings from the page's JSON block
 * `#console-config` (`{"adminSecret": string | null}`) and renders GraphiQL with the explorer.
 * Subscriptions run over the engine's WebSocket with graphql-ws's client, `connection_init`
 * carrying the headers editor's headers (a change of them reconnects).
 */

// Browser code, run as a classic script after the React, ReactDOM, GraphiQL and explorer UMD builds.
export const CONSOLE_SCRIPT = `"use strict";
(() => {
  const SECRET_HEADER = "x-hasura-admin-secret";
  // A secret typed into the headers editor is kept for the browser tab, so a reload keeps it.
  const STORED_SECRET = "hasura-admin-secret";
  const storage = {
    get() { try { return sessionStorage.getItem(STORED_SECRET); } catch { return null; } },
    set(value) {
      try { value ? sessionStorage.setItem(STORED_SECRET, value) : sessionStorage.removeItem(STORED_SECRET); }
      // Storage refused (disabled or full): the secret is then only not kept across a reload.
      catch { return; }
    },
  };
  const config = JSON.parse(document.getElementById("console-config").textContent);
  const secret = config.adminSecret || storage.get();
  const headers = secret ? JSON.stringify({ [SECRET_HEADER]: secret }, null, 2) : undefined;
  let currentHeaders = secret ? { [SECRET_HEADER]: secret } : {};
  // Relative to the page: the engine's /v1/graphql beside /console, also behind a proxy or under a path prefix.
  const url = new URL("v1/graphql", location.href);
  const socketUrl = new URL(url);
  socketUrl.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  const wsClient = graphqlWs.createClient({
    url: socketUrl.toString(),
    lazy: true,
    connectionParams: () => ({ headers: currentHeaders }),
  });
  const rememberSecret = (text) => {
    try {
      const parsed = JSON.parse(text);
      storage.set(parsed && typeof parsed[SECRET_HEADER] === "string" ? parsed[SECRET_HEADER] : null);
      currentHeaders = parsed && typeof parsed === "object" ? parsed : {};
      // The socket's session comes from connection_init: new headers, a new connection.
      wsClient.terminate();
    } catch {
      // Headers half-typed are not JSON yet; the next edit is read again.
      return;
    }
  };
  const httpFetcher = GraphiQL.createFetcher({ url: url.toString(), wsClient });
  // The operation a request runs: its kind, read from the text (GraphiQL's own test reads an AST
  // the editor may not have parsed yet when a query is run right after it is typed).
  const operationKind = (text, name) => {
    const source = String(text).replace(/"""[\\s\\S]*?"""|"(?:[^"\\\\\\n]|\\\\.)*"|#[^\\n]*/g, " ");
    const kinds = [];
    let depth = 0;
    const word = /[_A-Za-z][_0-9A-Za-z]*|[{}()]/g;
    let token;
    let pending;
    while ((token = word.exec(source))) {
      const t = token[0];
      if (t === "{" || t === "(") {
        if (depth === 0 && t === "{" && pending === undefined) kinds.push({ kind: "query", name: undefined });
        if (depth === 0 && pending) { kinds.push(pending); pending = null; }
        depth += 1;
      } else if (t === "}" || t === ")") depth -= 1;
      else if (depth === 0) {
        if (pending && pending.name === undefined && !["on"].includes(t)) pending.name = t;
        else if (["query", "mutation", "subscription"].includes(t)) pending = { kind: t, name: undefined };
        else if (t === "fragment") pending = { kind: "fragment", name: undefined };
      }
    }
    const operations = kinds.filter((k) => k.kind !== "fragment");
    const chosen = name ? operations.find((k) => k.name === name) : operations[0];
    return chosen ? chosen.kind : "query";
  };
  const fetcher = (params, options) => {
    if (operationKind(params.query, params.operationName) !== "subscription") return httpFetcher(params, options);
    return {
      [Symbol.asyncIterator]() {
        return wsClient.iterate({ query: params.query, variables: params.variables, operationName: params.operationName });
      },
    };
  };
  const explorer = GraphiQLPluginExplorer.explorerPlugin();
  ReactDOM.createRoot(document.getElementById("graphiql")).render(
    React.createElement(GraphiQL, {
      fetcher,
      headers,
      onEditHeaders: rememberSecret,
      plugins: [explorer],
      visiblePlugin: explorer,
      defaultEditorToolsVisibility: headers ? "headers" : true,
    }),
  );
})();
`;

export const CONSOLE_CSS = `body { margin: 0; height: 100vh; }
#graphiql { height: 100vh; }
`;

/**
 * The console page's own script and style, served as assets (console-assets.ts) so the page
 * needs no inline script. The script reads its settings from the page's JSON block
 * `#console-config` (`{"adminSecret": string | null}`) and renders GraphiQL with the explorer.
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
  const rememberSecret = (text) => {
    try {
      const parsed = JSON.parse(text);
      storage.set(parsed && typeof parsed[SECRET_HEADER] === "string" ? parsed[SECRET_HEADER] : null);
    } catch {
      // Headers half-typed are not JSON yet; the next edit is read again.
      return;
    }
  };
  // Relative to the page: the engine's /v1/graphql beside /console, also behind a proxy or under a path prefix.
  const fetcher = GraphiQL.createFetcher({ url: new URL("v1/graphql", location.href).toString() });
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

/** A GraphiQL page at /console, pointed at this server's /v1/graphql (assets from the jsDelivr CDN, as Hasura's console loads its own from a CDN). */
export const CONSOLE_HTML = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8" />
  <title>GraphiQL</title>
  <style>body { margin: 0; height: 100vh; } #graphiql { height: 100vh; }</style>
  <link rel="stylesheet" href="https://cdn.jsdelivr.net/npm/graphiql@3.8.3/graphiql.min.css" />
</head>
<body>
  <div id="graphiql">Loading GraphiQL...</div>
  <script crossorigin src="https://cdn.jsdelivr.net/npm/react@18.3.1/umd/react.production.min.js"></script>
  <script crossorigin src="https://cdn.jsdelivr.net/npm/react-dom@18.3.1/umd/react-dom.production.min.js"></script>
  <script crossorigin src="https://cdn.jsdelivr.net/npm/graphiql@3.8.3/graphiql.min.js"></script>
  <script>
    const secret = sessionStorage.getItem("hasura-admin-secret");
    const fetcher = GraphiQL.createFetcher({ url: new URL("/v1/graphql", location.href).toString(), headers: secret ? { "x-hasura-admin-secret": secret } : {} });
    ReactDOM.createRoot(document.getElementById("graphiql")).render(React.createElement(GraphiQL, { fetcher, defaultEditorToolsVisibility: true }));
  </script>
</body>
</html>`;

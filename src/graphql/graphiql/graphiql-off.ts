import type { Plugin } from 'graphql-yoga';

/**
 * What a person gets who opens the GraphQL endpoint in a browser while GraphiQL is off (the
 * production default): the same 400 as before — a GET without a query is a bad request — but as a
 * short HTML page that says why and how to turn GraphiQL on, instead of a JSON error about persisted
 * documents. Only for the requests yoga would have answered with GraphiQL (a GET whose Accept names
 * `text/html`: its `shouldRenderGraphiQL`) that carry nothing to run: a browser following a link with
 * a `query`, `documentId` or `extensions` parameter still gets the JSON answer.
 */

/** The parameters that make a GET something to run rather than a visit. */
const OPERATION_PARAMETERS = ['query', 'documentId', 'extensions'] as const;

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>GraphiQL is off</title>
</head>
<body>
<h1>GraphiQL is off</h1>
<p>This is a GraphQL endpoint: send queries with POST (or GET with a <code>query</code> parameter).</p>
<p>GraphiQL, the in-browser IDE, is off here, as it is by default in production. To turn it on, start the server with
<code>GRAPHQL_GRAPHIQL=true</code>, or run <code>npm run dev</code> (development mode).</p>
</body>
</html>
`;

/**
 * Answers a browser's visit to `endpoint` with the page above (register only while GraphiQL is off).
 */
export function useGraphiQLOffPage(endpoint: string): Plugin {
  const page = new TextEncoder().encode(PAGE);
  const headers = {
    'content-type': 'text/html; charset=utf-8',
    'content-length': String(page.length),
    // Another Accept gets another answer (JSON); nothing to keep either way.
    vary: 'Accept',
    'cache-control': 'no-store',
  };
  return {
    onRequest(payload) {
      const { request, url } = payload;
      if (request.method !== 'GET' || (url.pathname !== endpoint && url.pathname !== `${endpoint}/`)) return;
      if (!(request.headers.get('accept')?.includes('text/html') ?? false)) return;
      if (OPERATION_PARAMETERS.some((name) => url.searchParams.has(name))) return;
      payload.endResponse(new payload.fetchAPI.Response(page, { status: 400, headers }));
    },
  };
}

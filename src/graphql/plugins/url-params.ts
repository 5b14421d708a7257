import { createGraphQLError, type GraphQLParams, type Plugin } from 'graphql-yoga';

/**
 * A yoga workaround: yoga's GET and form parsers hand `variables` and `extensions` to JSON.parse
 * unguarded, so a value that is not JSON is a 500 (test/graphql/yoga-workarounds.test.ts fails once
 * yoga answers it otherwise, and this file can go). Here it is a 400 naming the parameter; whether the
 * JSON is an object is checked afterwards, by yoga. GraphQL parameters carried as URL-encoded text:
 * the query string of a GET, or a POST body of type application/x-www-form-urlencoded.
 */
function badParameter(name: string): Error {
  return createGraphQLError(`The "${name}" parameter is not valid JSON: send a JSON object.`, {
    extensions: { code: 'BAD_REQUEST', http: { status: 400 } },
  });
}

function jsonParameter(search: URLSearchParams, name: 'variables' | 'extensions'): unknown {
  const text = search.get(name);
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw badParameter(name);
  }
}

function paramsOf(search: URLSearchParams): GraphQLParams {
  return {
    operationName: search.get('operationName') || undefined,
    query: search.get('query') || undefined,
    variables: jsonParameter(search, 'variables') as GraphQLParams['variables'],
    extensions: jsonParameter(search, 'extensions') as GraphQLParams['extensions'],
  };
}

function parseGetRequest(request: Request): GraphQLParams {
  const start = request.url.indexOf('?');
  return paramsOf(new URLSearchParams(start === -1 ? '' : request.url.slice(start + 1)));
}

async function parseFormRequest(request: Request): Promise<GraphQLParams> {
  return paramsOf(new URLSearchParams(await request.text()));
}

const FORM = 'application/x-www-form-urlencoded';

/** yoga's content-type match: the type alone, with parameters, or first of a (non-standard) list. */
function isForm(request: Request): boolean {
  const type = request.headers.get('content-type');
  if (type === null || !type.startsWith(FORM)) return false;
  const next = type[FORM.length];
  return next === undefined || next === ';' || next === ',';
}

/** Replaces yoga's GET and form parsers; registered after yoga's parsers, before the body limit. */
export function useUrlParams(): Plugin {
  return {
    onRequestParse({ request, setRequestParser }) {
      if (request.method === 'GET') setRequestParser(parseGetRequest);
      else if (request.method === 'POST' && isForm(request)) setRequestParser(parseFormRequest);
    },
  };
}

import type { Plugin } from 'graphql-yoga';

/**
 * A yoga workaround: yoga answers its two media-type refusals with an empty body, 415 (a POST whose
 * Content-Type no request parser reads) and 406 (an Accept that no result processor produces);
 * test/graphql/yoga-workarounds.test.ts fails once it gives them a body, and this file can go. Here
 * each answer is a GraphQL error, in application/json, naming the media types the server does take
 * or give (RFC 9110 §15.5.16: with an `Accept` header listing what a 415 would have accepted).
 */

/** What yoga's request parsers read (multipart/form-data only when multipart is on). */
export function requestMediaTypes(multipart: boolean): string[] {
  return ['application/json', 'application/graphql+json', 'application/graphql', 'application/x-www-form-urlencoded', ...(multipart ? ['multipart/form-data'] : [])];
}

function errorBody(message: string, code: string): string {
  return JSON.stringify({ errors: [{ message, extensions: { code } }] });
}

const JSON_TYPE = 'application/json; charset=utf-8';

export function useMediaTypeAnswers(accepted: readonly string[]): Plugin {
  const unsupported = errorBody(
    `Unsupported Media Type: send the request as ${accepted.join(', ')} (or use GET with query parameters).`,
    'UNSUPPORTED_MEDIA_TYPE',
  );
  const acceptHeader = accepted.join(', ');
  return {
    onRequestParse(payload) {
      // Other methods are refused with 405 after this hook (yoga's useCheckMethodForGraphQL).
      if (payload.requestParser !== undefined || payload.request.method !== 'POST') return;
      payload.endResponse(new payload.fetchAPI.Response(unsupported, { status: 415, headers: { 'content-type': JSON_TYPE, accept: acceptHeader } }));
    },
    onResultProcess(payload) {
      if (payload.resultProcessor !== undefined) return;
      const types = [...new Set(payload.acceptableMediaTypes)].join(', ');
      const body = errorBody(`Not Acceptable: this endpoint answers with ${types}; send an Accept header that allows one of them.`, 'NOT_ACCEPTABLE');
      payload.setResultProcessor((_result, fetchAPI) => new fetchAPI.Response(body, { status: 406, headers: { 'content-type': JSON_TYPE } }), 'application/json');
    },
  };
}

import type { GraphQLError } from 'graphql';
import { maskError as yogaMaskError } from 'graphql-yoga';

export interface ErrorMaskingOptions {
  /** Unexpected errors (bugs) answer "Unexpected error." instead of their own message. */
  maskUnexpected: boolean;
  /** Development mode, chosen explicitly: errors carry the original error (message and stack). */
  development: boolean;
}

/** The yoga `maskError` signature (`YogaMaskedErrorOpts['maskError']`). */
export type MaskError = (error: unknown, message: string, isDev?: boolean) => Error;

/** A GraphQL error the server means (not a bug wrapped by graphql-js); checked by name, as envelop does, across copies of graphql. */
function isIntendedGraphQLError(error: unknown): error is GraphQLError {
  if (!(error instanceof Error) || error.name !== 'GraphQLError') return false;
  const { originalError } = error as GraphQLError;
  return originalError == null || isIntendedGraphQLError(originalError);
}

/**
 * yoga's request parsers attach `extensions.originalError` (the name and message of e.g. the JSON
 * parser's exception) to errors they mean; outside development that detail is dropped. yoga also
 * reads its presence as "not a GraphQL error": the error's HTTP status then applies under
 * application/json too (a body that is not JSON is a 400 either way), so the `spec` mark that would
 * turn that status into 200 goes with it. Changed in place: the error belongs to this request, and
 * yoga logs every error that masking replaces, which a client's mistake does not deserve.
 */
function withoutOriginalError(error: GraphQLError): GraphQLError {
  // graphql-jit's own GraphQLError class has no `extensions` at all.
  const extensions = error.extensions as (Record<string, unknown> & { http?: Record<string, unknown> }) | undefined;
  if (extensions?.originalError === undefined) return error;
  delete extensions.originalError;
  if (extensions.http !== undefined) extensions.http = { ...extensions.http, spec: false };
  return error;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * What an error shows a client. Errors the server means (validation, limits, UPSTREAM_UNAVAILABLE…)
 * keep their message and code. An unexpected error (a bug) becomes "Unexpected error." when masked,
 * or keeps its message when not; only in development does any error carry the original error with
 * its stack, so no answer outside development names a file path.
 */
export function createMaskError(options: ErrorMaskingOptions): MaskError {
  const { maskUnexpected, development } = options;
  const mask = (error: unknown, message: string): Error => {
    if (isIntendedGraphQLError(error)) return development ? error : withoutOriginalError(error);
    return yogaMaskError(error, maskUnexpected || development ? message : messageOf(error), development);
  };
  return (error, message) => {
    try {
      return mask(error, message);
    } catch {
      // Masking is the last step before an answer: whatever the error looks like, it must not throw
      // (yoga would answer 500 for the whole request). An error it cannot read is an unexpected one.
      return yogaMaskError(new Error('unreadable error'), message, false);
    }
  };
}

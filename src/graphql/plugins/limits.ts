import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import type { GraphQLError } from 'graphql';
import { createGraphQLError, type Plugin } from 'graphql-yoga';
import type { GraphSettings } from '../graph-settings.js';

/** `extensions.code` of each limit; the message names the limit and, where known, the value found. */
export const LIMIT_CODES = {
  tokens: 'MAX_TOKENS_EXCEEDED',
  depth: 'MAX_DEPTH_EXCEEDED',
  aliases: 'MAX_ALIASES_EXCEEDED',
  directives: 'MAX_DIRECTIVES_EXCEEDED',
  cost: 'MAX_COST_EXCEEDED',
} as const;

type LimitSettings = Pick<GraphSettings, 'maxTokens' | 'maxDepth' | 'maxAliases' | 'maxDirectives' | 'maxCost'>;

/**
 * A refused document: a request error (400 under application/graphql-response+json; 200 under
 * application/json, as GraphQL over HTTP prescribes for documents that fail validation).
 */
function limitError(message: string, code: string): GraphQLError {
  return createGraphQLError(message, { extensions: { code, http: { status: 400, spec: true } } });
}

type ParseFunction = (source: unknown, options?: Record<string, unknown>) => unknown;

/** graphql-js's message when `maxLexicalTokens` stops the parser ("Document contains more that N tokens…"). */
const TOKEN_LIMIT_MESSAGE = / \d+ tokens\. Parsing aborted\.$/;

/**
 * The token limit, counted by graphql-js's own parser (`maxLexicalTokens`): parsing stops at the
 * first token past the limit, so a huge document costs no more than the limit. graphql-js reports it
 * as a syntax error; it is reported as the limit it is. The parser is the engine's (the one yoga was
 * given), so its errors are the GraphQLError class yoga recognises.
 */
function useTokenLimit(maxTokens: number): Plugin {
  let engineParse: ParseFunction | undefined;
  let parseWithLimit: ParseFunction | undefined;
  return {
    onParse({ parseFn, setParseFn }) {
      if (parseFn !== engineParse || parseWithLimit === undefined) {
        const parse = (engineParse = parseFn as ParseFunction);
        parseWithLimit = (source, options) => {
          try {
            return parse(source, { ...options, maxLexicalTokens: maxTokens });
          } catch (error) {
            if (error instanceof Error && TOKEN_LIMIT_MESSAGE.test(error.message)) throw limitError(`Token limit of ${maxTokens} exceeded.`, LIMIT_CODES.tokens);
            throw error;
          }
        };
      }
      setParseFn(parseWithLimit);
    },
  };
}

/**
 * graphql-armor's depth, alias, directive and cost rules. Each rule walks the operation when the
 * validator enters it, before graphql-js's own rules walk its selections, and its rejection is thrown
 * so that validation stops there (a 10,000-alias document never reaches the quadratic
 * OverlappingFieldsCanBeMerged rule). armor labels every rejection "Syntax Error:" without a code;
 * the error thrown instead has the limit's code and armor's message without the label.
 */
function rejectWith(code: string) {
  return [
    (_context: unknown, error: GraphQLError): never => {
      throw limitError(error.message.replace(/^Syntax Error: /, ''), code);
    },
  ];
}

/**
 * The five limits of GraphSettings. Field suggestions ("Did you mean …?") follow introspection: they
 * name nothing introspection does not, and the graph answers introspection in every mode (GraphiQL
 * and the client caches read it; the SDL ships in the package), so they are given in every mode too.
 * A graph that turned introspection off would have to hide them as well.
 */
export function useLimits(settings: LimitSettings): Plugin[] {
  const refusal = (code: string) => ({ propagateOnRejection: false, onReject: rejectWith(code) });
  return [
    useTokenLimit(settings.maxTokens),
    EnvelopArmorPlugin({
      maxTokens: { enabled: false },
      maxDepth: { n: settings.maxDepth, ...refusal(LIMIT_CODES.depth) },
      maxAliases: { n: settings.maxAliases, ...refusal(LIMIT_CODES.aliases) },
      maxDirectives: { n: settings.maxDirectives, ...refusal(LIMIT_CODES.directives) },
      costLimit: { maxCost: settings.maxCost, ...refusal(LIMIT_CODES.cost) },
      blockFieldSuggestion: { enabled: false },
    }),
  ];
}

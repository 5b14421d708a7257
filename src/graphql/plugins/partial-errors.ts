import type { GraphQLError } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import type { ChannelGraphContext } from '../schema/context.js';

/**
 * Appends the errors of list fields that resolved partially (ChannelGraphContext.partialErrors) to
 * the response. A non-null list cannot be null, so this is how `supporters` says "one platform is
 * missing" while still listing the other. Registered before the response cache, so the cache sees
 * the errors and does not keep the partial response.
 */
export function usePartialErrors(): Plugin<ChannelGraphContext> {
  // One hooks object for every execution: nothing is allocated per request unless there are errors.
  const afterExecution: ReturnType<NonNullable<Plugin<ChannelGraphContext>['onExecute']>> = {
    onExecuteDone({ args, result, setResult }) {
      const { partialErrors } = args.contextValue;
      if (partialErrors.length === 0 || isAsyncIterable(result)) return;
      // envelop types `errors` as any[]; graphql-js puts GraphQLErrors there.
      const errors = (result.errors ?? []) as readonly GraphQLError[];
      setResult({ ...result, errors: [...errors, ...partialErrors] });
    },
  };
  return { onExecute: () => afterExecution };
}

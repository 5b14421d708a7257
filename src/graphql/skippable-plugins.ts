/**
 * Which plugins of the graph an answer to a repeated request may skip. Two paths answer a request
 * without running the yoga plugins' per-request hooks:
 * - a replayed answer (response-cache.ts): the same request (method, URL, body, the keyed request
 *   headers) answered before, written again; nothing is parsed, validated or executed;
 * - a prepared answer (prepared-operations.ts): a request of a shape yoga answered before with data,
 *   executed with its own variables by the compiled operation; no plugin hook runs.
 *
 * A plugin that must see every request (authentication, rate limiting, an audit log) would be
 * skipped by both without a sign. So a plugin is skipped only when it says it may be, where it is
 * defined:
 * - `skippableByRepeats(plugin)`: for a request of a shape yoga has answered with data, skipping its
 *   hooks changes nothing: what they decide, the request's shape decides (the document, the operation
 *   name, the keyed request headers), and what they add to an answer, the first answer of the shape
 *   carried (its headers are the shape's template) or the prepared path checks itself (partial
 *   errors: yoga answers those). Prepared and replayed answers may skip it.
 * - `skippableByReplays(plugin)`: its hooks act on executions only (a span around each one). A
 *   replayed answer executes nothing and may skip it; a prepared answer executes, so with such a
 *   plugin the graph prepares nothing.
 * Any other plugin in the graph's list, the graph's own or a caller's, turns both paths off: every
 * request goes through yoga, and the response cache is off whatever GRAPHQL_RESPONSE_CACHE says.
 * The list is checked once, when the graph is made (`repeatPathsAllowedBy`); the request path reads
 * two booleans decided then.
 */

/** What may skip a plugin's hooks; absent: nothing (the plugin sees every request). */
type Skippable = 'by repeats' | 'by replays';

const SKIPPABLE: unique symbol = Symbol('skippable plugin');

/** A plugin as the graph's list holds it: any object with hooks, declared or not. */
type AnyPlugin = object & { readonly [SKIPPABLE]?: Skippable };

function declare<P extends object>(plugin: P, skippable: Skippable): P {
  Object.defineProperty(plugin, SKIPPABLE, { value: skippable, enumerable: false });
  return plugin;
}

/** Declares that prepared and replayed answers may skip the plugin (see above); returns it. */
export function skippableByRepeats<P extends object>(plugin: P): P {
  return declare(plugin, 'by repeats');
}

/** Declares that replayed answers may skip the plugin, which acts on executions only; returns it. */
export function skippableByReplays<P extends object>(plugin: P): P {
  return declare(plugin, 'by replays');
}

/** The paths a graph with these plugins may answer a repeated request by. */
export interface RepeatPaths {
  /** Prepared operations (prepared-operations.ts): every plugin is skippable by repeats. */
  prepared: boolean;
  /** The response cache's replayed answers: every plugin is skippable by repeats or by replays. */
  replayed: boolean;
}

export function repeatPathsAllowedBy(plugins: Iterable<object>): RepeatPaths {
  let prepared = true;
  let replayed = true;
  for (const plugin of plugins) {
    const skippable = (plugin as AnyPlugin)[SKIPPABLE];
    if (skippable !== 'by repeats') prepared = false;
    if (skippable === undefined) replayed = false;
  }
  return { prepared, replayed };
}

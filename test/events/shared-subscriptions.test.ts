import { buildSchema, parse, subscribe, type ExecutionArgs, type ExecutionResult } from 'graphql';
import { describe, expect, it } from 'vitest';
import { createSharedSubscriptions, SUBSCRIBER_TOO_SLOW } from '../../src/graphql/streams/shared-subscriptions.js';

/**
 * The sharing of subscription executions (src/graphql/streams/shared-subscriptions.ts) on graphql-js's own
 * `subscribe`, with a source the test feeds: one execution per event whatever the number of
 * subscribers, and a subscriber that stops reading is ended without holding the others back.
 */
const schema = buildSchema('type Query { ok: Boolean } type Subscription { tick: Int! }');

/** A source stream the test pushes ticks into; `closed` resolves when the execution lets it go (return()). */
function tickSource() {
  const waiting: Array<(step: IteratorResult<{ tick: number }>) => void> = [];
  const queued: number[] = [];
  let release: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => {
    release = resolve;
  });
  const iterator: AsyncIterableIterator<{ tick: number }> = {
    next: () => {
      const tick = queued.shift();
      return tick === undefined ? new Promise((resolve) => waiting.push(resolve)) : Promise.resolve({ done: false, value: { tick } });
    },
    return: () => {
      release();
      for (const resolve of waiting.splice(0)) resolve({ done: true, value: undefined });
      return Promise.resolve({ done: true, value: undefined });
    },
    [Symbol.asyncIterator]: () => iterator,
  };
  return {
    rootValue: { tick: () => iterator },
    push(tick: number) {
      const next = waiting.shift();
      if (next) next({ done: false, value: { tick } });
      else queued.push(tick);
    },
    closed,
  };
}

function sharedSubscribe(shared: ReturnType<typeof createSharedSubscriptions>) {
  let fn: ((args: ExecutionArgs) => unknown) | undefined;
  const hook = shared.plugin.onSubscribe as (payload: { subscribeFn: typeof subscribe; setSubscribeFn: (next: (args: ExecutionArgs) => unknown) => void }) => void;
  hook({ subscribeFn: subscribe, setSubscribeFn: (next) => (fn = next) });
  return async (args: ExecutionArgs) => (await fn!(args)) as AsyncIterableIterator<ExecutionResult>;
}

const ticks = (results: readonly ExecutionResult[]) => results.map((result) => (result.data as { tick: number }).tick);

describe('shared subscription executions', () => {
  it('runs one execution per event for every subscriber of the same document and variables', async () => {
    const shared = createSharedSubscriptions();
    const source = tickSource();
    const run = sharedSubscribe(shared);
    const args = { schema, document: parse('subscription { tick }'), rootValue: source.rootValue };
    // Two parses of the same text are two document objects: still one execution.
    const subscribers = await Promise.all([run(args), run(args), run({ ...args, document: parse('subscription { tick }') })]);
    expect(shared.openExecutions).toBe(1);
    for (const tick of [1, 2, 3]) source.push(tick);
    const received = await Promise.all(subscribers.map(async (iterator) => [await iterator.next(), await iterator.next(), await iterator.next()].map((step) => step.value as ExecutionResult)));
    for (const results of received) expect(ticks(results)).toEqual([1, 2, 3]);
    // The same result object for all: serialised once (yoga uses its `stringify`), for every subscriber.
    expect(received[1]![0]).toBe(received[0]![0]);
    expect(received[2]![0]).toBe(received[0]![0]);
    expect(shared.executedResults).toBe(3);
    // The execution ends with its last subscriber (and lets its source go), not before.
    await subscribers[0].return!();
    await subscribers[1].return!();
    expect(shared.openExecutions).toBe(1);
    await subscribers[2].return!();
    expect(shared.openExecutions).toBe(0);
    await source.closed;
  });

  it('gives other variables their own execution', async () => {
    const shared = createSharedSubscriptions();
    const run = sharedSubscribe(shared);
    const source = tickSource();
    const document = parse('subscription Tick($n: Int) { tick }');
    const one = await run({ schema, document, rootValue: source.rootValue, variableValues: { n: 1 } });
    const two = await run({ schema, document, rootValue: source.rootValue, variableValues: { n: 2 } });
    expect(shared.openExecutions).toBe(2);
    await one.return!();
    await two.return!();
    expect(shared.openExecutions).toBe(0);
  });

  it('ends a subscriber that leaves more than maxQueuedResults unread; the others get every result', async () => {
    const shared = createSharedSubscriptions({ maxQueuedResults: 3 });
    const source = tickSource();
    const run = sharedSubscribe(shared);
    const args = { schema, document: parse('subscription { tick }'), rootValue: source.rootValue };
    const [reader, stalled] = await Promise.all([run(args), run(args)]);
    const read: ExecutionResult[] = [];
    for (let tick = 1; tick <= 10; tick += 1) {
      source.push(tick);
      read.push((await reader.next()).value as ExecutionResult);
    }
    expect(ticks(read)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(shared.executedResults).toBe(10);
    // The stalled one was cut on the 4th result it could not queue: it reads an error, then is done.
    await expect(stalled.next()).rejects.toMatchObject({ extensions: { code: SUBSCRIBER_TOO_SLOW } });
    expect((await stalled.next()).done).toBe(true);
    await reader.return!();
    expect(shared.openExecutions).toBe(0);
    await source.closed;
  });
});

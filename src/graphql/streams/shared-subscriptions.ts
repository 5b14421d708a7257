import { print, type DocumentNode, type ExecutionArgs, type ExecutionResult } from 'graphql';
import { createGraphQLError, isAsyncIterable, type Plugin } from 'graphql-yoga';

/**
 * One execution per subscription, however many clients hold it. A thousand overlays subscribed
 * with the same document, operation and variables get the results of ONE graphql-js subscription:
 * each event is executed once and the same result object goes to every subscriber (so the delivery
 * of an event costs one execution plus one write per client, not one execution per client).
 *
 * Sharing is sound because nothing a subscription resolves depends on who asked: the graph has no
 * per-client data (its context reads the shared snapshot store). A field that one day resolves per
 * client must add what it depends on to `keyOf`, or run outside this plugin.
 *
 * Every subscriber has its own bounded queue: one that stops reading (its socket is full, so its
 * transport stops pulling) is ended once `maxQueuedResults` results wait for it, and the others
 * are not held back — the shared execution never waits for a subscriber.
 */
export interface SharedSubscriptionsOptions {
  /** Results one subscriber may leave unread before it is ended; default 1,024. */
  maxQueuedResults?: number;
}

export interface SharedSubscriptions {
  /** The yoga plugin (after the plugins that refuse or rewrite a subscription before it runs). */
  readonly plugin: Plugin;
  /** Executions open: one per distinct document, operation and variables with a subscriber. */
  readonly openExecutions: number;
  /** Results executed so far, all executions together: one per event per open execution. */
  readonly executedResults: number;
}

export const DEFAULT_MAX_QUEUED_RESULTS = 1024;

/** The code of the error that ends a subscriber that fell too far behind. */
export const SUBSCRIBER_TOO_SLOW = 'SUBSCRIBER_TOO_SLOW';

type SubscribeResult = AsyncIterable<ExecutionResult> | ExecutionResult;
type Subscribe = (args: ExecutionArgs) => Promise<SubscribeResult> | SubscribeResult;

/**
 * yoga serialises a result with its `stringify` when it has one (GraphQL over SSE, multipart): the
 * subscribers of a shared result get the text of the first one that serialises it. A result that a
 * plugin replaced (masked errors) is another object and is serialised on its own.
 */
function serializedOnce(result: ExecutionResult): ExecutionResult & { stringify(value: ExecutionResult): string } {
  let text: string | undefined;
  const shared = {
    ...result,
    stringify: (value: ExecutionResult): string => (value === shared ? (text ??= JSON.stringify(value)) : JSON.stringify(value)),
  };
  return shared;
}

/** One client's view of a shared execution: the results it has not read yet, bounded. */
class Subscriber implements AsyncIterableIterator<ExecutionResult> {
  readonly #queue: ExecutionResult[] = [];
  readonly #maxQueued: number;
  readonly #leave: (subscriber: Subscriber) => void;
  #waiting: { resolve: (step: IteratorResult<ExecutionResult>) => void; reject: (error: unknown) => void } | undefined;
  #done = false;
  /** Why the execution ended (thrown at the subscriber once it has read what came before). */
  #error: Error | undefined;

  constructor(maxQueued: number, leave: (subscriber: Subscriber) => void) {
    this.#maxQueued = maxQueued;
    this.#leave = leave;
  }

  deliver(result: ExecutionResult): void {
    if (this.#done) return;
    const waiting = this.#waiting;
    if (waiting !== undefined) {
      this.#waiting = undefined;
      waiting.resolve({ done: false, value: result });
      return;
    }
    if (this.#queue.length < this.#maxQueued) {
      this.#queue.push(result);
      return;
    }
    // Rather than buffering without bound for a client that does not read.
    this.#queue.length = 0;
    this.#leave(this);
    this.end(createGraphQLError(`The subscriber fell more than ${this.#maxQueued} results behind and was ended.`, { extensions: { code: SUBSCRIBER_TOO_SLOW } }));
  }

  /** The execution ended (`error` when it failed): the subscriber reads what is queued, then ends. */
  end(error?: unknown): void {
    if (this.#done) return;
    this.#done = true;
    this.#error = error === undefined || error instanceof Error ? error : new Error('the subscription failed', { cause: error });
    const waiting = this.#waiting;
    this.#waiting = undefined;
    if (waiting === undefined) return;
    if (this.#error === undefined) waiting.resolve({ done: true, value: undefined });
    else {
      waiting.reject(this.#error);
      this.#error = undefined;
    }
  }

  next(): Promise<IteratorResult<ExecutionResult>> {
    const queued = this.#queue.shift();
    if (queued !== undefined) return Promise.resolve({ done: false, value: queued });
    if (this.#done) {
      const error = this.#error;
      this.#error = undefined;
      return error === undefined ? Promise.resolve({ done: true, value: undefined }) : Promise.reject(error);
    }
    return new Promise((resolve, reject) => {
      this.#waiting = { resolve, reject };
    });
  }

  /** The client went away. */
  return(): Promise<IteratorResult<ExecutionResult>> {
    this.#queue.length = 0;
    this.#error = undefined;
    this.#leave(this);
    this.end();
    return Promise.resolve({ done: true, value: undefined });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}

/** One open execution: what a new subscriber of the same key calls to share it. */
interface Execution {
  join(): Promise<SubscribeResult>;
}

export function createSharedSubscriptions(options: SharedSubscriptionsOptions = {}): SharedSubscriptions {
  const maxQueued = options.maxQueuedResults ?? DEFAULT_MAX_QUEUED_RESULTS;
  if (!Number.isSafeInteger(maxQueued) || maxQueued < 1) throw new RangeError('maxQueuedResults must be a positive integer');
  /** The open executions by key; each holds at least one subscriber (it closes with its last one). */
  const executions = new Map<string, Execution>();
  let executedResults = 0;
  /** The printed form of each document object (the document cache hands out the same object for the same text). */
  const printed = new WeakMap<DocumentNode, string>();

  function keyOf(args: ExecutionArgs): string {
    let text = printed.get(args.document);
    if (text === undefined) {
      text = print(args.document);
      printed.set(args.document, text);
    }
    return JSON.stringify([text, args.operationName ?? null, args.variableValues ?? null]);
  }

  /** Starts the execution of `key` with the first subscriber's arguments; later subscribers join it. */
  function open(key: string, args: ExecutionArgs, subscribe: Subscribe): Execution {
    const subscribers = new Set<Subscriber>();
    let iterator: AsyncIterator<ExecutionResult> | undefined;
    let closed = false;
    const close = (): void => {
      if (closed) return;
      closed = true;
      if (executions.get(key) === execution) executions.delete(key);
    };
    const leave = (subscriber: Subscriber): void => {
      if (!subscribers.delete(subscriber) || subscribers.size > 0) return;
      close();
      void iterator?.return?.()?.catch(() => undefined);
    };

    async function pump(source: AsyncIterator<ExecutionResult>): Promise<void> {
      try {
        for (;;) {
          const step = await source.next();
          if (step.done === true) break;
          executedResults += 1;
          const result = serializedOnce(step.value);
          // Subscribers never make the execution wait: each queues, bounded, what it has not read.
          for (const subscriber of subscribers) subscriber.deliver(result);
        }
        close();
        for (const subscriber of subscribers) subscriber.end();
      } catch (error) {
        close();
        for (const subscriber of subscribers) subscriber.end(error);
      }
      subscribers.clear();
    }

    // The execution outlives the client that started it: nothing of that request may cancel it.
    const started: Promise<SubscribeResult> = Promise.resolve()
      .then(() => subscribe({ ...args, signal: undefined } as ExecutionArgs))
      .then(
        (result) => {
          if (!isAsyncIterable(result)) {
            // Refused (variables that do not coerce, an error of the subscribe resolver): every
            // subscriber that joined gets the same answer, and the next one tries again.
            close();
            return result;
          }
          iterator = result[Symbol.asyncIterator]();
          // Every subscriber left while it started.
          if (closed) void iterator.return?.()?.catch(() => undefined);
          else void pump(iterator);
          return result;
        },
        (error: unknown) => {
          close();
          throw error;
        },
      );

    const execution: Execution = {
      join() {
        // Registered now, not when it first reads: the execution must not close under a subscriber
        // that has joined but not read yet.
        const subscriber = new Subscriber(maxQueued, leave);
        subscribers.add(subscriber);
        return started.then((result) => {
          if (isAsyncIterable(result)) return subscriber;
          subscribers.delete(subscriber);
          return result;
        });
      },
    };
    return execution;
  }

  const plugin: Plugin = {
    onSubscribe({ subscribeFn, setSubscribeFn }) {
      setSubscribeFn((args: ExecutionArgs) => {
        const key = keyOf(args);
        let execution = executions.get(key);
        if (execution === undefined) {
          execution = open(key, args, subscribeFn as Subscribe);
          executions.set(key, execution);
        }
        return execution.join();
      });
    },
  };

  return {
    plugin,
    get openExecutions() {
      return executions.size;
    },
    get executedResults() {
      return executedResults;
    },
  };
}

/**
 * Events of the log as a subscription's source stream (an async iterator).
 */
import { Repeater } from 'graphql-yoga';
import type { ChannelEvent, ChannelEventLog } from '../../channel/supporter-events.js';

/** What the subscriptions need of the event log. */
export type ChannelEvents = Pick<ChannelEventLog, 'subscribe'>;

/**
 * The events `select` keeps, as an async iterator (graphql-js's source stream of a subscription).
 * Returning it (the client went away) unsubscribes from the log; the log closing (shutdown) ends it. A subscriber
 * that falls more than 1,024 events behind overflows the repeater's queue and is ended rather than
 * buffered without bound.
 */
export function eventsOf<T>(events: ChannelEvents, select: (event: ChannelEvent) => T | undefined): AsyncIterable<T> {
  return new Repeater<T>(async (push, stop) => {
    const unsubscribe = events.subscribe(
      (event) => {
        const selected = select(event);
        if (selected === undefined) return;
        try {
          push(selected).catch(stop);
        } catch (error) {
          stop(error);
        }
      },
      // The log closed (shutdown): the subscription completes.
      () => stop(),
    );
    try {
      await stop;
    } finally {
      unsubscribe();
    }
  });
}


import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streamChannelEvents, type ChannelStreamEvent, EventStreamError } from '@channel-graph/client/events';
import { request, startSandboxApp } from '../http/harness.js';
import { untilFetched } from '../graphql/graph-harness.js';
import { eventually } from '../support/eventually.js';
import { memberWithStatus, sendCreateUpdateDelete, sendWebhook } from './event-harness.js';

/**
 * GET /events against the real app (sandbox mode) and signed webhooks from the sandbox's robot:
 * events in order, filters, Last-Event-ID replay and reset, the stream bound, no listener left behind.
 */
let harness: Awaited<ReturnType<typeof startSandboxApp>>;
let url: string;

beforeAll(async () => {
  harness = await startSandboxApp({}, { events: { logSize: 5, maxStreams: 4 } });
  url = harness.app.url;
  await untilFetched(harness.app);
});
afterAll(() => harness.close());

/** Opens GET /events and collects its events until `stop()`. */
function collect(options: Parameters<typeof streamChannelEvents>[1] = {}) {
  const controller = new AbortController();
  const received: ChannelStreamEvent[] = [];
  const done = (async () => {
    for await (const event of streamChannelEvents(url, { ...options, signal: controller.signal })) received.push(event);
  })();
  return { received, done, stop: () => controller.abort() };
}

describe('GET /events', () => {
  it('streams JOINED, UPDATED and LEFT for create, update and delete webhooks, in order, with increasing ids', async () => {
    const stream = collect();
    await eventually('the stream to subscribe', () => harness.app.events.listenerCount === 1);
    const { expected } = await sendCreateUpdateDelete(harness.app.sandbox, url);
    await eventually('three events', () => stream.received.length >= 3);
    stream.stop();
    await stream.done;
    expect(stream.received.map((event) => event.event)).toEqual(['supporter', 'supporter', 'supporter']);
    const supporterEvents = stream.received.flatMap((event) => (event.event === 'supporter' ? [event] : []));
    expect(supporterEvents.map((event) => [event.data.change, event.data.id, event.data.previousAmountCents])).toEqual(expected);
    const ids = stream.received.map((event) => BigInt(event.id));
    expect(ids[1]! - ids[0]!).toBe(1n);
    expect(ids[2]! - ids[1]!).toBe(1n);
    // The data is the REST representation of the supporter plus the change.
    const { tiers } = harness.app.sandbox.datasets.membership;
    expect(supporterEvents[1]!.data).toMatchObject({ platform: 'membership', level: { level_id: tiers[3]!.id, amount_cents: tiers[3]!.amountCents } });
  });

  it('filters by platform and kind of change', async () => {
    const joinedOnly = collect({ changes: ['joined'] });
    const videoOnly = collect({ platform: ['video'] });
    const leftOrUpdated = collect({ platform: ['membership'], changes: ['left', 'updated'] });
    await eventually('three streams to subscribe', () => harness.app.events.listenerCount === 3);
    await sendCreateUpdateDelete(harness.app.sandbox, url);
    await eventually('the filtered events', () => joinedOnly.received.length >= 1 && leftOrUpdated.received.length >= 2);
    // One more event after the three: anything a filter let through wrongly has arrived by then.
    const marker = collect();
    await eventually('the marker stream', () => harness.app.events.listenerCount === 4);
    await sendWebhook(harness.app.sandbox, url, 'members:pledge:create', memberWithStatus(harness.app.sandbox, 'former_patron', 1).id);
    await eventually('the marker event', () => marker.received.length >= 1 && joinedOnly.received.length >= 2);
    for (const stream of [joinedOnly, videoOnly, leftOrUpdated, marker]) stream.stop();
    await Promise.all([joinedOnly.done, videoOnly.done, leftOrUpdated.done, marker.done]);
    const changes = (stream: { received: ChannelStreamEvent[] }) => stream.received.map((event) => (event.event === 'supporter' ? event.data.change : event.event));
    expect(changes(joinedOnly)).toEqual(['joined', 'joined']);
    expect(changes(leftOrUpdated)).toEqual(['updated', 'left']);
    expect(videoOnly.received).toEqual([]);
  });

  it('replays the events after Last-Event-ID (header or query), and sends reset when they have left the log', async () => {
    const before = harness.app.events.lastEventId;
    await sendCreateUpdateDelete(harness.app.sandbox, url);
    // Query parameter.
    const replay = collect({ lastEventId: before });
    await eventually('the replayed events', () => replay.received.length >= 3);
    replay.stop();
    await replay.done;
    expect(replay.received.map((event) => (event.event === 'supporter' ? event.data.change : event.event))).toEqual(['joined', 'updated', 'left']);
    expect(replay.received[0]!.id).toBe(String(BigInt(before) + 1n));

    // Header (what a reconnecting EventSource sends): the raw stream carries only the missed ones.
    const controller = new AbortController();
    const response = await fetch(`${url}/events`, { headers: { 'last-event-id': replay.received[1]!.id }, signal: controller.signal });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    while (!text.includes('event: supporter')) {
      const chunk = await reader.read();
      if (chunk.done) throw new Error(`the stream ended early: ${text}`);
      text += chunk.value;
    }
    controller.abort();
    expect(text).toContain(`id: ${replay.received[2]!.id}\nevent: supporter\n`);
    expect(text).not.toContain(`id: ${replay.received[1]!.id}\n`);

    // The log keeps 5 events (EVENTS_LOG_SIZE): 6 later, `before` is older than the log.
    await sendCreateUpdateDelete(harness.app.sandbox, url);
    const reset = collect({ lastEventId: before });
    await eventually('the reset event', () => reset.received.length >= 1);
    reset.stop();
    await reset.done;
    expect(reset.received).toEqual([{ id: harness.app.events.lastEventId, event: 'reset', data: { message: expect.stringContaining('read the lists again') } }]);
  });

  it('refuses a malformed id or filter with 400, and a stream over EVENTS_MAX_STREAMS with 503', async () => {
    for (const query of ['?lastEventId=abc', '?changes=joined,gone', '?platform=membership&platform=video']) {
      const answer = await request(url, 'GET', `/events${query}`);
      expect(answer.status, query).toBe(400);
      expect(answer.headers.get('content-type')).toBe('application/problem+json');
    }
    const streams = [collect(), collect(), collect(), collect()];
    await eventually('four streams', () => harness.app.events.listenerCount === 4);
    const refused = await streamChannelEvents(url).next().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(EventStreamError);
    expect((refused as EventStreamError).status).toBe(503);
    expect(JSON.parse((refused as EventStreamError).body)).toMatchObject({ status: 503, detail: expect.stringContaining('4 event streams') });
    for (const stream of streams) stream.stop();
    await Promise.all(streams.map((stream) => stream.done));
    await eventually('the streams to unsubscribe', () => harness.app.events.listenerCount === 0);
  });

  it('app.close() ends the open streams cleanly (the response ends, the iteration finishes)', async () => {
    const own = await startSandboxApp();
    const controller = new AbortController();
    const received: ChannelStreamEvent[] = [];
    const done = (async () => {
      for await (const event of streamChannelEvents(own.app.url, { signal: controller.signal })) received.push(event);
    })();
    await eventually('the stream', () => own.app.events.listenerCount === 1);
    await own.close();
    await expect(done).resolves.toBeUndefined();
    expect(controller.signal.aborted).toBe(false);
    expect(own.app.events.listenerCount).toBe(0);
  });
});

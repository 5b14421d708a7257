/**
 * GraphQL over HTTP conformance of the shipped configuration, audited by the public `graphql-http`
 * library (the reference implementation's own audit suite): every mandatory audit (a MUST of the
 * spec) passes against the whole app as `npm start` runs it — production settings read from an
 * empty environment (limits, masking, document cap, graphql-jit, response cache) — and with the
 * response cache off, the configuration bench/graph measures. So does every recommended (SHOULD,
 * MAY) audit. Every audit runs three times against the same server: from the third time on, a
 * request yoga answered with data is answered by its prepared operation (prepared-operations.ts),
 * which must conform as well.
 */
import { serverAudits } from 'graphql-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readGraphSettings } from '../../src/graphql/graph-settings.js';
import { startGraphApp } from './graph-harness.js';

const SHIPPED = readGraphSettings({});
/** Each audit's requests are sent this many times (the third is a prepared operation's). */
const ROUNDS = [1, 2, 3];

describe.each([
  ['the shipped configuration (npm start, empty environment)', SHIPPED],
  ['the shipped configuration with the response cache off', { ...SHIPPED, responseCache: false }],
])('graphql-http serverAudits against %s', (_name, settings) => {
  let started: Awaited<ReturnType<typeof startGraphApp>>;
  beforeAll(async () => {
    started = await startGraphApp(settings);
  });
  afterAll(async () => started.close());

  it('passes every mandatory (MUST) audit', async () => {
    expect(SHIPPED.development).toBe(false);
    const audits = serverAudits({ url: `${started.app.url}/graphql` });
    const mandatory = audits.filter((audit) => audit.name.startsWith('MUST'));
    expect(mandatory.length).toBeGreaterThan(10);
    const failed: string[] = [];
    for (const round of ROUNDS) {
      for (const audit of mandatory) {
        const result = await audit.fn();
        if (result.status !== 'ok') failed.push(`round ${round}: ${audit.id} ${audit.name}: ${result.reason}`);
      }
    }
    expect(failed).toEqual([]);
  });

  it('passes every recommended (SHOULD / MAY) audit too', async () => {
    const audits = serverAudits({ url: `${started.app.url}/graphql` }).filter((audit) => !audit.name.startsWith('MUST'));
    const unfollowed: string[] = [];
    for (const round of ROUNDS) {
      const results = await Promise.all(audits.map(async (audit) => ({ audit, result: await audit.fn() })));
      // graphql-http reports an unfollowed recommendation as a warning (never an error): collect them.
      unfollowed.push(...results.flatMap(({ audit, result }) => (result.status === 'ok' ? [] : [`round ${round}: ${audit.id} ${audit.name}: ${result.reason}`])));
    }
    expect(unfollowed).toEqual([]);
  });
});

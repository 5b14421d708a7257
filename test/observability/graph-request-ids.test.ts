/**
 * Every way the app answers /graphql carries the request id exactly once, with the response cache
 * on and off: yoga's answer, a prepared or cached one (in identity and in a coding), yoga's GET,
 * GraphiQL's page, an event stream, the refusal of a bad Host; over a real server on 127.0.0.1.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChannelApp, type ChannelApp } from '../../src/app.js';
import { DEFAULT_GRAPH_SETTINGS } from '../../src/graphql/graph-settings.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { liveUpstream, makeDataDir, silentLogger, testConfig } from '../http/harness.js';

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(async () => {
  await sandbox.close();
});

const QUERY = JSON.stringify({ query: '{ stats { subscribers } }' });

/** What a head carried as the request id: every X-Request-Id line, unjoined. */
async function requestIdLines(url: string, init: { method?: string; headers?: Record<string, string>; body?: string }): Promise<{ status: number; ids: string[] }> {
  return new Promise((resolve, reject) => {
    const sent = httpRequest(url, { method: init.method ?? 'GET', headers: init.headers ?? {} }, (response) => {
      const ids: string[] = [];
      for (let index = 0; index < response.rawHeaders.length; index += 2) {
        if (response.rawHeaders[index]?.toLowerCase() === 'x-request-id') ids.push(response.rawHeaders[index + 1] ?? '');
      }
      // An event stream stays open: the head is what is asked about.
      response.destroy();
      resolve({ status: response.statusCode ?? 0, ids });
    });
    sent.on('error', reject);
    sent.end(init.body);
  });
}

for (const responseCache of [true, false]) {
  describe(`a graph answer's request id, the response cache ${responseCache ? 'on' : 'off'}`, () => {
    let app: ChannelApp;
    let removeDataDir: () => Promise<void>;
    beforeAll(async () => {
      const dataDir = await makeDataDir();
      removeDataDir = dataDir.remove;
      app = await createChannelApp(testConfig(dataDir.path, liveUpstream(sandbox), { graph: { ...DEFAULT_GRAPH_SETTINGS, responseCache, graphiql: true } }), { logger: silentLogger });
    });
    afterAll(async () => {
      await app.close();
      await removeDataDir();
    });

    type Way = { path: string; method?: string; headers?: Record<string, string>; body?: string; status: number };
    const post = { path: '/graphql', method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: QUERY, status: 200 };
    const ways: Array<[string, Way]> = [
      ['the first POST of a query (yoga answers it)', post],
      ['the same POST again (prepared or cached)', post],
      ['the same POST again, in gzip', { ...post, headers: { ...post.headers, 'accept-encoding': 'gzip' } }],
      ['a GET of the query (yoga)', { path: '/graphql?query=%7Bstats%7Bsubscribers%7D%7D', headers: { accept: 'application/json' }, status: 200 }],
      ['GraphiQL', { path: '/graphql', headers: { accept: 'text/html' }, status: 200 }],
      ['a subscription as an event stream', { path: '/graphql?query=subscription%7BstatsChanged%7Bsubscribers%7D%7D', headers: { accept: 'text/event-stream' }, status: 200 }],
      ['a bad Host', { path: '/graphql', headers: { host: 'bad host!' }, status: 400 }],
    ];
    ways.forEach(([way, { path, status, ...init }], index) => {
      it(`is in the head once: ${way}`, async () => {
        const given = `graph-way-${index}`;
        const answer = await requestIdLines(`${app.url}${path}`, { ...init, headers: { ...init.headers, 'x-request-id': given } });
        expect(answer.status).toBe(status);
        expect(answer.ids).toEqual([given]);
      });
    });
  });
}

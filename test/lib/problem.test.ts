import { describe, expect, it } from 'vitest';
import { problem, sendProblem } from '../../src/lib/problem.js';
import { listen } from '../../src/lib/listen.js';

/** RFC 9457 answers (src/lib/problem.ts), the one sendProblem of the REST API and the sandbox. */
describe('problem details', () => {
  it('builds about:blank problems titled with the status phrase, instance only when given', () => {
    expect(problem(404, 'no resource at /x', '/x')).toEqual({ type: 'about:blank', title: 'Not Found', status: 404, detail: 'no resource at /x', instance: '/x' });
    expect(problem(400, 'bad')).toEqual({ type: 'about:blank', title: 'Bad Request', status: 400, detail: 'bad' });
  });

  it('answers application/problem+json with the status, extension members, extra headers and no-store', async () => {
    const server = await listen((_request, response) => sendProblem(response, { ...problem(503, 'down'), retry_after_seconds: 5 }, { 'retry-after': '5' }));
    try {
      const response = await fetch(server.url);
      expect(response.status).toBe(503);
      expect(response.headers.get('content-type')).toBe('application/problem+json');
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(response.headers.get('retry-after')).toBe('5');
      expect(await response.json()).toEqual({ type: 'about:blank', title: 'Service Unavailable', status: 503, detail: 'down', retry_after_seconds: 5 });
    } finally {
      await server.close();
    }
  });
});

/**
 * The server side of bench/oauth2, run in its own process so it never competes with the client
 * under test: `/resource` answers a small JSON document, `/oauth/token` a token response.
 * Prints the base URL on stdout once listening.
 */
import { startFloorServer } from '../lib/index.js';

const body = JSON.stringify({ access_token: 'bench-access-token', token_type: 'Bearer', expires_in: 3600, data: { id: 1, name: 'resource' } });
const server = await startFloorServer({ body });
process.stdout.write(`${server.url}\n`);
process.on('SIGTERM', () => {
  void server.close().then(() => process.exit(0));
});

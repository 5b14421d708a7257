/**
 * autocannon (its API) sending a sequence of request bodies in turn on every connection, which its
 * CLI cannot: e.g. one GraphQL document with varying variables. Run by load.ts in its own process:
 *   node autocannon-sequence.mjs '<options JSON>'   → autocannon's JSON report on stdout
 * options: { url, method, headers, bodies: string[], connections, pipelining, duration, overallRate? }.
 */
import autocannon from 'autocannon';

const { url, method, headers, bodies, connections, pipelining, duration, overallRate } = JSON.parse(process.argv[2] ?? '{}');
const report = await autocannon({ url, connections, pipelining, duration, ...(overallRate !== undefined && { overallRate }), requests: bodies.map((body) => ({ method, headers, body })) });
process.stdout.write(JSON.stringify(report));

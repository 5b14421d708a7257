/**
 * The connection pool of every notification: a destination URL is user-supplied, so no connection
 * reaches a private, loopback, link-local, metadata or otherwise non-public address. The check is
 * made at connect time, on the addresses the name resolves to, and the connection is made to the
 * address that was checked — a name that answers a public address to a check and a private one to
 * the connect (DNS rebinding) gets nowhere. undici's `connect` option is where this goes; ipaddr.js
 * classifies the addresses (`range()`: only `unicast`, the public ranges, passes). undici follows no
 * redirect unless told to, and nothing here tells it.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { Agent, buildConnector } from 'undici';

/** An address a name resolves to. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name: the system resolver by default, a fixed table in tests. */
export type Resolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) => (await lookup(hostname, { all: true, verbatim: true })) as ResolvedAddress[];

/** The connection was refused before any packet was sent to it. */
export class RefusedAddressError extends Error {
  override readonly name = 'RefusedAddressError';
  readonly code = 'NOTIFICATION_ADDRESS_REFUSED';
}

/** Why `address` may not be connected to (its ipaddr.js range), or undefined when it may. */
export function refusedRange(address: string, allowLoopback: boolean): string | undefined {
  if (!ipaddr.isValid(address)) return 'not an address';
  // IPv4-mapped IPv6 (::ffff:10.0.0.1) is checked as the IPv4 address it is.
  const range = ipaddr.process(address).range();
  return range === 'unicast' || (allowLoopback && range === 'loopback') ? undefined : range;
}

export interface SafeAgentOptions {
  resolve?: Resolver;
  /** NOTIFICATIONS_ALLOW_LOOPBACK: loopback addresses pass (development and tests). */
  allowLoopback: boolean;
  /** TCP and TLS connect timeout. */
  connectTimeoutMs: number;
  /** Connections kept per origin. */
  connections?: number;
}

/** The address to connect to: the first of the name's addresses, once every one of them is allowed. */
async function checkedAddress(hostname: string, resolve: Resolver, allowLoopback: boolean): Promise<string> {
  const addresses = isIP(hostname) === 0 ? await resolve(hostname) : [{ address: hostname, family: isIP(hostname) as 4 | 6 }];
  if (addresses.length === 0) throw new RefusedAddressError('the destination\'s host name resolves to no address');
  // Every address, not only the first: the connect may fall back to any of them.
  for (const { address } of addresses) {
    const refused = refusedRange(address, allowLoopback);
    if (refused !== undefined) throw new RefusedAddressError(`the destination's host resolves to a ${refused} address, which notifications never connect to`);
  }
  return (addresses[0] as ResolvedAddress).address;
}

/** An undici Agent whose every connection goes through the address check. */
export function createSafeAgent(options: SafeAgentOptions): Agent {
  const resolve = options.resolve ?? systemResolver;
  const connectTo = buildConnector({ timeout: options.connectTimeoutMs });
  return new Agent({
    ...(options.connections === undefined ? {} : { connections: options.connections }),
    connect(connectOptions, callback) {
      checkedAddress(connectOptions.hostname, resolve, options.allowLoopback).then(
        // `host` keeps the name: TLS sends it as SNI and checks the certificate against it.
        (address) => connectTo({ ...connectOptions, hostname: address }, callback),
        (error: unknown) => callback(error as Error, null),
      );
    },
  });
}

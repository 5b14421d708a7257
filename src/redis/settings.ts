/**
 * What the configuration says about Redis, and how keys are named: no ioredis here, so reading the
 * configuration does not load the Redis client (a one-process deployment never does).
 */
export interface RedisSettings {
  /** REDIS_URL: `redis://[user:password@]host:port[/db]` or `rediss://…` (TLS). */
  url: string;
  /** REDIS_PREFIX: prepended to every key and channel name, so several deployments can share one Redis. */
  prefix: string;
}

export const DEFAULT_REDIS_PREFIX = 'channel-graph:';

/** A key or channel name under the deployment's prefix. */
export function prefixedKey(settings: Pick<RedisSettings, 'prefix'>, name: string): string {
  return `${settings.prefix}${name}`;
}

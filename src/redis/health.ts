/** Whether the Redis connections are up, and the last error one of them reported (GET /healthz). */
import type { Redis } from 'ioredis';
import { redisReachable } from './connection.js';

export interface RedisHealth {
  /** Every connection is ready now. */
  reachable: boolean;
  /** The last connection error since a connection was last ready; null when none. */
  lastError: string | null;
}

/** Watches `connections` from now on; the function returns their health at the moment it is called. */
export function watchRedisHealth(connections: readonly Redis[]): () => RedisHealth {
  let lastError: string | null = null;
  for (const connection of connections) {
    connection.on('error', (error: Error) => {
      lastError = error.message;
    });
    connection.on('ready', () => {
      if (connections.every(redisReachable)) lastError = null;
    });
  }
  return () => {
    const reachable = connections.every(redisReachable);
    return { reachable, lastError: reachable ? null : (lastError ?? 'not connected yet') };
  };
}

/**
 * The membership token in Redis, shared by every replica (REDIS_URL set), and the cross-replica
 * single-flight refresh (`TokenStore.refreshShared`).
 *
 * The record is one hash: `token` (the token's JSON), `version` (incremented by every write) and
 * `issued_at` (the token's issue time, seconds since the epoch: `expires_at − expires_in`, 0 when
 * unknown). The refresh lock is a second key, `<record>:refresh-lock`, holding a random owner value
 * with an expiry (SET NX PX); only its owner deletes it (compare-and-delete in Lua). Every write
 * publishes "<version> <writer>" on `<record>:changed`: the other processes drop the token they
 * hold and read the record again (`onChange`), so a login or a revocation reaches running replicas
 * at once, not at their next refresh. Releasing the lock publishes "released <writer>" there.
 *
 * A revoked token leaves a tombstone (`npm run authorize -- --revoke`, `clear()`): the record keeps
 * its version and gets `issued_at` = the revocation time and `revoked_seed` (the seed fingerprint of
 * the revoked chain) instead of a token. `load()` finds no token; a replica that still holds the
 * revoked token (or any token issued before the revocation) can neither offer it back nor refresh
 * it (TokenRevokedError, no token-endpoint call). A later login, or a new seed in the configuration,
 * replaces the tombstone.
 *
 * A refresh, in one replica:
 * 1. SET NX PX the lock. Not acquired: another replica is refreshing; look again at the record and
 *    the lock whenever `<record>:changed` announces a write or a release (and every pollIntervalMs,
 *    for a holder that died: its lock just expires) until the record moves (adopt its token) or
 *    the lock is gone (its holder failed or died: try to take it).
 * 2. Under the lock, read the record. Another replica already rotated the held token → adopt the
 *    stored one, no token-endpoint call. Otherwise the endpoint gets the stored refresh token, which
 *    is the newest one anybody knows: a replica whose memory is stale never presents a retired one.
 * 3. Save with a Lua compare-and-set: written only while the lock value is still ours and the
 *    version is the one read in step 2 (fencing). A replica whose lock expired, or whose Redis was
 *    restarted meanwhile, does not overwrite what another replica stored since; its token, valid
 *    and held in memory, is offered instead under the seed rule below.
 *
 * Seed rule ("offer"): a token is written without the lock only if the record is absent or holds a
 * token issued earlier (newest by issue time wins; a tie keeps the stored one). It is used for the
 * migration from the token file, for a token held in memory when Redis comes back empty (it runs
 * without persistence: a replica must not write an old token back over a newer one, and the newest
 * held token must get back in), and for `save()` (a retry at shutdown).
 *
 * A login (`replace()`, from `npm run authorize`) and a revocation (`clear()`) run under the lock
 * (`exclusive()`: a refresh in flight on a replica finishes first, and none starts meanwhile) and are
 * written whatever the record holds, with `issued_at` no earlier than now: every token a replica
 * held before is older, so the seed rule keeps it out.
 *
 * Why the lock outlives the token endpoint's deadline: a holder that is slow (not dead) keeps
 * calling the endpoint until its deadline (UPSTREAM_TIMEOUT_MS); if the lock expired first, a second
 * replica would present the same refresh token, and one of them would get `invalid_grant` — the
 * authorization server retires a refresh token when it answers. See `refreshLockTtlMs`.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import { OAuth2NoTokenError, SEED_FINGERPRINT_KEY, type SharedRefresh, type TokenHash, type TokenStore } from '@channel-graph/oauth2';

/**
 * What the lock adds to the token endpoint's deadline: the read before the call and the save after
 * it (one Redis command deadline each, 2 s by default) and the drift between Redis's expiry clock and
 * ours.
 */
export const REFRESH_LOCK_MARGIN_MS = 5_000;

/** The refresh lock's expiry for a token endpoint whose every call ends within `tokenEndpointDeadlineMs`. */
export function refreshLockTtlMs(tokenEndpointDeadlineMs: number): number {
  return tokenEndpointDeadlineMs + REFRESH_LOCK_MARGIN_MS;
}

export interface RedisTokenStoreOptions {
  /** A connection from createRedisConnection (commands fail at once while Redis is down). */
  connection: Redis;
  /**
   * A connection of its own for SUBSCRIBE (it may be shared with other subscribers): the changes
   * other processes make reach `onChange` listeners. Without it `onChange` hears only this process.
   */
  subscriber?: Redis;
  /** The record's key (with REDIS_PREFIX); the lock is `<key>:refresh-lock`. */
  key: string;
  /** Expiry of the refresh lock: `refreshLockTtlMs(token endpoint deadline)`. */
  lockTtlMs: number;
  /**
   * How often a replica waiting for another's refresh looks at the record and the lock without being
   * told (default 500 ms with a subscriber, which announces every write and release; 50 ms without).
   */
  pollIntervalMs?: number;
  /**
   * A token from elsewhere that seeds the record under the seed rule, before the first load and
   * whenever the connection comes back (the token file of a single-process deployment).
   */
  seed?: () => Promise<TokenHash | null>;
  logger?: Pick<Console, 'warn'>;
}

/** A waiting replica saw no new token within twice the lock's expiry. */
export class RefreshLockTimeoutError extends Error {
  override readonly name = 'RefreshLockTimeoutError';
}

/** The stored token was revoked (`npm run authorize -- --revoke`): nothing to refresh until a new login. */
export class TokenRevokedError extends OAuth2NoTokenError {
  override readonly name = 'TokenRevokedError';
}

interface StoredRecord {
  /** null: a tombstone (the token was revoked). */
  token: TokenHash | null;
  version: number;
  issuedAt: number;
  /** The seed fingerprint of the stored token, or of the revoked one. */
  seedFingerprint: unknown;
}

type LiveRecord = StoredRecord & { token: TokenHash };

/** Every write ends so: the token (or a tombstone) at `version`, announced on `<record>:changed` with the writer's id (ARGV[1]). */
const WRITE = `
local function write(version, fields)
  redis.call('HDEL', KEYS[1], 'token', 'revoked_seed')
  redis.call('HSET', KEYS[1], 'version', version, unpack(fields))
  redis.call('PUBLISH', KEYS[1] .. ':changed', version .. ' ' .. ARGV[1])
  return version
end`;

/** Written only while the lock holds our owner value and the version is the one we read. Returns the new version, or 0. */
const SAVE_FENCED = `${WRITE}
if redis.call('GET', KEYS[2]) ~= ARGV[2] then return 0 end
local version = tonumber(redis.call('HGET', KEYS[1], 'version') or '0')
if version ~= tonumber(ARGV[3]) then return 0 end
return write(version + 1, {'token', ARGV[4], 'issued_at', ARGV[5]})`;

/** Written only if the record is absent or holds a token issued earlier. Returns the new version, or 0. */
const OFFER = `${WRITE}
local stored = redis.call('HGET', KEYS[1], 'issued_at')
if stored and tonumber(stored) >= tonumber(ARGV[3]) then return 0 end
local version = tonumber(redis.call('HGET', KEYS[1], 'version') or '0')
return write(version + 1, {'token', ARGV[2], 'issued_at', ARGV[3]})`;

/**
 * A login (ARGV[2] the token) or a revocation (ARGV[2] empty: a tombstone remembering the seed
 * fingerprint ARGV[4]), whatever is stored, with issue time at least ARGV[3] and above the stored one.
 * Returns the new version.
 */
const OVERWRITE = `${WRITE}
local version = tonumber(redis.call('HGET', KEYS[1], 'version') or '0')
local issued = math.max(tonumber(ARGV[3]), tonumber(redis.call('HGET', KEYS[1], 'issued_at') or '0') + 1)
if ARGV[2] == '' then return write(version + 1, {'issued_at', issued, 'revoked_seed', ARGV[4]}) end
return write(version + 1, {'token', ARGV[2], 'issued_at', issued})`;

/** Deletes the lock (KEYS[1]) only if it still holds our owner value (ARGV[1]), and announces it on KEYS[2] (ARGV[2]: the writer). */
const RELEASE = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('PUBLISH', KEYS[2], 'released ' .. ARGV[2])
return 1`;

const RELEASED = 'released';

/** Issue time of a token hash in seconds since the epoch (`expires_at − expires_in`), 0 when it does not say. */
export function issuedAtOf(token: TokenHash): number {
  const expiresAt = Number(token.expires_at);
  const expiresIn = Number(token.expires_in);
  return Number.isFinite(expiresAt) && Number.isFinite(expiresIn) ? Math.max(0, Math.floor(expiresAt - expiresIn)) : 0;
}

/**
 * Whether `held` must replace `stored`: it was issued later (Redis lost the newer record, e.g. a
 * restart without persistence), or it is a configured seed (no issue time) other than the one the
 * stored (or revoked) chain descends from (the operator put a new token in the configuration).
 */
function supersedes(held: TokenHash, stored: StoredRecord): boolean {
  const issuedAt = issuedAtOf(held);
  return issuedAt > stored.issuedAt || (issuedAt === 0 && held[SEED_FINGERPRINT_KEY] !== stored.seedFingerprint);
}

/** Whether another process stored a token other than `held`, which `held` does not supersede: adopt it. */
function storedByAnother(held: TokenHash, record: StoredRecord | null): record is LiveRecord {
  return record !== null && record.token !== null && !supersedes(held, record) && record.token.access_token !== held.access_token;
}

/** Whether the token's `expires_at` (seconds since the epoch) has passed: adopting it would only lead to a 401. */
function expired(token: TokenHash): boolean {
  const expiresAt = Number(token.expires_at);
  return Number.isFinite(expiresAt) && expiresAt * 1000 <= Date.now();
}

export class RedisTokenStore implements TokenStore {
  readonly key: string;
  readonly lockKey: string;
  /** The channel every write is announced on. */
  readonly changeChannel: string;
  readonly #redis: Redis;
  readonly #subscriber: Redis | undefined;
  readonly #lockTtlMs: number;
  readonly #pollIntervalMs: number;
  readonly #seed: (() => Promise<TokenHash | null>) | undefined;
  readonly #logger: Pick<Console, 'warn'>;
  /** Lock owner values start with host and PID: an operator (or a test) sees which replica holds it. */
  readonly #ownerPrefix = `${hostname()}:${process.pid}`;
  /** Tells this process's change announcements from the others'. */
  readonly #writer = randomUUID();
  readonly #listeners = new Set<() => void>();
  /** Replicas waiting for another's refresh (awaitOtherRefresh): woken by any announcement. */
  readonly #waiters = new Set<() => void>();
  #subscribed = false;
  /** The newest token this process has seen: offered again when Redis comes back (it may come back empty). */
  #newest: TokenHash | undefined;

  constructor(options: RedisTokenStoreOptions) {
    this.#redis = options.connection;
    this.#subscriber = options.subscriber;
    this.key = options.key;
    this.lockKey = `${options.key}:refresh-lock`;
    this.changeChannel = `${options.key}:changed`;
    this.#lockTtlMs = options.lockTtlMs;
    this.#pollIntervalMs = options.pollIntervalMs ?? (options.subscriber === undefined ? 50 : 500);
    this.#seed = options.seed;
    this.#logger = options.logger ?? console;
    // 'ready' follows every (re)connection: Redis may have come back empty.
    this.#redis.on('ready', () => {
      this.reseed().catch(() => undefined);
    });
    this.#subscriber?.on('message', this.#onMessage);
    this.#subscriber?.on('ready', this.#onSubscriberReady);
    if (this.#subscriber?.status === 'ready') this.#onSubscriberReady();
  }

  readonly #onMessage = (channel: string, message: string): void => {
    if (channel !== this.changeChannel) return;
    const [what, writer] = message.split(' ');
    if (writer === this.#writer) return;
    this.wakeWaiters();
    if (what !== RELEASED) this.notify();
  };

  /** The first `ready` subscribes; a later one is a reconnection (ioredis resubscribes): changes made meanwhile were not heard. */
  readonly #onSubscriberReady = (): void => {
    if (this.#subscribed) {
      this.wakeWaiters();
      this.notify();
      return;
    }
    this.#subscriber?.subscribe(this.changeChannel).then(
      () => {
        this.#subscribed = true;
      },
      () => undefined, // the connection dropped first: the next `ready` tries again
    );
  };

  /** `listener` runs after every write by another process (and after a reconnection, when writes may have been missed). */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Stops listening for changes (the connections are closed by their owner). */
  close(): void {
    this.#subscriber?.off('message', this.#onMessage);
    this.#subscriber?.off('ready', this.#onSubscriberReady);
    this.#listeners.clear();
  }

  private notify(): void {
    for (const listener of this.#listeners) listener();
  }

  private wakeWaiters(): void {
    for (const wake of this.#waiters) wake();
    this.#waiters.clear();
  }

  /**
   * Registers for the next announcement now (so one published while the caller reads Redis is not
   * missed); `wait` resolves on it or after `timeoutMs`.
   */
  private nextAnnouncement(): { wait(timeoutMs: number): Promise<void>; cancel(): void } {
    let wake: () => void = () => undefined;
    const announced = new Promise<void>((resolve) => {
      wake = resolve;
    });
    this.#waiters.add(wake);
    const cancel = (): void => {
      this.#waiters.delete(wake);
    };
    return {
      async wait(timeoutMs) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([announced, new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
        clearTimeout(timer);
        cancel();
      },
      cancel,
    };
  }

  /** Before the first load: the seed (token file) gets into Redis if Redis has nothing newer. */
  async recover(): Promise<void> {
    await this.reseed();
  }

  /** The stored token; null when there is none or it was revoked. */
  async load(): Promise<TokenHash | null> {
    const token = (await this.read())?.token ?? null;
    if (token !== null) this.remember(token);
    return token;
  }

  /** Seed rule: written only if Redis holds nothing or an older token. */
  async save(token: TokenHash): Promise<void> {
    this.remember(token);
    await this.offer(token);
  }

  /** A login: stored whatever Redis holds, as the newest token (call it inside `exclusive()`). */
  async replace(token: TokenHash): Promise<void> {
    this.#newest = token;
    await this.overwrite(JSON.stringify(token), issuedAtOf(token), '');
  }

  /** After a revocation: the token is deleted and a tombstone keeps older tokens out (call it inside `exclusive()`). */
  async clear(): Promise<void> {
    const record = await this.read();
    if (record?.token == null) return;
    this.#newest = undefined;
    const seed = record.seedFingerprint;
    await this.overwrite('', 0, typeof seed === 'string' ? seed : '');
  }

  /**
   * Runs `work` holding the refresh lock: no replica refreshes meanwhile, and a refresh in flight
   * finishes first (waits at most twice the lock's expiry, then RefreshLockTimeoutError). The lock
   * expires after lockTtlMs even if `work` has not ended.
   */
  async exclusive<T>(work: () => Promise<T>): Promise<T> {
    const deadline = performance.now() + 2 * this.#lockTtlMs;
    for (;;) {
      const owner = `${this.#ownerPrefix}:${randomUUID()}`;
      const announcement = this.nextAnnouncement();
      try {
        if ((await this.#redis.set(this.lockKey, owner, 'PX', this.#lockTtlMs, 'NX')) === 'OK') {
          announcement.cancel();
          try {
            return await work();
          } finally {
            await this.release(owner);
          }
        }
        if (performance.now() >= deadline) throw new RefreshLockTimeoutError(`the refresh lock was not released within ${2 * this.#lockTtlMs} ms: a replica is refreshing the token`);
        await announcement.wait(this.#pollIntervalMs);
      } finally {
        announcement.cancel();
      }
    }
  }

  async refreshShared(held: TokenHash, rotate: (latest: TokenHash) => Promise<TokenHash>): Promise<SharedRefresh> {
    this.remember(held);
    // A holder's lock expires after lockTtlMs, so after twice that either this process got the lock or a new token appeared.
    const deadline = performance.now() + 2 * this.#lockTtlMs;
    for (;;) {
      const owner = `${this.#ownerPrefix}:${randomUUID()}`;
      if ((await this.#redis.set(this.lockKey, owner, 'PX', this.#lockTtlMs, 'NX')) === 'OK') {
        try {
          return await this.rotateLocked(owner, held, rotate);
        } finally {
          await this.release(owner);
        }
      }
      const adopted = await this.awaitOtherRefresh(held, deadline);
      if (adopted !== undefined) return { token: adopted, saved: true };
      if (performance.now() >= deadline) throw new RefreshLockTimeoutError(`no token refresh finished within ${2 * this.#lockTtlMs} ms: another replica holds the lock`);
    }
  }

  /** Step 2 and 3 of the refresh, under the lock `owner`. */
  private async rotateLocked(owner: string, held: TokenHash, rotate: (latest: TokenHash) => Promise<TokenHash>): Promise<SharedRefresh> {
    const record = await this.read();
    if (record?.token === null && !supersedes(held, record)) {
      this.#newest = undefined;
      throw new TokenRevokedError('the stored token was revoked by npm run authorize -- --revoke');
    }
    if (storedByAnother(held, record) && !expired(record.token)) {
      // Another replica rotated it while this one waited for the lock: no token-endpoint call.
      this.remember(record.token);
      return { token: record.token, saved: true };
    }
    let latest: LiveRecord;
    if (record === null || record.token === null || supersedes(held, record)) {
      // Redis has nothing (first start, or it restarted empty) or an older chain: the held token is the newest known.
      const version = await this.saveFenced(owner, record?.version ?? 0, held);
      if (version === 0) throw new RefreshLockTimeoutError('the refresh lock was lost before the refresh began');
      latest = { token: held, version, issuedAt: issuedAtOf(held), seedFingerprint: held[SEED_FINGERPRINT_KEY] };
    } else {
      latest = { ...record, token: record.token };
    }
    const next = await rotate(latest.token);
    this.remember(next);
    try {
      if ((await this.saveFenced(owner, latest.version, next)) > 0) return { token: next, saved: true };
      // Fenced out: the lock expired or Redis restarted meanwhile. The token is valid (the endpoint
      // just issued it); it goes in only if nothing newer is stored.
      const offered = await this.offer(next);
      this.#logger.warn(`token store: the refresh lock was lost during the refresh; the new token ${offered ? 'was stored as the newest' : 'is kept in memory (Redis holds a newer one)'}`);
      return { token: next, saved: true };
    } catch {
      // Redis went away after the endpoint answered: the keeper holds the token and offers it again later.
      return { token: next, saved: false };
    }
  }

  /** Deletes the lock if it is still ours; a failure leaves it to expire. */
  private async release(owner: string): Promise<void> {
    await this.#redis.eval(RELEASE, 2, this.lockKey, this.changeChannel, owner, this.#writer).catch(() => undefined);
  }

  /**
   * Waits while another replica holds the lock, looking at the record and the lock at each
   * announcement on the change channel (and every pollIntervalMs). Returns the token it stored, or
   * undefined once the lock is gone without a new token (the holder failed or died: the caller
   * tries to take it).
   */
  private async awaitOtherRefresh(held: TokenHash, deadline: number): Promise<TokenHash | undefined> {
    while (performance.now() < deadline) {
      const announcement = this.nextAnnouncement();
      try {
        const [record, locked] = await Promise.all([this.read(), this.#redis.exists(this.lockKey)]);
        if (storedByAnother(held, record)) {
          this.remember(record.token);
          return record.token;
        }
        if (locked === 0) return undefined;
        await announcement.wait(Math.min(this.#pollIntervalMs, Math.max(0, deadline - performance.now())));
      } finally {
        announcement.cancel();
      }
    }
    return undefined;
  }

  private async read(): Promise<StoredRecord | null> {
    const [token, version, issuedAt, revokedSeed] = await this.#redis.hmget(this.key, 'token', 'version', 'issued_at', 'revoked_seed');
    if (version == null) return null;
    const stored = { version: Number(version), issuedAt: Number(issuedAt ?? 0) };
    if (token == null) return { ...stored, token: null, seedFingerprint: revokedSeed === '' ? undefined : revokedSeed };
    const parsed: unknown = JSON.parse(token);
    if (typeof parsed !== 'object' || parsed === null || typeof (parsed as TokenHash).access_token !== 'string') {
      throw new TypeError(`Redis key ${this.key} does not hold a token (an object with access_token)`);
    }
    return { ...stored, token: parsed as TokenHash, seedFingerprint: (parsed as TokenHash)[SEED_FINGERPRINT_KEY] };
  }

  private async saveFenced(owner: string, version: number, token: TokenHash): Promise<number> {
    return Number(await this.#redis.eval(SAVE_FENCED, 2, this.key, this.lockKey, this.#writer, owner, String(version), JSON.stringify(token), String(issuedAtOf(token))));
  }

  private async offer(token: TokenHash): Promise<boolean> {
    return Number(await this.#redis.eval(OFFER, 1, this.key, this.#writer, JSON.stringify(token), String(issuedAtOf(token)))) > 0;
  }

  /** A login (`tokenJson`) or a tombstone (empty), issued no earlier than now. */
  private async overwrite(tokenJson: string, issuedAt: number, revokedSeed: string): Promise<void> {
    const now = Math.floor(Date.now() / 1000);
    await this.#redis.eval(OVERWRITE, 1, this.key, this.#writer, tokenJson, String(Math.max(issuedAt, now)), revokedSeed);
  }

  private async reseed(): Promise<void> {
    // An unreadable seed (a damaged token file) is reported, and does not keep the replica from Redis's token.
    const seed = await this.#seed?.().catch((error: unknown) => {
      this.#logger.warn(`token store: the seed token could not be read: ${(error as Error).message}`);
      return null;
    });
    if (seed != null) await this.offer(seed);
    if (this.#newest !== undefined) await this.offer(this.#newest);
  }

  private remember(token: TokenHash): void {
    if (this.#newest === undefined || issuedAtOf(token) >= issuedAtOf(this.#newest)) this.#newest = token;
  }
}

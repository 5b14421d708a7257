/**
 * Start-up configuration: `.env` (or the process environment, which wins) and the members file,
 * validated with zod. A missing or malformed value stops the process with ONE line naming the file,
 * the field and what is expected (ConfigError). Values are never echoed for secret fields.
 *
 * No membership credentials at all → sandbox mode: the app starts the platform emulator in-process.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { z } from 'zod';
import { membersConfigSchema, type MembersConfig } from './channel/members-config.js';
import type { MembershipCredentials } from './channel/membership.js';
import { DEFAULT_UPSTREAM_TIMEOUT_MS } from './channel/upstream.js';
import { readGraphSettings, type GraphSettings } from './graphql/graph-settings.js';

export interface MembershipSettings extends MembershipCredentials {
  apiBase: string;
}

export interface VideoSettings {
  apiBase: string;
  members: MembersConfig;
}

export type UpstreamSettings = { mode: 'sandbox' } | { mode: 'live'; membership: MembershipSettings; video: VideoSettings };

/**
 * How long clients may take (node:http server options), in milliseconds: a client that dribbles its
 * headers or body, or keeps an idle connection, is cut off after these.
 */
export interface HttpServerSettings {
  /** Until the request's headers are complete (`server.headersTimeout`). At most `requestTimeoutMs`. */
  headersTimeoutMs: number;
  /** Until the whole request, body included, is received (`server.requestTimeout`); also the socket inactivity limit. */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this (`server.keepAliveTimeout`). */
  keepAliveTimeoutMs: number;
}

export const DEFAULT_HTTP_SERVER_SETTINGS: Readonly<HttpServerSettings> = { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000 };
/** SHUTDOWN_TIMEOUT_MS: draining requests, waiting for a token refresh and for the saves, in all. */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000;

export interface ChannelConfig {
  port: number;
  host: string;
  /** Snapshots and the rotated membership token are kept here. */
  dataDir: string;
  /** 0 turns the background refresh off (webhooks and cold reads still fetch). */
  refreshIntervalSeconds: number;
  upstream: UpstreamSettings;
  graph: GraphSettings;
  /** Deadline of every upstream request: token endpoint, membership API, video API. Default DEFAULT_UPSTREAM_TIMEOUT_MS. */
  upstreamTimeoutMs?: number;
  /** How long `close()` may take in all. Default DEFAULT_SHUTDOWN_TIMEOUT_MS. */
  shutdownTimeoutMs?: number;
  /** Default DEFAULT_HTTP_SERVER_SETTINGS, field by field. */
  http?: Partial<HttpServerSettings>;
  /** Live events (GET /events, GraphQL subscriptions). Default DEFAULT_EVENTS_SETTINGS, field by field. */
  events?: Partial<EventsSettings>;
}

/** Live events: the replay log and the bound on open streams. */
export interface EventsSettings {
  /** EVENTS_LOG_SIZE: events kept for clients that resume with Last-Event-ID. */
  logSize: number;
  /** EVENTS_MAX_STREAMS: GET /events streams open at once, and graphql-ws connections open at once (each). */
  maxStreams: number;
}

export const DEFAULT_EVENTS_SETTINGS: Readonly<EventsSettings> = { logSize: 1000, maxStreams: 1000 };

/** One line: `<file>: <field>: expected …`. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(
    readonly file: string,
    readonly field: string,
    expected: string,
  ) {
    super(`${file}: ${field}: ${expected}`);
  }
}

type Env = Record<string, string | undefined>;

/** The membership credentials: all set (live mode) or all unset (sandbox mode). */
const MEMBERSHIP_CREDENTIALS = ['MEMBERSHIP_CLIENT_ID', 'MEMBERSHIP_CLIENT_SECRET', 'MEMBERSHIP_CAMPAIGN_ID', 'MEMBERSHIP_WEBHOOK_SECRET'] as const;
/** The seed tokens: both or neither (then `npm run authorize` has put the token in the token store). */
const MEMBERSHIP_SEED_TOKENS = ['MEMBERSHIP_ACCESS_TOKEN', 'MEMBERSHIP_REFRESH_TOKEN'] as const;

const DEFAULTS = {
  PORT: 4000,
  HOST: '127.0.0.1',
  MEMBERSHIP_API_BASE: 'https://www.patreon.com',
  VIDEO_API_BASE: 'https://studio.youtube.com',
  MEMBERS_CONFIG: 'members.json',
  DATA_DIR: 'data',
  REFRESH_INTERVAL_SECONDS: 300,
  UPSTREAM_TIMEOUT_MS: DEFAULT_UPSTREAM_TIMEOUT_MS,
  SHUTDOWN_TIMEOUT_MS: DEFAULT_SHUTDOWN_TIMEOUT_MS,
  HTTP_HEADERS_TIMEOUT_MS: DEFAULT_HTTP_SERVER_SETTINGS.headersTimeoutMs,
  HTTP_REQUEST_TIMEOUT_MS: DEFAULT_HTTP_SERVER_SETTINGS.requestTimeoutMs,
  HTTP_KEEP_ALIVE_TIMEOUT_MS: DEFAULT_HTTP_SERVER_SETTINGS.keepAliveTimeoutMs,
  EVENTS_LOG_SIZE: DEFAULT_EVENTS_SETTINGS.logSize,
  EVENTS_MAX_STREAMS: DEFAULT_EVENTS_SETTINGS.maxStreams,
} as const;

const integerText = (min: number, max: number, what: string) =>
  z
    .string()
    .regex(/^\d+$/, { error: what })
    .transform(Number)
    .refine((value) => value >= min && value <= max, { error: what });

const httpUrlText = z.url({ protocol: /^https?$/, error: 'an http(s) URL' }).transform((value) => value.replace(/\/+$/, ''));

/** Every variable that is not a secret: its value may appear in the error line. */
const PUBLIC_FIELDS = {
  PORT: integerText(0, 65_535, 'expected a port number 0-65535'),
  HOST: z.string().min(1, { error: 'expected a host name or IP address to listen on' }),
  MEMBERSHIP_API_BASE: httpUrlText,
  VIDEO_API_BASE: httpUrlText,
  MEMBERS_CONFIG: z.string().min(1, { error: 'expected the path of the members file' }),
  DATA_DIR: z.string().min(1, { error: 'expected a directory path' }),
  REFRESH_INTERVAL_SECONDS: integerText(0, 86_400, 'expected whole seconds 0-86400 (0 turns the interval refresh off)'),
  UPSTREAM_TIMEOUT_MS: integerText(1, 600_000, 'expected milliseconds 1-600000'),
  SHUTDOWN_TIMEOUT_MS: integerText(1, 600_000, 'expected milliseconds 1-600000'),
  HTTP_HEADERS_TIMEOUT_MS: integerText(1, 600_000, 'expected milliseconds 1-600000'),
  HTTP_REQUEST_TIMEOUT_MS: integerText(1, 3_600_000, 'expected milliseconds 1-3600000'),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: integerText(1, 600_000, 'expected milliseconds 1-600000'),
  EVENTS_LOG_SIZE: integerText(1, 1_000_000, 'expected a number of events 1-1000000'),
  EVENTS_MAX_STREAMS: integerText(0, 1_000_000, 'expected a number of streams 0-1000000 (0 turns the streams off)'),
} as const;

/** The `.env` file's variables; an absent file is an empty one (defaults and the environment apply). */
function readEnvFile(path: string): Env {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new ConfigError(path, '(file)', `could not be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  return parseEnv(text);
}

function firstIssue(error: z.ZodError): { path: string; message: string } {
  const issue = error.issues[0];
  return { path: issue?.path.map(String).join('.') ?? '', message: issue?.message ?? 'invalid value' };
}

function readPublic<K extends keyof typeof PUBLIC_FIELDS>(env: Env, name: K, file: string): z.output<(typeof PUBLIC_FIELDS)[K]> {
  const raw = env[name];
  const value = raw === undefined || raw === '' ? String(DEFAULTS[name]) : raw;
  const parsed = PUBLIC_FIELDS[name].safeParse(value);
  if (!parsed.success) {
    const { message } = firstIssue(parsed.error);
    throw new ConfigError(file, name, `${message.startsWith('expected') ? message : `expected ${message}`}, got ${JSON.stringify(value)}`);
  }
  return parsed.data as z.output<(typeof PUBLIC_FIELDS)[K]>;
}

/** members.json: read, parsed and validated against the dashboard request's shape. */
export function loadMembersConfig(path: string): MembersConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const hint = code === 'ENOENT' ? 'not found (expected the video dashboard values: cp members.example.json members.json)' : `could not be read (${code ?? 'error'})`;
    throw new ConfigError(path, '(file)', hint);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(path, '(file)', `expected JSON (${(error as Error).message})`);
  }
  const parsed = membersConfigSchema.safeParse(json);
  if (!parsed.success) {
    const { path: field, message } = firstIssue(parsed.error);
    throw new ConfigError(path, field || '(root)', `expected ${message}`);
  }
  return parsed.data;
}

function readUpstream(env: Env, file: string, cwd: string): UpstreamSettings {
  const given = [...MEMBERSHIP_CREDENTIALS, ...MEMBERSHIP_SEED_TOKENS].filter((name) => (env[name] ?? '') !== '');
  if (given.length === 0) return { mode: 'sandbox' };
  const missing = MEMBERSHIP_CREDENTIALS.find((name) => (env[name] ?? '') === '');
  if (missing !== undefined) {
    throw new ConfigError(file, missing, `expected a value: the membership credentials are all set (live mode) or all empty (sandbox mode); ${given.join(', ')} set`);
  }
  const value = (name: (typeof MEMBERSHIP_CREDENTIALS)[number]): string => env[name] as string;
  return {
    mode: 'live',
    membership: {
      ...readMembershipClient(env, file),
      campaignId: value('MEMBERSHIP_CAMPAIGN_ID'),
      webhookSecret: value('MEMBERSHIP_WEBHOOK_SECRET'),
    },
    video: {
      apiBase: readPublic(env, 'VIDEO_API_BASE', file),
      members: loadMembersConfig(resolve(cwd, readPublic(env, 'MEMBERS_CONFIG', file))),
    },
  };
}

/** The OAuth2 client of the membership platform and the seed tokens, if `.env` holds them. */
function readMembershipClient(env: Env, file: string): Pick<MembershipSettings, 'apiBase' | 'clientId' | 'clientSecret' | 'accessToken' | 'refreshToken'> {
  for (const name of ['MEMBERSHIP_CLIENT_ID', 'MEMBERSHIP_CLIENT_SECRET'] as const) {
    if ((env[name] ?? '') === '') throw new ConfigError(file, name, 'expected a value: the OAuth client of the membership platform (its developer portal shows it)');
  }
  const tokens = MEMBERSHIP_SEED_TOKENS.filter((name) => (env[name] ?? '') !== '');
  const missingToken = MEMBERSHIP_SEED_TOKENS.find((name) => (env[name] ?? '') === '');
  if (tokens.length > 0 && missingToken !== undefined) {
    throw new ConfigError(file, missingToken, `expected a value: set both seed tokens or neither (npm run authorize keeps the token under DATA_DIR); ${tokens.join(', ')} set`);
  }
  return {
    apiBase: readPublic(env, 'MEMBERSHIP_API_BASE', file),
    clientId: env.MEMBERSHIP_CLIENT_ID as string,
    clientSecret: env.MEMBERSHIP_CLIENT_SECRET as string,
    ...(tokens.length === 0 ? {} : { accessToken: env.MEMBERSHIP_ACCESS_TOKEN, refreshToken: env.MEMBERSHIP_REFRESH_TOKEN }),
  };
}

/** What `npm run authorize` needs: the membership platform's OAuth client, the seed tokens and DATA_DIR. */
export interface AuthorizeConfig {
  membership: Pick<MembershipSettings, 'apiBase' | 'clientId' | 'clientSecret' | 'accessToken' | 'refreshToken'>;
  dataDir: string;
}

export interface LoadConfigOptions {
  /** Default: process.cwd(). Relative paths (.env, MEMBERS_CONFIG, DATA_DIR) resolve against it. */
  cwd?: string;
  /** Default: process.env. Its variables win over the `.env` file's. */
  env?: Env;
  /** Default: `ENV_FILE` or `.env`. */
  envFile?: string;
}

function readEnvironment(options: LoadConfigOptions): { cwd: string; file: string; env: Env } {
  const cwd = options.cwd ?? process.cwd();
  const processEnv = options.env ?? process.env;
  const file = options.envFile ?? processEnv.ENV_FILE ?? '.env';
  return { cwd, file, env: { ...readEnvFile(resolve(cwd, file)), ...processEnv } };
}

/** Reads the part of the configuration `npm run authorize` uses (no campaign, webhook or members.json needed yet). */
export function loadAuthorizeConfig(options: LoadConfigOptions = {}): AuthorizeConfig {
  const { cwd, file, env } = readEnvironment(options);
  return { membership: readMembershipClient(env, file), dataDir: resolve(cwd, readPublic(env, 'DATA_DIR', file)) };
}

function readHttpServer(env: Env, file: string): HttpServerSettings {
  const settings: HttpServerSettings = {
    headersTimeoutMs: readPublic(env, 'HTTP_HEADERS_TIMEOUT_MS', file),
    requestTimeoutMs: readPublic(env, 'HTTP_REQUEST_TIMEOUT_MS', file),
    keepAliveTimeoutMs: readPublic(env, 'HTTP_KEEP_ALIVE_TIMEOUT_MS', file),
  };
  // node:http refuses a headers timeout longer than the request timeout (ERR_OUT_OF_RANGE).
  if (settings.headersTimeoutMs > settings.requestTimeoutMs) {
    throw new ConfigError(file, 'HTTP_HEADERS_TIMEOUT_MS', `expected at most HTTP_REQUEST_TIMEOUT_MS (${settings.requestTimeoutMs}), got ${settings.headersTimeoutMs}`);
  }
  return settings;
}

/** Reads and validates the whole configuration; throws ConfigError (one line) on the first bad value. */
export function loadConfig(options: LoadConfigOptions = {}): ChannelConfig {
  const { cwd, file, env } = readEnvironment(options);
  let graph: GraphSettings;
  try {
    graph = readGraphSettings(env);
  } catch (error) {
    // readGraphSettings says `GRAPHQL_X: expected …, got …`.
    const [field = 'GRAPHQL', ...rest] = (error as Error).message.split(': ');
    throw new ConfigError(file, field, rest.join(': '));
  }
  return {
    port: readPublic(env, 'PORT', file),
    host: readPublic(env, 'HOST', file),
    dataDir: resolve(cwd, readPublic(env, 'DATA_DIR', file)),
    refreshIntervalSeconds: readPublic(env, 'REFRESH_INTERVAL_SECONDS', file),
    upstream: readUpstream(env, file, cwd),
    graph,
    upstreamTimeoutMs: readPublic(env, 'UPSTREAM_TIMEOUT_MS', file),
    shutdownTimeoutMs: readPublic(env, 'SHUTDOWN_TIMEOUT_MS', file),
    http: readHttpServer(env, file),
    events: { logSize: readPublic(env, 'EVENTS_LOG_SIZE', file), maxStreams: readPublic(env, 'EVENTS_MAX_STREAMS', file) },
  };
}

/**
 * Start-up configuration: `.env` (or the process environment, which wins) and the members file,
 * validated against the settings declared in CHANNEL_SETTINGS and GRAPH_SETTINGS (src/lib/settings).
 * A missing or malformed value stops the process with ONE line naming where it came from (the file
 * or `environment`), the field and what is expected (ConfigError). Secrets and the members file's
 * content are never echoed.
 *
 * No membership credentials at all → sandbox mode: the app starts the platform emulator in-process —
 * by default, unless `NODE_ENV=production`, where only `SANDBOX=true` chooses it (src/lib/node-env.ts).
 */
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { z } from 'zod';
import { membersConfigSchema, type MembersConfig } from './channel/members-config.js';
import type { MembershipCredentials } from './channel/membership.js';
import { DEFAULT_UPSTREAM_TIMEOUT_MS } from './channel/upstream.js';
import { GRAPH_SETTINGS, readGraphSettings, type GraphSettings } from './graphql/graph-settings.js';
import { DestinationsError, parseNotificationsConfig, type NotificationsConfig } from './notifications/destinations.js';
import { EnvFileSyntaxError, parseEnvFile } from './lib/env-file.js';
import { findJsonSyntaxIssue } from './lib/json-syntax.js';
import { isDevelopment, sandboxWithoutCredentials } from './lib/node-env.js';
import { goalsFileSchema, type Goal } from './history/goals.js';
import {
  boolean,
  type Environment,
  httpUrl,
  integer,
  milliseconds,
  PROCESS_ENVIRONMENT,
  SettingError,
  settingNames,
  type SettingValues,
  text,
  urlOf,
  Variables,
  oneOf,
  unknownSettingWarnings,
} from './lib/settings.js';
import { DEFAULT_LOG_LEVEL, LOG_LEVELS, type LogLevel } from './observability/logger.js';
import { DEFAULT_REDIS_PREFIX, type RedisSettings } from './redis/settings.js';

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
  /** LOG_LEVEL; default DEFAULT_LOG_LEVEL. */
  logLevel?: LogLevel;
  /** METRICS_TOKEN: GET /metrics then needs `Authorization: Bearer <token>`; default none (open). */
  metricsToken?: string;
  /** Live events (GET /events, GraphQL subscriptions). Default DEFAULT_EVENTS_SETTINGS, field by field. */
  events?: Partial<EventsSettings>;
  /** REDIS_URL and REDIS_PREFIX: shared state for several replicas. Unset: files under `dataDir`, one process. */
  redis?: RedisSettings;
  /** COMPRESSION: answers compressed as Accept-Encoding asks (br, gzip, zstd where node has it). Default true. */
  compression?: boolean;
  /** DATABASE_URL: the PostgreSQL server of the history. Unset: the embedded database under `dataDir`. */
  databaseUrl?: string;
  /** The goals file's goals (GOALS_FILE); default none. */
  goals?: readonly Goal[];
  /** DASHBOARD: serve /dashboard; default only in development. */
  dashboard?: boolean;
  /**
   * HISTORY=false: no history (no database opened, the history's fields and paths unavailable), for
   * a deployment or a test where only the current data matters. Default true.
   */
  history?: boolean;
  /** NOTIFICATIONS_CONFIG: where events are sent (webhooks, Discord). Unset: none. */
  notifications?: NotificationsConfig;
  /** NOTIFICATIONS_ALLOW_LOOPBACK: notifications may go to loopback addresses (development, tests). Default false. */
  notificationsAllowLoopback?: boolean;
  /** NOTIFICATIONS_REPLAY_TOKEN: POST /notifications/replay needs it as a bearer token; unset: no replay over HTTP. */
  notificationsReplayToken?: string;
}

/** Live events: the replay log and the bound on open streams. */
export interface EventsSettings {
  /** EVENTS_LOG_SIZE: events kept for clients that resume with Last-Event-ID. */
  logSize: number;
  /** EVENTS_MAX_STREAMS: GET /events streams, streamed /graphql answers (GraphQL over SSE) and graphql-ws connections open at once (each). */
  maxStreams: number;
}

export const DEFAULT_EVENTS_SETTINGS: Readonly<EventsSettings> = { logSize: 1000, maxStreams: 1000 };

/** One line: `<source>: <field>: expected …`; the source is a file or `environment` (the process environment). */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(
    /** The file (`.env`, members.json) or `environment`. */
    readonly file: string,
    readonly field: string,
    expected: string,
  ) {
    super(`${file}: ${field}: ${expected}`);
  }
}

/** The membership credentials: all set (live mode) or all unset (sandbox mode). */
const MEMBERSHIP_CREDENTIALS = ['MEMBERSHIP_CLIENT_ID', 'MEMBERSHIP_CLIENT_SECRET', 'MEMBERSHIP_CAMPAIGN_ID', 'MEMBERSHIP_WEBHOOK_SECRET'] as const;
/** The seed tokens: both or neither (then `npm run authorize` has put the token in the token store). */
const MEMBERSHIP_SEED_TOKENS = ['MEMBERSHIP_ACCESS_TOKEN', 'MEMBERSHIP_REFRESH_TOKEN'] as const;

/** Where messages send a person who has to set the credentials up, and one who wants to try the sandbox. */
const SETUP_DOCUMENTED_AT = 'docs/operating.md#setup-for-your-channel';
const SANDBOX_DOCUMENTED_AT = 'docs/sandbox.md#test-credentials';

/** The membership variables that are set (an empty value is not). */
function givenCredentials(variables: Environment): string[] {
  return [...MEMBERSHIP_CREDENTIALS, ...MEMBERSHIP_SEED_TOKENS].filter((name) => (variables[name] ?? '') !== '');
}

/**
 * Every setting of `npm start` outside the graph (GRAPH_SETTINGS), declared once: docs/operating.md's
 * Configuration table and `.env.example` are checked against this list (test/config-documented.test.ts).
 */
export const CHANNEL_SETTINGS = {
  envFile: text({ name: 'ENV_FILE', default: '.env', expected: 'the path of the .env file', description: 'The file read before the process environment (read from the process environment only).' }),
  port: integer({ name: 'PORT', min: 0, max: 65_535, expected: 'a port number 0-65535', default: 4000, description: 'Port of the REST API and /graphql (0 = any free port).' }),
  host: text({ name: 'HOST', default: '127.0.0.1', expected: 'a host name or IP address to listen on', description: 'Address to listen on (0.0.0.0 for every interface).' }),
  membershipClientId: text({ name: 'MEMBERSHIP_CLIENT_ID', description: 'OAuth client id on the membership platform.' }),
  membershipClientSecret: text({ name: 'MEMBERSHIP_CLIENT_SECRET', secret: true, description: 'Its secret.' }),
  membershipAccessToken: text({ name: 'MEMBERSHIP_ACCESS_TOKEN', secret: true, description: 'Optional seed of the token keeper (with the refresh token).' }),
  membershipRefreshToken: text({ name: 'MEMBERSHIP_REFRESH_TOKEN', secret: true, description: 'Optional seed of the token keeper (with the access token).' }),
  membershipCampaignId: text({ name: 'MEMBERSHIP_CAMPAIGN_ID', description: 'The campaign id.' }),
  membershipWebhookSecret: text({ name: 'MEMBERSHIP_WEBHOOK_SECRET', secret: true, description: 'Key of the webhook signature.' }),
  sandbox: boolean({
    name: 'SANDBOX',
    default: {
      documented: '`true` without membership credentials, unless `NODE_ENV=production`',
      from: (variables) => sandboxWithoutCredentials(variables.NODE_ENV) && givenCredentials(variables).length === 0,
    },
    description: 'Serve the built-in platform sandbox\'s test data; `true` with any membership credential set stops the start.',
  }),
  membershipApiBase: httpUrl({ name: 'MEMBERSHIP_API_BASE', default: 'https://www.patreon.com', description: 'Base URL of the membership API and its token endpoint.' }),
  videoApiBase: httpUrl({ name: 'VIDEO_API_BASE', default: 'https://studio.youtube.com', description: 'Base URL of the channel-dashboard API.' }),
  membersConfig: text({ name: 'MEMBERS_CONFIG', default: 'members.json', expected: 'the path of the members file', description: 'Path of the dashboard request values.' }),
  dataDir: text({ name: 'DATA_DIR', default: 'data', expected: 'a directory path', description: 'Snapshots and the rotated membership token.' }),
  refreshIntervalSeconds: integer({
    name: 'REFRESH_INTERVAL_SECONDS',
    min: 0,
    max: 86_400,
    expected: 'whole seconds 0-86400 (0 turns the interval refresh off)',
    default: 300,
    description: 'Background refresh interval of every source; 0 turns it off.',
  }),
  upstreamTimeoutMs: milliseconds({ name: 'UPSTREAM_TIMEOUT_MS', min: 1, max: 600_000, default: DEFAULT_UPSTREAM_TIMEOUT_MS, description: 'Deadline of every upstream request.' }),
  shutdownTimeoutMs: milliseconds({ name: 'SHUTDOWN_TIMEOUT_MS', min: 1, max: 600_000, default: DEFAULT_SHUTDOWN_TIMEOUT_MS, description: 'How long SIGTERM/SIGINT may take in all.' }),
  httpHeadersTimeoutMs: milliseconds({ name: 'HTTP_HEADERS_TIMEOUT_MS', min: 1, max: 600_000, default: DEFAULT_HTTP_SERVER_SETTINGS.headersTimeoutMs, description: 'Until a request\'s headers are complete.' }),
  httpRequestTimeoutMs: milliseconds({ name: 'HTTP_REQUEST_TIMEOUT_MS', min: 1, max: 3_600_000, default: DEFAULT_HTTP_SERVER_SETTINGS.requestTimeoutMs, description: 'Until the whole request is received.' }),
  httpKeepAliveTimeoutMs: milliseconds({ name: 'HTTP_KEEP_ALIVE_TIMEOUT_MS', min: 1, max: 600_000, default: DEFAULT_HTTP_SERVER_SETTINGS.keepAliveTimeoutMs, description: 'An idle keep-alive connection is closed after this.' }),
  compression: boolean({
    name: 'COMPRESSION',
    default: true,
    description: 'Answers of 1 KiB or more compressed as Accept-Encoding asks (br, gzip; zstd on node 22.15+); `false` behind a proxy that compresses.',
  }),
  logLevel: oneOf({ name: 'LOG_LEVEL', values: LOG_LEVELS, default: DEFAULT_LOG_LEVEL, description: 'Least severe level logged (JSON lines on stdout).' }),
  metricsToken: text({ name: 'METRICS_TOKEN', secret: true, description: 'When set, GET /metrics needs `Authorization: Bearer <token>`.' }),
  eventsLogSize: integer({
    name: 'EVENTS_LOG_SIZE',
    min: 1,
    max: 1_000_000,
    expected: 'a number of events 1-1000000',
    default: DEFAULT_EVENTS_SETTINGS.logSize,
    description: 'Events kept for clients that resume with Last-Event-ID.',
  }),
  eventsMaxStreams: integer({
    name: 'EVENTS_MAX_STREAMS',
    min: 0,
    max: 1_000_000,
    expected: 'a number of streams 0-1000000 (0 turns the streams off)',
    default: DEFAULT_EVENTS_SETTINGS.maxStreams,
    description: 'GET /events streams, GraphQL-over-SSE streams on /graphql and graphql-ws connections open at once (each).',
  }),
  redisUrl: urlOf({
    name: 'REDIS_URL',
    protocols: ['redis', 'rediss'],
    expected: 'a redis:// or rediss:// (TLS) URL',
    secret: true,
    description: 'Shared state for several replicas (token, snapshots, caches, events); unset: files under DATA_DIR, one process.',
  }),
  redisPrefix: text({ name: 'REDIS_PREFIX', default: DEFAULT_REDIS_PREFIX, expected: 'a key prefix', description: 'Prefix of every Redis key and channel (several deployments can share one Redis).' }),
  databaseUrl: urlOf({
    name: 'DATABASE_URL',
    protocols: ['postgres', 'postgresql'],
    expected: 'a postgres:// or postgresql:// URL',
    secret: true,
    description: 'PostgreSQL server of the history (replicas share it); unset: the embedded database (PGlite) under DATA_DIR.',
  }),
  goalsFile: text({ name: 'GOALS_FILE', expected: 'the path of the goals file', description: 'Goals (members or monthly amount, of a platform or both) whose progress the graph serves; unset: none.' }),
  history: boolean({
    name: 'HISTORY',
    default: true,
    description: 'Record the channel over time in the database; `false`: no database is opened and the history answers unavailable.',
  }),
  dashboard: boolean({
    name: 'DASHBOARD',
    default: { documented: '`true` with `NODE_ENV=development`', from: (variables) => isDevelopment(variables.NODE_ENV) },
    description: 'Serve /dashboard: the history charted, the goals and the latest changes.',
  }),
  notificationsConfig: text({
    name: 'NOTIFICATIONS_CONFIG',
    default: 'notifications.json',
    expected: 'the path of the notifications file',
    description: 'Where events are sent (signed webhooks, Discord); without the file, nowhere.',
  }),
  notificationsAllowLoopback: boolean({
    name: 'NOTIFICATIONS_ALLOW_LOOPBACK',
    default: false,
    description: 'Notifications may go to loopback addresses, and over plain http to a loopback host (development and tests only).',
  }),
  notificationsReplayToken: text({
    name: 'NOTIFICATIONS_REPLAY_TOKEN',
    secret: true,
    description: 'The operator\'s token for POST /notifications/replay (npm run notifications -- replay); unset: no replay over HTTP.',
  }),
} as const;

type ChannelSettingValues = SettingValues<typeof CHANNEL_SETTINGS>;

/** Every variable `npm start` knows: an unknown one with a prefix of ours is probably a typo. */
const KNOWN_VARIABLES = settingNames(CHANNEL_SETTINGS, GRAPH_SETTINGS);
const OUR_PREFIXES = ['MEMBERSHIP_', 'VIDEO_', 'GRAPHQL_', 'UPSTREAM_', 'HTTP_', 'SHUTDOWN_', 'EVENTS_', 'REDIS_', 'DATABASE_', 'GOALS_', 'NOTIFICATIONS_'] as const;
/** Conventional variables of other programs that share a prefix with ours. */
const FOREIGN_VARIABLES = new Set(['HTTP_PROXY']);

/** A members.json or .env larger than this is refused unread: both are a few kilobytes. */
const MAX_CONFIG_FILE_BYTES = 1024 * 1024;

/** A file's text; undefined when it does not exist and `optional`. */
function readConfigFile(path: string, optional: boolean, notFound: string): string | undefined {
  let text: string;
  try {
    if (statSync(path).size > MAX_CONFIG_FILE_BYTES) throw new ConfigError(path, '(file)', `expected at most ${MAX_CONFIG_FILE_BYTES} bytes`);
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && optional) return undefined;
    throw new ConfigError(path, '(file)', code === 'ENOENT' ? notFound : `could not be read (${code ?? 'error'})`);
  }
  return text;
}

/** The `.env` file's variables; an absent file is none (defaults and the environment apply). */
function readEnvFile(path: string, file: string): Environment | undefined {
  const text = readConfigFile(path, true, 'not found');
  if (text === undefined) return undefined;
  try {
    return parseEnvFile(text);
  } catch (error) {
    if (!(error instanceof EnvFileSyntaxError)) throw error;
    throw new ConfigError(file, `line ${error.line}`, `expected ${error.expected}`);
  }
}

function firstIssue(error: z.ZodError): { path: string; message: string } {
  const issue = error.issues[0];
  return { path: issue?.path.map(String).join('.') ?? '', message: issue?.message ?? 'invalid value' };
}

/** Parses a JSON configuration file's text; a syntax error is located without quoting the text (it holds secrets). */
function parseConfigJson(path: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // JSON.parse's message quotes the text: locate the error ourselves instead.
    const issue = findJsonSyntaxIssue(text) ?? { line: 1, column: 1, expected: 'JSON' };
    throw new ConfigError(path, `line ${issue.line}, column ${issue.column}`, `expected ${issue.expected} (the file is not valid JSON)`);
  }
}

/** members.json: read, parsed and validated against the dashboard request's shape. Never quoted: it holds cookies and tokens. */
export function loadMembersConfig(path: string): MembersConfig {
  const text = readConfigFile(path, false, 'not found (expected the video dashboard values: cp members.example.json members.json)') as string;
  const parsed = membersConfigSchema.safeParse(parseConfigJson(path, text));
  if (!parsed.success) {
    const { path: field, message } = firstIssue(parsed.error);
    throw new ConfigError(path, field || '(root)', `expected ${message}`);
  }
  return parsed.data;
}

/** The goals file: read, parsed and validated (ids unique, a measure, a platform or all, a positive target). */
export function loadGoals(path: string, shownAs: string): Goal[] {
  const text = readConfigFile(path, false, 'not found (expected the goals: { "goals": [{ "id", "title", "measure", "platform", "target" }] })') as string;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    const issue = findJsonSyntaxIssue(text) ?? { line: 1, column: 1, expected: 'JSON' };
    throw new ConfigError(shownAs, `line ${issue.line}, column ${issue.column}`, `expected ${issue.expected} (the file is not valid JSON)`);
  }
  const parsed = goalsFileSchema.safeParse(json);
  if (!parsed.success) {
    const { path: field, message } = firstIssue(parsed.error);
    throw new ConfigError(shownAs, field || '(root)', `expected ${message}`);
  }
  return parsed.data;
}

/**
 * notifications.json (NOTIFICATIONS_CONFIG): the destinations of the events. Absent at its default
 * path, there are none; absent where NOTIFICATIONS_CONFIG points, the start stops. Never quoted: its
 * URLs and secrets are credentials.
 */
export function loadNotificationsConfig(path: string, options: { required: boolean; allowLoopback: boolean }): NotificationsConfig | undefined {
  const text = readConfigFile(path, !options.required, 'not found (NOTIFICATIONS_CONFIG names it; see docs/notifications.md#the-destinations-file)');
  if (text === undefined) return undefined;
  try {
    return parseNotificationsConfig(parseConfigJson(path, text), { allowLoopback: options.allowLoopback });
  } catch (error) {
    if (error instanceof DestinationsError) throw new ConfigError(path, error.field, `expected ${error.expected}`);
    throw error;
  }
}

/** Runs a settings read; its SettingError becomes a ConfigError naming where the value came from. */
function reportedAsConfigError<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof SettingError) throw new ConfigError(error.source, error.setting, error.detail);
    throw error;
  }
}

/**
 * Sandbox or live, never guessed: SANDBOX (whose default is the sandbox without credentials, unless
 * NODE_ENV=production) against the credentials that are set. Sandbox mode with a credential set, and
 * live mode without every credential, are refused.
 */
function readUpstream(settings: ChannelSettingValues, variables: Variables, cwd: string): UpstreamSettings {
  const given = givenCredentials(variables.all);
  if (settings.sandbox) {
    // Only an explicit SANDBOX=true gets here with a credential set: the default is false then.
    if (given.length > 0) {
      throw new ConfigError(
        variables.sourceOf('SANDBOX'),
        'SANDBOX',
        `expected no membership credentials with SANDBOX=true (the sandbox brings its own), but ${given.join(', ')} set: remove them, or unset SANDBOX to serve your channel`,
      );
    }
    return { mode: 'sandbox' };
  }
  const missing = MEMBERSHIP_CREDENTIALS.filter((name) => variables.value(name) === undefined);
  const [firstMissing] = missing;
  if (given.length === 0 && firstMissing !== undefined) {
    const liveBecause = variables.value('SANDBOX') === undefined ? 'NODE_ENV=production' : 'SANDBOX=false';
    throw new ConfigError(
      variables.sourceOf(firstMissing),
      missing.join(', '),
      `expected values: ${liveBecause} serves your channel, with its membership credentials (${SETUP_DOCUMENTED_AT}); SANDBOX=true serves the built-in sandbox's test data instead`,
    );
  }
  if (firstMissing !== undefined) {
    const sandboxByDefault = sandboxWithoutCredentials(variables.value('NODE_ENV')) && variables.value('SANDBOX') === undefined;
    const sandboxMode = sandboxByDefault ? 'all empty (sandbox mode)' : 'all empty with SANDBOX=true (sandbox mode)';
    throw new ConfigError(variables.sourceOf(firstMissing), firstMissing, `expected a value: the membership credentials are all set (live mode) or ${sandboxMode}; ${given.join(', ')} set`);
  }
  return {
    mode: 'live',
    membership: {
      ...readMembershipClient(settings, variables),
      campaignId: settings.membershipCampaignId as string,
      webhookSecret: settings.membershipWebhookSecret as string,
    },
    video: {
      apiBase: settings.videoApiBase,
      members: loadMembersConfig(resolve(cwd, settings.membersConfig)),
    },
  };
}

/** The OAuth2 client of the membership platform and the seed tokens, if `.env` holds them. */
function readMembershipClient(settings: ChannelSettingValues, variables: Variables): Pick<MembershipSettings, 'apiBase' | 'clientId' | 'clientSecret' | 'accessToken' | 'refreshToken'> {
  const { membershipClientId: clientId, membershipClientSecret: clientSecret, membershipAccessToken: accessToken, membershipRefreshToken: refreshToken } = settings;
  for (const [name, value] of [
    ['MEMBERSHIP_CLIENT_ID', clientId],
    ['MEMBERSHIP_CLIENT_SECRET', clientSecret],
  ] as const) {
    if (value === undefined) {
      throw new ConfigError(
        variables.sourceOf(name),
        name,
        `expected a value: the OAuth client of the membership platform (its developer portal shows it; to try the login on the sandbox's test client, see ${SANDBOX_DOCUMENTED_AT})`,
      );
    }
  }
  const tokens = MEMBERSHIP_SEED_TOKENS.filter((name) => variables.value(name) !== undefined);
  const missingToken = MEMBERSHIP_SEED_TOKENS.find((name) => variables.value(name) === undefined);
  if (tokens.length > 0 && missingToken !== undefined) {
    throw new ConfigError(variables.sourceOf(missingToken), missingToken, `expected a value: set both seed tokens or neither (npm run authorize keeps the token under DATA_DIR); ${tokens.join(', ')} set`);
  }
  return {
    apiBase: settings.membershipApiBase,
    clientId: clientId as string,
    clientSecret: clientSecret as string,
    ...(accessToken === undefined || refreshToken === undefined ? {} : { accessToken, refreshToken }),
  };
}

/** What `npm run authorize` needs: the membership platform's OAuth client, the seed tokens, DATA_DIR and REDIS_URL. */
export interface AuthorizeConfig {
  membership: Pick<MembershipSettings, 'apiBase' | 'clientId' | 'clientSecret' | 'accessToken' | 'refreshToken'>;
  dataDir: string;
  /** UPSTREAM_TIMEOUT_MS: deadline of each call to the platform's token and revocation endpoints. */
  upstreamTimeoutMs: number;
  /** Set: the token goes to Redis, where the replicas read it, and to no file. */
  redis?: RedisSettings;
}

export interface LoadConfigOptions {
  /** Default: process.cwd(). Relative paths (.env, MEMBERS_CONFIG, DATA_DIR) resolve against it. */
  cwd?: string;
  /** Default: process.env. Its variables win over the `.env` file's. */
  env?: Environment;
  /** Default: `ENV_FILE` or `.env`. */
  envFile?: string;
  /**
   * Told of each variable that has one of our prefixes but is no setting (a typo, probably), with the
   * closest known name. Default: one `configuration warning: …` line on stderr.
   */
  onWarning?: (message: string) => void;
}

/** `.env` (if it exists) under the process environment, each value remembering which of the two it came from. */
function readVariables(options: LoadConfigOptions): { cwd: string; variables: Variables } {
  const cwd = options.cwd ?? process.cwd();
  const processEnv = options.env ?? process.env;
  const file = options.envFile ?? reportedAsConfigError(() => Variables.of(processEnv).read(CHANNEL_SETTINGS.envFile));
  // The file's layer comes first: a value missing everywhere is reported against the file, where it
  // belongs — or, when there is no such file, against the environment, saying that the file is missing.
  const fileVariables = readEnvFile(resolve(cwd, file), file);
  const fileLayer = fileVariables === undefined ? { source: `${PROCESS_ENVIRONMENT} (no ${file} file)`, variables: {} } : { source: file, variables: fileVariables };
  return { cwd, variables: new Variables([fileLayer, { source: PROCESS_ENVIRONMENT, variables: processEnv }]) };
}

function warnOfUnknownVariables(variables: Variables, onWarning: (message: string) => void): void {
  for (const warning of unknownSettingWarnings(variables, KNOWN_VARIABLES, OUR_PREFIXES, FOREIGN_VARIABLES)) onWarning(warning);
}

const warnOnStderr = (message: string): void => {
  process.stderr.write(`configuration warning: ${message}\n`);
};

/** Reads the part of the configuration `npm run authorize` uses (no campaign, webhook or members.json needed yet). */
export function loadAuthorizeConfig(options: LoadConfigOptions = {}): AuthorizeConfig {
  const { cwd, variables } = readVariables(options);
  warnOfUnknownVariables(variables, options.onWarning ?? warnOnStderr);
  const settings = reportedAsConfigError(() => variables.readAll(CHANNEL_SETTINGS));
  return {
    membership: readMembershipClient(settings, variables),
    dataDir: resolve(cwd, settings.dataDir),
    upstreamTimeoutMs: settings.upstreamTimeoutMs,
    ...(settings.redisUrl === undefined ? {} : { redis: { url: settings.redisUrl, prefix: settings.redisPrefix } }),
  };
}

/** What `npm run notifications -- replay` needs: where the running service listens, and the replay token. */
export interface ReplayConfig {
  /** `http://<HOST>:<PORT>`, the loopback address when HOST is every interface. */
  serviceUrl: string;
  /** NOTIFICATIONS_REPLAY_TOKEN; undefined when unset. */
  replayToken: string | undefined;
}

/** Reads the part of the configuration the replay command uses (the service's own `.env`). */
export function loadReplayConfig(options: LoadConfigOptions = {}): ReplayConfig {
  const { variables } = readVariables(options);
  warnOfUnknownVariables(variables, options.onWarning ?? warnOnStderr);
  const settings = reportedAsConfigError(() => variables.readAll(CHANNEL_SETTINGS));
  const host = settings.host === '0.0.0.0' ? '127.0.0.1' : settings.host === '::' ? '[::1]' : settings.host.includes(':') ? `[${settings.host}]` : settings.host;
  const token = settings.notificationsReplayToken;
  return { serviceUrl: `http://${host}:${settings.port}`, replayToken: token === undefined || token === '' ? undefined : token };
}

function readHttpServer(settings: ChannelSettingValues, variables: Variables): HttpServerSettings {
  const http: HttpServerSettings = {
    headersTimeoutMs: settings.httpHeadersTimeoutMs,
    requestTimeoutMs: settings.httpRequestTimeoutMs,
    keepAliveTimeoutMs: settings.httpKeepAliveTimeoutMs,
  };
  // node:http refuses a headers timeout longer than the request timeout (ERR_OUT_OF_RANGE).
  if (http.headersTimeoutMs > http.requestTimeoutMs) {
    throw new ConfigError(
      variables.sourceOf('HTTP_HEADERS_TIMEOUT_MS'),
      'HTTP_HEADERS_TIMEOUT_MS',
      `expected at most HTTP_REQUEST_TIMEOUT_MS (${http.requestTimeoutMs}), got ${http.headersTimeoutMs}`,
    );
  }
  return http;
}

/** Reads and validates the whole configuration; throws ConfigError (one line) on the first bad value. */
export function loadConfig(options: LoadConfigOptions = {}): ChannelConfig {
  const { cwd, variables } = readVariables(options);
  warnOfUnknownVariables(variables, options.onWarning ?? warnOnStderr);
  const settings = reportedAsConfigError(() => variables.readAll(CHANNEL_SETTINGS));
  const graph = reportedAsConfigError(() => readGraphSettings(variables));
  return {
    port: settings.port,
    host: settings.host,
    dataDir: resolve(cwd, settings.dataDir),
    refreshIntervalSeconds: settings.refreshIntervalSeconds,
    upstream: readUpstream(settings, variables, cwd),
    graph,
    upstreamTimeoutMs: settings.upstreamTimeoutMs,
    shutdownTimeoutMs: settings.shutdownTimeoutMs,
    http: readHttpServer(settings, variables),
    logLevel: settings.logLevel as LogLevel, // one of LOG_LEVELS: oneOf validated it
    ...(settings.metricsToken === undefined || settings.metricsToken === '' ? {} : { metricsToken: settings.metricsToken }),
    events: { logSize: settings.eventsLogSize, maxStreams: settings.eventsMaxStreams },
    ...(settings.redisUrl === undefined ? {} : { redis: { url: settings.redisUrl, prefix: settings.redisPrefix } }),
    compression: settings.compression,
    ...(settings.databaseUrl === undefined ? {} : { databaseUrl: settings.databaseUrl }),
    ...(settings.goalsFile === undefined ? {} : { goals: loadGoals(resolve(cwd, settings.goalsFile), settings.goalsFile) }),
    dashboard: settings.dashboard,
    ...(settings.history ? {} : { history: false }),
    ...optionalNotifications(settings, variables, cwd),
  };
}

function optionalNotifications(settings: ChannelSettingValues, variables: Variables, cwd: string): Pick<ChannelConfig, 'notifications' | 'notificationsAllowLoopback' | 'notificationsReplayToken'> {
  const allowLoopback = settings.notificationsAllowLoopback;
  const notifications = loadNotificationsConfig(resolve(cwd, settings.notificationsConfig), { required: variables.value('NOTIFICATIONS_CONFIG') !== undefined, allowLoopback });
  if (notifications !== undefined && notifications.destinations.length > 0 && !settings.history) {
    throw new ConfigError(variables.sourceOf('HISTORY'), 'HISTORY', `expected true (the default) while ${settings.notificationsConfig} names destinations: their outbox is kept in the history's database`);
  }
  const replayToken = settings.notificationsReplayToken;
  return {
    ...(notifications === undefined ? {} : { notifications }),
    notificationsAllowLoopback: allowLoopback,
    ...(replayToken === undefined || replayToken === '' ? {} : { notificationsReplayToken: replayToken }),
  };
}

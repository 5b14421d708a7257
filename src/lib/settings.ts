/**
 * Settings read from environment variables, each declared ONCE: its variable, how its text is
 * parsed (a zod schema), its default and a one-line description. The services' readers
 * (`src/config.ts`, `src/graphql/graph-settings.ts`, `src/sandbox/settings.ts`), the docs'
 * settings tables and `.env.example` all follow these declarations (test/config-documented.test.ts
 * checks the documents against them).
 *
 * Adding a setting is one line in the declaring object, e.g.
 *   `maxItems: integer({ name: 'FOO_MAX_ITEMS', min: 1, max: 1000, default: 50, description: '…' }),`
 * and `readSettings` returns it typed.
 */
import { z } from 'zod';

/** Variables by name, as `process.env` holds them. */
export type Environment = Readonly<Record<string, string | undefined>>;

/**
 * Variables and where they came from: a file path (`.env`) or `environment` (the process
 * environment). A later layer wins over an earlier one.
 */
export interface VariableLayer {
  readonly source: string;
  readonly variables: Environment;
}

/** The source name of the process environment in messages. */
export const PROCESS_ENVIRONMENT = 'environment';

/** A default that depends on other variables (`GRAPHQL_MASK_ERRORS`: not in development). */
export interface DerivedDefault<T> {
  /** How the docs and `.env.example` state it (Markdown allowed). */
  readonly documented: string;
  readonly from: (variables: Environment) => T;
}

export interface Setting<T> {
  /** The environment variable. */
  readonly name: string;
  /** One line: what it controls. */
  readonly description: string;
  /** Used when the variable is unset or empty. `undefined`: the setting is optional, without default. */
  readonly default: T | DerivedDefault<T> | undefined;
  /** A secret's value never appears in a message. */
  readonly secret: boolean;
  /** Parses the variable's text; its issue message is the "expected …" phrase. */
  readonly schema: z.ZodType<T, string>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a declaration of any value type.
type AnySetting = Setting<any>;
export type SettingDeclarations = Readonly<Record<string, AnySetting>>;

/** A declaration's value type: optional settings without default may be `undefined`. */
export type SettingValue<S> = S extends Setting<infer T> ? (S['default'] extends undefined ? T | undefined : T) : never;
export type SettingValues<D extends SettingDeclarations> = { -readonly [K in keyof D]: SettingValue<D[K]> };

/** `<NAME>: expected …, got "…"`; `source` says where the value came from (`.env`, `environment`). */
export class SettingError extends Error {
  override readonly name = 'SettingError';
  constructor(
    readonly source: string,
    readonly setting: string,
    /** `expected …[, got "…"]`. */
    readonly detail: string,
  ) {
    super(`${setting}: ${detail}`);
  }
}

interface DeclarationOptions<T> {
  name: string;
  description: string;
  default?: T | DerivedDefault<T>;
  secret?: boolean;
}

function declare<T>(options: DeclarationOptions<T>, schema: z.ZodType<T, string>): Setting<T> {
  return { name: options.name, description: options.description, default: options.default, secret: options.secret ?? false, schema };
}

/** The declaration's type keeps the default's own type, so `SETTINGS.port.default` is a number. */
type Declared<T, O> = O extends { default: infer D extends T | DerivedDefault<T> } ? Setting<T> & { readonly default: D } : Setting<T> & { readonly default: undefined };

/** A whole number (digits only) in `[min, max]`; `expected` defaults to "an integer min-max". */
export function integer<O extends DeclarationOptions<number> & { min: number; max?: number; expected?: string }>(options: O): Declared<number, O> {
  const max = options.max ?? Number.MAX_SAFE_INTEGER;
  const expected =
    options.expected ??
    (max < Number.MAX_SAFE_INTEGER ? `an integer ${options.min}-${max}` : options.min === 1 ? 'a positive integer' : options.min === 0 ? 'a non-negative integer' : `an integer of at least ${options.min}`);
  const schema = z
    .string()
    .regex(/^\d+$/, { error: expected })
    .transform(Number)
    .refine((value) => Number.isSafeInteger(value) && value >= options.min && value <= max, { error: expected });
  return declare(options, schema) as Declared<number, O>;
}

/** Milliseconds, a whole number in `[min, max]`: "expected milliseconds min-max". */
export function milliseconds<O extends DeclarationOptions<number> & { min: number; max: number }>(options: O): Declared<number, O> {
  return integer({ ...options, expected: `milliseconds ${options.min}-${options.max}` });
}

/** `true`/`1` or `false`/`0`. */
export function boolean<O extends DeclarationOptions<boolean>>(options: O): Declared<boolean, O> {
  const schema = z.enum(['true', '1', 'false', '0'], { error: 'true or false' }).transform((value) => value === 'true' || value === '1');
  return declare(options, schema) as Declared<boolean, O>;
}

/** One of `values`. */
export function oneOf<const V extends string, O extends DeclarationOptions<V> & { values: readonly [V, ...V[]] }>(options: O): Declared<V, O> {
  const schema = z.enum(options.values, { error: `one of ${options.values.join(', ')}` }) as unknown as z.ZodType<V, string>;
  return declare(options, schema) as Declared<V, O>;
}

/** An http(s) URL; trailing slashes are removed (paths are appended to it). */
export function httpUrl<O extends DeclarationOptions<string>>(options: O): Declared<string, O> {
  const schema = z.url({ protocol: /^https?$/, error: 'an http(s) URL' }).transform((value) => value.replace(/\/+$/, ''));
  return declare(options, schema) as Declared<string, O>;
}

/** A URL with one of `protocols` (e.g. `redis`, `rediss`), kept as written; `expected` says what it should be. */
export function urlOf<O extends DeclarationOptions<string> & { protocols: readonly [string, ...string[]]; expected: string }>(options: O): Declared<string, O> {
  const protocol = new RegExp(`^(?:${options.protocols.join('|')})$`);
  return declare(options, z.url({ protocol, error: options.expected })) as Declared<string, O>;
}

/** Any non-empty text (a path, a host name, a credential); `expected` says what it should be. */
export function text<O extends DeclarationOptions<string> & { expected?: string }>(options: O): Declared<string, O> {
  return declare(options, z.string().min(1, { error: options.expected ?? 'a value' })) as Declared<string, O>;
}

/** The docs' / `.env.example` text of a setting's default: `` `4000` ``, the derived text, or `—`. */
export function documentedDefault(setting: AnySetting): string {
  const fallback = setting.default as string | number | boolean | DerivedDefault<unknown> | undefined;
  if (fallback === undefined) return '—';
  return isDerived(fallback) ? fallback.documented : `\`${String(fallback)}\``;
}

function isDerived<T>(fallback: T | DerivedDefault<T>): fallback is DerivedDefault<T> {
  return typeof fallback === 'object' && fallback !== null && 'from' in fallback && 'documented' in fallback;
}

/**
 * The variables of several layers (`.env`, then the process environment), each value remembering
 * its layer so that a bad one is reported where it really is.
 */
export class Variables {
  readonly #layers: readonly VariableLayer[];
  readonly #merged: Record<string, string | undefined> = {};

  constructor(layers: readonly VariableLayer[]) {
    this.#layers = layers;
    for (const layer of layers) Object.assign(this.#merged, layer.variables);
  }

  /** Only the process environment (or any one object of variables), named `source`. */
  static of(variables: Environment, source = PROCESS_ENVIRONMENT): Variables {
    return new Variables([{ source, variables }]);
  }

  /** Every variable, the winning layer's value. */
  get all(): Environment {
    return this.#merged;
  }

  /** The value; unset and empty are the same: "not given". */
  value(name: string): string | undefined {
    const value = this.#merged[name];
    return value === '' ? undefined : value;
  }

  /** The layer that gave the variable its value; the first layer (the file) when none did. */
  sourceOf(name: string): string {
    for (let index = this.#layers.length - 1; index >= 0; index -= 1) {
      const layer = this.#layers[index] as VariableLayer;
      if (layer.variables[name] !== undefined) return layer.source;
    }
    return this.#layers[0]?.source ?? PROCESS_ENVIRONMENT;
  }

  /** Every variable with its winning layer. */
  *entries(): Generator<{ name: string; source: string }> {
    for (const name of Object.keys(this.#merged)) yield { name, source: this.sourceOf(name) };
  }

  /** Reads one setting; throws SettingError naming the variable's source on a bad value. */
  read<S extends AnySetting>(setting: S): SettingValue<S> {
    const raw = this.value(setting.name);
    if (raw === undefined) {
      const fallback: unknown = setting.default;
      return (isDerived(fallback) ? fallback.from(this.#merged) : fallback) as SettingValue<S>;
    }
    const parsed = setting.schema.safeParse(raw);
    if (parsed.success) return parsed.data as SettingValue<S>;
    const expected = parsed.error.issues[0]?.message ?? 'a valid value';
    throw new SettingError(this.sourceOf(setting.name), setting.name, `expected ${expected}${setting.secret ? '' : `, got ${JSON.stringify(raw)}`}`);
  }

  /** Reads every declared setting; the first bad one throws. */
  readAll<D extends SettingDeclarations>(declarations: D): SettingValues<D> {
    const values: Record<string, unknown> = {};
    for (const [key, setting] of Object.entries(declarations)) values[key] = this.read(setting);
    return values as SettingValues<D>;
  }
}

/** Reads the declared settings from one object of variables (the process environment by default). */
export function readSettings<D extends SettingDeclarations>(declarations: D, variables: Environment | Variables = process.env): SettingValues<D> {
  return (variables instanceof Variables ? variables : Variables.of(variables)).readAll(declarations);
}

/** Levenshtein distance (insertions, deletions, substitutions), for "did you mean …". */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      current[j] = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length] as number;
}

/** The known name closest to `name`. */
export function closestName(name: string, known: Iterable<string>): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(name, candidate);
    if (best === undefined || distance < best.distance) best = { name: candidate, distance };
  }
  return best?.name;
}

/**
 * Variables that look like ours (one of `prefixes`) but are not declared — usually a typo that would
 * otherwise be silently ignored: one message each, naming the source and the closest known name.
 */
export function unknownSettingWarnings(variables: Variables, known: ReadonlySet<string>, prefixes: readonly string[], ignored: ReadonlySet<string> = new Set()): string[] {
  const warnings: string[] = [];
  for (const { name, source } of variables.entries()) {
    if (known.has(name) || ignored.has(name) || !prefixes.some((prefix) => name.startsWith(prefix))) continue;
    const closest = closestName(name, known);
    warnings.push(`${source}: ${name} is not a known setting and is ignored${closest === undefined ? '' : ` (did you mean ${closest}?)`}`);
  }
  return warnings;
}

/** The variable names of some declarations. */
export function settingNames(...declarations: readonly SettingDeclarations[]): Set<string> {
  return new Set(declarations.flatMap((group) => Object.values(group).map((setting) => setting.name)));
}

/**
 * Fault injection for the sandbox's platform endpoints and its token endpoint (not its control
 * endpoints). Whether a request is hit is drawn from a PRNG seeded with the sandbox seed and reset
 * whenever a fault is set, so a given seed and request sequence always fail the same requests.
 */
import { z } from 'zod';
import { createRandom, streamSeed, type Random } from './prng.js';

/** `token`: the token endpoint; `all`: both platforms' APIs. */
export type FaultTarget = 'membership' | 'video' | 'token';

/** 'headers': the request is accepted and never answered; 'body': the headers and a first byte of the body, then nothing. */
export type Stall = 'headers' | 'body';

export const faultRequestSchema = z
  .object({
    target: z.enum(['membership', 'video', 'token', 'all']),
    status: z.number().int().min(400).max(599).optional(),
    rate: z.number().min(0).max(1).optional(),
    latencyMs: z.number().int().min(0).max(120_000).optional(),
    /** true or 'shape': valid JSON of the wrong shape; 'json': a truncated JSON body. */
    malformed: z.union([z.boolean(), z.enum(['shape', 'json'])]).optional(),
    stall: z.enum(['headers', 'body']).optional(),
  })
  .strict()
  .refine((f) => f.status !== undefined || f.latencyMs !== undefined || (f.malformed !== undefined && f.malformed !== false) || f.stall !== undefined, {
    message: 'give at least one of status, latencyMs, malformed, stall',
  })
  .refine((f) => [f.status !== undefined, f.malformed !== undefined && f.malformed !== false, f.stall !== undefined].filter(Boolean).length <= 1, {
    message: 'status, malformed and stall exclude each other',
  })
  .refine((f) => !(f.target === 'token' && f.malformed !== undefined && f.malformed !== false), {
    message: 'the token endpoint takes status, latencyMs or stall, not malformed',
  });

export type FaultRequest = z.infer<typeof faultRequestSchema>;

export interface Fault {
  status?: number;
  rate: number;
  latencyMs: number;
  malformed?: 'shape' | 'json';
  stall?: Stall;
}

/** What to do with one request: nothing, or delay and then fail, garble or stall. */
export type FaultDecision = { latencyMs: number; status?: number; malformed?: 'shape' | 'json'; stall?: Stall } | null;

export class FaultInjector {
  readonly #faults = new Map<FaultTarget, { fault: Fault; random: Random }>();

  constructor(readonly seed: number) {}

  set(request: FaultRequest): void {
    const targets: FaultTarget[] = request.target === 'all' ? ['membership', 'video'] : [request.target];
    const malformed = request.malformed === true ? 'shape' : request.malformed === false ? undefined : request.malformed;
    const fault: Fault = { rate: request.rate ?? 1, latencyMs: request.latencyMs ?? 0 };
    if (request.status !== undefined) fault.status = request.status;
    if (malformed !== undefined) fault.malformed = malformed;
    if (request.stall !== undefined) fault.stall = request.stall;
    targets.forEach((target, i) => this.#faults.set(target, { fault, random: createRandom(streamSeed(this.seed, 0xfa17 + i)) }));
  }

  clear(): void {
    this.#faults.clear();
  }

  list(): Partial<Record<FaultTarget, Fault>> {
    return Object.fromEntries([...this.#faults].map(([target, { fault }]) => [target, fault]));
  }

  /** Draws the decision for the next request to `target`. */
  decide(target: FaultTarget): FaultDecision {
    const entry = this.#faults.get(target);
    if (!entry) return null;
    if (entry.fault.rate < 1 && entry.random() >= entry.fault.rate) return null;
    const { latencyMs, status, malformed, stall } = entry.fault;
    return { latencyMs, ...(status !== undefined && { status }), ...(malformed !== undefined && { malformed }), ...(stall !== undefined && { stall }) };
  }
}

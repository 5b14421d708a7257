import { join } from 'node:path';
import { z } from 'zod';
import { readFileIfExists, writeFileAtomic } from '../lib/atomic-file.js';
import type { StatsSnapshot, SupportersSnapshot } from './models.js';

/**
 * On-disk form of one source's last good snapshot: `<dataDir>/snapshot-<source>.json`. The content is
 * validated when read back, so a file from an older version or a hand-edited one is ignored with a
 * warning instead of being served.
 */
const FORMAT_VERSION = 1;

const platformSchema = z.enum(['membership', 'video']);
const isoDateTime = z.string().refine((value) => !Number.isNaN(Date.parse(value)), 'an ISO-8601 date-time');

const tierSchema = z.object({
  id: z.string(),
  platform: platformSchema,
  title: z.string().nullable(),
  amountCents: z.number().int().nullable(),
});

const supporterSchema = z.object({
  id: z.string(),
  platform: platformSchema,
  name: z.string().nullable(),
  tierId: z.string().nullable(),
  amountCents: z.number().int(),
  since: isoDateTime,
  lifetimeCents: z.number().int().nullable().optional(),
  daysAtTier: z.number().nullable().optional(),
});

export const supportersSnapshotSchema: z.ZodType<SupportersSnapshot> = z.object({
  platform: platformSchema,
  supporters: z.array(supporterSchema),
  tiers: z.array(tierSchema),
  fetchedAt: isoDateTime,
});

export const statsSnapshotSchema: z.ZodType<StatsSnapshot> = z.object({
  subscribers: z.number().int().nullable(),
  fetchedAt: isoDateTime,
});

export function snapshotPath(dataDir: string, source: string): string {
  return join(dataDir, `snapshot-${source}.json`);
}

export async function writeSnapshotFile(path: string, snapshot: unknown): Promise<void> {
  await writeFileAtomic(path, JSON.stringify({ version: FORMAT_VERSION, snapshot }));
}

export class SnapshotFileError extends Error {
  override readonly name = 'SnapshotFileError';
}

/** The stored snapshot, null when there is none; throws SnapshotFileError when the file is unusable. */
export async function readSnapshotFile<T>(path: string, schema: z.ZodType<T>): Promise<T | null> {
  const text = await readFileIfExists(path);
  if (text === null) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new SnapshotFileError(`${path}: not valid JSON`);
  }
  const envelope = z.object({ version: z.literal(FORMAT_VERSION), snapshot: schema }).safeParse(parsed);
  if (!envelope.success) {
    const issue = envelope.error.issues[0];
    throw new SnapshotFileError(`${path}: ${issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'unexpected content'}`);
  }
  return envelope.data.snapshot;
}

/**
 * What one snapshot changed against the supporters as last recorded, and the totals it shows. Pure
 * functions: the recorder runs them inside its transaction, the graph runs `totalsOf` over the
 * snapshots in memory.
 */
import { createHash } from 'node:crypto';
import type { Platform, StatsSnapshot, SupportersSnapshot } from '../channel/models.js';

/** A supporter as recorded: what a change is measured on. */
export interface RecordedSupporter {
  id: string;
  name: string | null;
  tierId: string | null;
  tierTitle: string | null;
  amountCents: number;
}

export type ChangeKind = 'joined' | 'left' | 'upgraded' | 'downgraded' | 'tier_changed';

export const CHANGE_KINDS: readonly ChangeKind[] = ['joined', 'left', 'upgraded', 'downgraded', 'tier_changed'];

/** One supporter's change between two recorded snapshots of a platform. */
export interface SupporterChangeRecord {
  platform: Platform;
  supporterId: string;
  kind: ChangeKind;
  name: string | null;
  /** null for `joined`. */
  before: { tierId: string | null; tierTitle: string | null; amountCents: number } | null;
  /** null for `left`. */
  after: { tierId: string | null; tierTitle: string | null; amountCents: number } | null;
}

/** The supporters of a snapshot as they are recorded, by id. */
export function recordedSupportersOf(snapshot: SupportersSnapshot): Map<string, RecordedSupporter> {
  const titles = new Map(snapshot.tiers.map((tier) => [tier.id, tier.title]));
  return new Map(
    snapshot.supporters.map((supporter) => [
      supporter.id,
      { id: supporter.id, name: supporter.name, tierId: supporter.tierId, tierTitle: supporter.tierId === null ? null : (titles.get(supporter.tierId) ?? null), amountCents: supporter.amountCents },
    ]),
  );
}

function kindOf(before: RecordedSupporter, after: RecordedSupporter): ChangeKind | undefined {
  if (after.amountCents > before.amountCents) return 'upgraded';
  if (after.amountCents < before.amountCents) return 'downgraded';
  return after.tierId !== before.tierId ? 'tier_changed' : undefined;
}

const levelOf = (supporter: RecordedSupporter): NonNullable<SupporterChangeRecord['before']> => ({
  tierId: supporter.tierId,
  tierTitle: supporter.tierTitle,
  amountCents: supporter.amountCents,
});

/**
 * The changes from `recorded` to `current`: joins and amount or tier changes in `current`'s order,
 * then leaves. `rewritten` gets the supporters whose stored row must change without a change to
 * record (a new name or tier title).
 */
export function diffRecorded(
  platform: Platform,
  recorded: ReadonlyMap<string, RecordedSupporter>,
  current: ReadonlyMap<string, RecordedSupporter>,
): { changes: SupporterChangeRecord[]; rewritten: RecordedSupporter[] } {
  const changes: SupporterChangeRecord[] = [];
  const rewritten: RecordedSupporter[] = [];
  for (const supporter of current.values()) {
    const old = recorded.get(supporter.id);
    if (old === undefined) {
      changes.push({ platform, supporterId: supporter.id, kind: 'joined', name: supporter.name, before: null, after: levelOf(supporter) });
      continue;
    }
    const kind = kindOf(old, supporter);
    if (kind !== undefined) changes.push({ platform, supporterId: supporter.id, kind, name: supporter.name, before: levelOf(old), after: levelOf(supporter) });
    else if (old.name !== supporter.name || old.tierTitle !== supporter.tierTitle) rewritten.push(supporter);
  }
  for (const old of recorded.values()) {
    if (!current.has(old.id)) changes.push({ platform, supporterId: old.id, kind: 'left', name: old.name, before: levelOf(old), after: null });
  }
  return { changes, rewritten };
}

/** Members and monthly amount at one tier (`tierId` '' for supporters at no tier). */
export interface TierTotals {
  tierId: string;
  title: string | null;
  members: number;
  monthlyCents: number;
}

export interface PlatformTotals {
  platform: Platform;
  members: number;
  monthlyCents: number;
  /** Tiers with at least one member, by id. */
  tiers: TierTotals[];
}

export function totalsOf(snapshot: SupportersSnapshot): PlatformTotals {
  const titles = new Map(snapshot.tiers.map((tier) => [tier.id, tier.title]));
  const tiers = new Map<string, TierTotals>();
  let monthlyCents = 0;
  for (const supporter of snapshot.supporters) {
    monthlyCents += supporter.amountCents;
    const tierId = supporter.tierId ?? '';
    let tier = tiers.get(tierId);
    if (tier === undefined) {
      tier = { tierId, title: supporter.tierId === null ? null : (titles.get(supporter.tierId) ?? null), members: 0, monthlyCents: 0 };
      tiers.set(tierId, tier);
    }
    tier.members += 1;
    tier.monthlyCents += supporter.amountCents;
  }
  return {
    platform: snapshot.platform,
    members: snapshot.supporters.length,
    monthlyCents,
    tiers: [...tiers.values()].sort((a, b) => (a.tierId < b.tierId ? -1 : a.tierId > b.tierId ? 1 : 0)),
  };
}

/**
 * A snapshot's id: a digest of the whole snapshot, `fetchedAt` included. The same snapshot gets the same
 * id in every process that holds it (a replica that read it from Redis, a restart that read it from
 * disk), and every refresh or webhook makes a new one; recording is idempotent by it.
 */
export function snapshotId(snapshot: SupportersSnapshot | StatsSnapshot): string {
  return createHash('sha256').update(JSON.stringify(snapshot)).digest('base64url').slice(0, 32);
}

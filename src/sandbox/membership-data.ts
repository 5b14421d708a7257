/**
 * The membership platform's seeded dataset: a campaign with four tiers and `size` members. Members
 * are generated lazily from (seed, index), so 100,000 of them cost nothing until a page is read, and
 * webhook-driven changes are kept as small overrides on top of the generated records. It holds what
 * the platform's docs show it sends (openapi/upstreams/membership-v2.yaml): active, declined and
 * former patrons, members who never pledged (status, amount and pledge start null, as in the docs'
 * webhook sample), members whose user record is gone, and tier titles with emoji.
 */
import { FIRST_NAMES, LAST_NAMES } from './names.js';
import { createRandom, pick, randomInt, streamSeed, type Random } from './prng.js';

/** null: the member never pledged (a free member or follower). */
export type PatronStatus = 'active_patron' | 'declined_patron' | 'former_patron' | null;

export interface MembershipTierRecord {
  id: string;
  title: string;
  amountCents: number;
}

export interface MembershipUserRecord {
  id: string;
  /** Empty for some users, as on the real platform (the member's full name still has it). */
  firstName: string;
  fullName: string;
}

export interface MemberRecord {
  index: number;
  id: string;
  fullName: string;
  patronStatus: PatronStatus;
  /** null for a member who never pledged. */
  currentlyEntitledAmountCents: number | null;
  /** Patreon-style timestamp, e.g. `2024-03-05T10:11:12.000+00:00`; null for a member who never pledged. */
  pledgeRelationshipStart: string | null;
  campaignLifetimeSupportCents: number;
  /** Tier ids in the order the platform lists them (not sorted by amount). */
  entitledTierIds: string[];
  /** null: the member's user record is gone (the relationship's data is null). */
  user: MembershipUserRecord | null;
}

/** What a webhook-style change may set on a member. */
export type MemberOverride = Partial<
  Pick<MemberRecord, 'patronStatus' | 'currentlyEntitledAmountCents' | 'pledgeRelationshipStart' | 'entitledTierIds'>
>;

/** Titles as creators type them, emoji included (the service strips them). */
export const MEMBERSHIP_TIERS: readonly MembershipTierRecord[] = [
  { id: '8100001', title: 'Supporter 🌱', amountCents: 300 },
  { id: '8100002', title: '⭐ Fan', amountCents: 500 },
  { id: '8100003', title: '🔥 Champion 🔥', amountCents: 1000 },
  { id: '8100004', title: '😇 Patron Saint', amountCents: 2500 },
];

/** Pledge start times count back from this fixed instant, so the dataset never depends on the clock. */
const DATASET_ANCHOR_MS = Date.UTC(2026, 0, 1);
const DAY_MS = 86_400_000;

/** Patreon's timestamp format: milliseconds and an explicit `+00:00` offset. */
export function formatPatreonTime(ms: number): string {
  return new Date(ms).toISOString().replace('Z', '+00:00');
}

export class MembershipDataset {
  readonly tiers = MEMBERSHIP_TIERS;
  readonly #overrides = new Map<number, MemberOverride>();
  readonly #idPrefix: string;

  constructor(
    readonly seed: number,
    readonly size: number,
  ) {
    this.#idPrefix = streamSeed(seed, -1).toString(16).padStart(8, '0');
  }

  /** Member `index` (0 ≤ index < size), with any webhook override applied. */
  member(index: number): MemberRecord {
    const generated = this.#generate(index);
    const override = this.#overrides.get(index);
    return override ? { ...generated, ...override } : generated;
  }

  /** Members [start, end). */
  slice(start: number, end: number): MemberRecord[] {
    const out: MemberRecord[] = [];
    for (let i = Math.max(0, start); i < Math.min(end, this.size); i += 1) out.push(this.member(i));
    return out;
  }

  /** The index of a member id, or undefined for an id this dataset never issued. */
  indexOf(memberId: string): number | undefined {
    const match = /^([0-9a-f]{8})-0000-4000-8000-([0-9a-f]{12})$/.exec(memberId);
    if (!match || match[1] !== this.#idPrefix) return undefined;
    const index = Number.parseInt(match[2] ?? '', 16);
    return index < this.size ? index : undefined;
  }

  tier(id: string): MembershipTierRecord | undefined {
    return this.tiers.find((tier) => tier.id === id);
  }

  override(index: number, change: MemberOverride): MemberRecord {
    this.#overrides.set(index, { ...this.#overrides.get(index), ...change });
    return this.member(index);
  }

  #generate(index: number): MemberRecord {
    const random = createRandom(streamSeed(this.seed, index));
    const first = pick(random, FIRST_NAMES);
    const last = pick(random, LAST_NAMES);
    const fullName = `${first} ${last}`;
    const statusRoll = random();
    const patronStatus: PatronStatus =
      statusRoll < 0.7 ? 'active_patron' : statusRoll < 0.8 ? 'declined_patron' : statusRoll < 0.93 ? 'former_patron' : null;
    const tierIndex = weightedTierIndex(random);
    const tier = MEMBERSHIP_TIERS[tierIndex] ?? MEMBERSHIP_TIERS[0]!;
    const ageDays = randomInt(random, 3, 1400);
    const startMs = DATASET_ANCHOR_MS - ageDays * DAY_MS - randomInt(random, 0, DAY_MS - 1);
    const shape = random();
    let entitledTierIds: string[];
    let amount: number | null;
    if (patronStatus === null) {
      entitledTierIds = [];
      amount = null;
    } else if (patronStatus === 'former_patron') {
      entitledTierIds = [];
      amount = 0;
    } else if (shape < 0.6) {
      // The common case: one tier at its price.
      entitledTierIds = [tier.id];
      amount = tier.amountCents;
    } else if (shape < 0.7) {
      // Pays more than the tier price.
      entitledTierIds = [tier.id];
      amount = tier.amountCents + randomInt(random, 1, 20) * 50;
    } else if (shape < 0.85) {
      // Entitled to every tier up to theirs, listed in no particular order: the level is the highest.
      entitledTierIds = MEMBERSHIP_TIERS.slice(0, tierIndex + 1).map((t) => t.id).reverse();
      if (entitledTierIds.length > 2) entitledTierIds.push(entitledTierIds.shift()!);
      amount = tier.amountCents;
    } else if (shape < 0.95) {
      // No entitlement listed, but the amount matches a tier: the fallback rule finds it.
      entitledTierIds = [];
      amount = tier.amountCents;
    } else {
      // A custom pledge that matches no tier.
      entitledTierIds = [];
      amount = randomInt(random, 1, 9) * 100 + 77;
    }
    const months = Math.max(1, Math.floor(ageDays / 30));
    const lifetime =
      patronStatus === null ? 0 : patronStatus === 'former_patron' ? randomInt(random, 1, 24) * tier.amountCents : months * Math.max(amount ?? 0, 100);
    const hasFirstName = random() >= 0.1;
    const hasUser = random() >= 0.05;
    return {
      index,
      id: `${this.#idPrefix}-0000-4000-8000-${index.toString(16).padStart(12, '0')}`,
      fullName,
      patronStatus,
      currentlyEntitledAmountCents: amount,
      pledgeRelationshipStart: patronStatus === null ? null : formatPatreonTime(startMs),
      campaignLifetimeSupportCents: lifetime,
      entitledTierIds,
      user: hasUser ? { id: String(50_000_000 + index), firstName: hasFirstName ? first : '', fullName } : null,
    };
  }
}

/** Cheaper tiers are more popular. */
function weightedTierIndex(random: Random): number {
  const roll = random();
  return roll < 0.4 ? 0 : roll < 0.7 ? 1 : roll < 0.9 ? 2 : 3;
}

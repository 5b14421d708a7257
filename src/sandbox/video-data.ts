/**
 * The video platform's seeded dataset: three membership tiers whose names carry decorative emoji,
 * `size` channel members (each at their tier for some days or, past a month, some months, as the
 * dashboard counts them), the channels' titles and the subscriber count.
 */
import { FIRST_NAMES, HANDLE_WORDS, LAST_NAMES, TITLE_DECORATIONS } from './names.js';
import { createRandom, pick, randomInt, randomString, streamSeed } from './prng.js';

export interface VideoTierRecord {
  id: string;
  /** Monthly price in micros of the currency unit (1.99 → 1990000). */
  priceMicros: number;
  /** The name as the creator typed it, emoji included. */
  name: string;
}

/** How long a member has been at their tier, in the dashboard's unit: days under a month, months after. */
export interface TierDuration {
  amount: number;
  unit: 'day' | 'month';
}

export interface VideoMemberRecord {
  channelId: string;
  tierId: string;
  atTier: TierDuration;
  /** The member channel's title. */
  title: string;
}

const CHANNEL_ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** A channel id as the platform writes them: `UC` and 22 base64url characters. */
function channelIdFrom(seed: number, index: number): string {
  return `UC${randomString(createRandom(streamSeed(seed, index)), CHANNEL_ID_ALPHABET, 22)}`;
}

export class VideoDataset {
  readonly tiers: readonly VideoTierRecord[];
  readonly members: readonly VideoMemberRecord[];
  readonly subscribers: number;
  readonly #titles: Map<string, string>;

  constructor(
    readonly seed: number,
    size: number,
    subscribers?: number,
  ) {
    const random = createRandom(streamSeed(seed, 0x7669));
    const idPart = () => randomString(random, CHANNEL_ID_ALPHABET, 10);
    this.tiers = [
      { id: `Egs${idPart()}`, priceMicros: 1_990_000, name: '⭐ Bronze Star ⭐' },
      { id: `Egs${idPart()}`, priceMicros: 4_990_000, name: '💎💎 Diamond  Club' },
      { id: `Egs${idPart()}`, priceMicros: 9_990_000, name: '❤️‍🔥 Legends of the Stream 🇧🇷 👩🏽‍💻' },
    ];
    this.subscribers = subscribers ?? randomInt(random, 10_000, 500_000);
    const members: VideoMemberRecord[] = [];
    for (let i = 0; i < size; i += 1) {
      const memberRandom = createRandom(streamSeed(seed, 0x10000 + i));
      const tierRoll = memberRandom();
      const tier = this.tiers[tierRoll < 0.5 ? 0 : tierRoll < 0.85 ? 1 : 2] ?? this.tiers[0]!;
      const first = pick(memberRandom, FIRST_NAMES);
      const style = memberRandom();
      const title =
        style < 0.5
          ? `${first} ${pick(memberRandom, LAST_NAMES)}`
          : style < 0.7
            ? first
            : style < 0.85
              ? `${pick(memberRandom, TITLE_DECORATIONS)} ${first} ${pick(memberRandom, HANDLE_WORDS)}`
              : `${first}${pick(memberRandom, HANDLE_WORDS)}${randomInt(memberRandom, 1, 99)}`;
      const days = randomInt(memberRandom, 0, 900);
      members.push({
        channelId: channelIdFrom(seed, 0x20000 + i),
        tierId: tier.id,
        atTier: days < 31 ? { amount: days, unit: 'day' } : { amount: Math.floor(days / 30), unit: 'month' },
        title,
      });
    }
    this.members = members;
    this.#titles = new Map(members.map((member) => [member.channelId, member.title]));
  }

  /** The title of a channel, or undefined for a channel the platform does not know. */
  channelTitle(channelId: string): string | undefined {
    return this.#titles.get(channelId);
  }
}

/**
 * Strips decorative emoji from display names ("⭐ Bronze Star ⭐" → "Bronze Star"), using Unicode
 * properties (UTS #51) rather than a list of code points, so new emoji are covered too.
 */

/**
 * Pictographs, skin-tone modifiers, flag letters, keycaps, tag sequences and the joiners and
 * variation selectors that glue emoji sequences together. ©, ® and ™ are pictographic too but are
 * kept as text unless written in emoji presentation (followed by U+FE0F).
 */
const DECORATIVE_EMOJI =
  /[0-9#*]\uFE0F?\u20E3|[\u00A9\u00AE\u2122]\uFE0F|(?![\u00A9\u00AE\u2122])\p{Extended_Pictographic}|\p{Emoji_Modifier}|\p{Regional_Indicator}|\u200D|\uFE0E|\uFE0F|\u20E3|[\u{E0020}-\u{E007F}]/gu;

/** The text without decorative emoji, with whitespace collapsed and trimmed. */
export function stripDecorativeEmoji(text: string): string {
  return text.replace(DECORATIVE_EMOJI, ' ').replace(/\s+/gu, ' ').trim();
}

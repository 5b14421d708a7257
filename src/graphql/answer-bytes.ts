/** The UTF-8 bytes of the answers written as text (graph-answer.ts writeAnswer). */

/**
 * Where answers are encoded: slabs of 128 KiB, each answer's bytes a view of the slab they were
 * encoded into (as node's own buffer pool hands out buffers under 4 KiB, for larger ones). A region
 * of a slab is never written twice: when the rest of a slab is too small, the next answer starts a
 * new one, and the old one is garbage once the last answer viewing it has been written.
 */
const ANSWER_SLAB_BYTES = 128 * 1024;

/**
 * Answers up to this many UTF-16 code units (3 bytes each at most: up to a quarter of a slab) are
 * encoded into a slab; longer ones into a buffer of their own. An answer still being written (to a
 * client that reads slowly, or not at all) keeps its slab alive: at most 128 KiB besides what it
 * holds itself, and only for answers of at most 32 KiB.
 */
export const SLAB_MAX_CODE_UNITS = Math.floor(ANSWER_SLAB_BYTES / 4 / 3);

let slab = Buffer.allocUnsafeSlow(0);
let slabUsed = 0;

/**
 * The UTF-8 bytes of an answer's text. The Content-Length needs its byte count: measured with
 * Buffer.byteLength and then written as a string, the text was scanned twice, where one encoding
 * tells both. Encoded into the free part of a slab and handed out as a view of it, an answer takes no
 * allocation of its own and no copy: the issue query's 6 KB answer took 3.8 µs, against 4.7 µs
 * encoded into a scratch buffer and copied out at its exact size, and 4.2 µs with `Buffer.from`
 * (1.1 against 1.4 µs for a 1.7 KB answer; a 100,000-iteration loop on node 20, not committed).
 */
export function utf8Bytes(text: string): Buffer {
  if (text.length > SLAB_MAX_CODE_UNITS) return Buffer.from(text);
  if (slab.length - slabUsed < text.length * 3) {
    slab = Buffer.allocUnsafeSlow(ANSWER_SLAB_BYTES);
    slabUsed = 0;
  }
  const start = slabUsed;
  const length = slab.write(text, start);
  // The next answer starts 8-byte aligned, as node's pool aligns its slices.
  slabUsed = (start + length + 7) & ~7;
  return slab.subarray(start, start + length);
}

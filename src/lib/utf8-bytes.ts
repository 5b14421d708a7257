/**
 * A text's UTF-8 bytes in one pass over the text.
 *
 * `Buffer.from(text)` measures the text first (`Buffer.byteLength`, V8's `String::Utf8Length`) and
 * then writes it: two passes. On the strings answers and log lines are made of (ropes built by
 * concatenation, as graphql-jit's serialiser and pino build them) the measuring pass is the dearer
 * one: 55,000 instructions of the ~620,000 a request of the issue query costs (its 7.9 KB answer),
 * counted by bench/instructions against this. Here the text is written into scratch space large
 * enough for any text of its length (3 bytes a UTF-16 code unit at most), which tells the length,
 * and the written bytes are copied out at their exact size (a memcpy, a few hundred instructions).
 */

/** The scratch space grows to fit the longest text met, up to this; a longer text gets space of its own. */
const MAX_SCRATCH_BYTES = 1024 * 1024;

let scratch = Buffer.allocUnsafeSlow(16 * 1024);

export function utf8Bytes(text: string): Buffer {
  const most = text.length * 3;
  let space = scratch;
  if (most > space.length) {
    space = Buffer.allocUnsafeSlow(most);
    if (most <= MAX_SCRATCH_BYTES) scratch = space;
  }
  const length = space.write(text);
  const bytes = Buffer.allocUnsafe(length);
  space.copy(bytes, 0, 0, length);
  return bytes;
}

/**
 * Opaque keyset cursors: the sort key of the last item of a page, as base64url JSON with a short
 * digest, so that a cursor cut, edited or made for another list is refused (CursorError, a 400)
 * rather than read as some other position. A cursor holds no secret: it says where a page ends.
 */
import { createHash } from 'node:crypto';

/** The cursor cannot be read: not one this server gave for this list. */
export class CursorError extends Error {
  override readonly name = 'CursorError';
}

/** Longer cursors are refused unread. */
const MAX_CURSOR_LENGTH = 512;

const digest = (list: string, payload: string): string => createHash('sha256').update(list).update('\0').update(payload).digest('base64url').slice(0, 12);

/** A cursor of `list` (what the list is and how it is ordered, e.g. `supporters:amount`) at `key`. */
export function encodeCursor(list: string, key: ReadonlyArray<string | number>): string {
  const payload = Buffer.from(JSON.stringify(key)).toString('base64url');
  return `${payload}.${digest(list, payload)}`;
}

/** The key of a cursor of `list`; CursorError when it is not one (unknown, tampered, of another list or order, or not of `shape`). */
export function decodeCursor(list: string, cursor: string, shape: ReadonlyArray<'string' | 'number'>): Array<string | number> {
  const refuse = (): never => {
    throw new CursorError('the cursor is not one this server gave for this list and order (ask for the first page again)');
  };
  if (cursor.length > MAX_CURSOR_LENGTH) refuse();
  const dot = cursor.indexOf('.');
  if (dot <= 0) refuse();
  const payload = cursor.slice(0, dot);
  if (cursor.slice(dot + 1) !== digest(list, payload)) refuse();
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return refuse();
  }
  if (!Array.isArray(key) || key.length !== shape.length || key.some((value, index) => typeof value !== shape[index] || (typeof value === 'number' && !Number.isFinite(value)))) refuse();
  return key as Array<string | number>;
}

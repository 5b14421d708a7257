/**
 * schema:check's SQL part: a migration that drops a table or column, or narrows a type, is breaking
 * (refused unless accepted with a reason); one that adds is safe; a released migration edited is breaking.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readMigrations } from '../../scripts/codegen-db.js';
import { columnChanges, migrationChanges } from '../../scripts/schema-migrations.js';

describe('schema:check on migrations', () => {
  it('classifies column changes: dropped and narrowed are breaking, added and widened are safe', () => {
    const before = [{ table: 't', column: 'a', type: 'bigint' }, { table: 't', column: 'b', type: 'character varying(10)' }, { table: 'u', column: 'x', type: 'text' }];
    const after = [{ table: 't', column: 'a', type: 'integer' }, { table: 't', column: 'b', type: 'text' }, { table: 't', column: 'c', type: 'text' }];
    expect(columnChanges(before, after).map((change) => `${change.level} ${change.id}`)).toEqual([
      'breaking db drop-table u',
      'breaking db change-type t.a',
      'safe db change-type t.b',
      'safe db add-column t.c',
    ]);
  });

  it('applies the new migrations after the released ones and finds a dropped column; an edited released migration is breaking', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'migrations-'));
    try {
      await writeFile(join(dir, '0001_a.sql'), 'CREATE TABLE item (id integer PRIMARY KEY, label text, size bigint);');
      const released = readMigrations(dir).map(({ name, checksum }) => ({ name, checksum }));
      await writeFile(join(dir, '0002_b.sql'), 'ALTER TABLE item DROP COLUMN label; ALTER TABLE item ALTER COLUMN size TYPE integer; ALTER TABLE item ADD COLUMN note text;');
      expect((await migrationChanges(released, dir)).map((change) => `${change.level} ${change.id}`)).toEqual([
        'breaking db drop-column item.label',
        'breaking db change-type item.size',
        'safe db add-column item.note',
      ]);
      await writeFile(join(dir, '0001_a.sql'), 'CREATE TABLE item (id integer PRIMARY KEY);');
      await rm(join(dir, '0002_b.sql'));
      expect((await migrationChanges(released, dir)).map((change) => change.id)).toEqual(['db edit-migration 0001_a']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 180_000);
});

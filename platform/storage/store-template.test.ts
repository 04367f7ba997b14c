import assert from 'node:assert/strict';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { createAccount } from '../identity/accounts.ts';
import { identityMigrations } from '../identity/migrations.ts';
import type { Migration } from './migrate.ts';
import { openStore, type Store } from './store.ts';
import { templateFolder, templateName } from './store-template.ts';

const base = mkdtempSync(join(tmpdir(), 'lattice-template-'));
after(() => rmSync(base, { recursive: true, force: true }));
let n = 0;
const own = join(base, 'own');
const extra: Migration = { id: 'template-test/1', sql: 'CREATE TABLE template_test (x int)' };

/** The cluster's identifier, which initdb draws at random: equal only for copies of one cluster. */
async function systemId(store: Store): Promise<string> {
  const [row] = await store.db.query<{ id: string }>('SELECT system_identifier::text AS id FROM pg_control_system()');
  return row!.id;
}

/** Opens a new data dir with templates from `folder` (undefined: the default place); returns its cluster id. */
async function openNew(folder: string | undefined, fn?: (store: Store) => Promise<void>, migrations = identityMigrations): Promise<string> {
  if (folder === undefined) delete process.env.LATTICE_STORE_TEMPLATES;
  else process.env.LATTICE_STORE_TEMPLATES = folder;
  const store = await openStore({ dataDir: join(base, `data-${++n}`), migrations });
  try {
    await fn?.(store);
    return await systemId(store);
  } finally {
    await store.close();
  }
}

/** A copy of the first test's templates in a new folder with this mode. */
function copyOfTemplates(folder: string, mode: number): string {
  cpSync(own, folder, { recursive: true });
  chmodSync(folder, mode);
  return folder;
}

describe('store templates', { skip: process.env.DATABASE_URL ? 'runs on the embedded store only' : false }, () => {
  let first = '';

  test('the folder is LATTICE_STORE_TEMPLATES, off for none, else the user cache', () => {
    assert.equal(templateFolder({ LATTICE_STORE_TEMPLATES: '/x/t' }), '/x/t');
    assert.equal(templateFolder({ LATTICE_STORE_TEMPLATES: 'off' }), null);
    assert.equal(templateFolder({ XDG_CACHE_HOME: '/c' }), '/c/lattice/store-templates');
  });

  test('a new data dir starts from the template the first one left, with the schema and none of its data', async () => {
    first = await openNew(own, async (store) => {
      await createAccount(store.db, { email: 'first@example.test' });
    });
    const file = join(own, templateName(identityMigrations));
    assert.ok(existsSync(file), 'the first new store kept the template of its migrations');
    assert.ok(existsSync(join(own, templateName([]))), 'and the bare cluster\'s');
    assert.equal(statSync(own).mode & 0o777, 0o700);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const second = await openNew(own, async (store) => {
      const found = await store.db.query("SELECT 1 FROM accounts WHERE email = 'first@example.test'");
      assert.equal(found.length, 0, 'the first store\'s account is not in the template');
      // The schema came with it: the store works at once.
      await createAccount(store.db, { email: 'first@example.test' });
    });
    assert.equal(second, first, 'the second store is a copy of the first one\'s template');
  });

  test('other migrations start from the bare cluster and are kept as their own template', async () => {
    const id = await openNew(own, async (store) => {
      assert.deepEqual(await store.db.query('SELECT count(*)::int AS n FROM template_test'), [{ n: 0 }]);
    }, [...identityMigrations, extra]);
    assert.equal(id, first);
    assert.ok(existsSync(join(own, templateName([...identityMigrations, extra]))));
  });

  test('a damaged template is dropped and replaced by a good one', async () => {
    const file = join(own, templateName(identityMigrations));
    writeFileSync(file, 'not a tar file');
    await openNew(own, async (store) => {
      await createAccount(store.db, { email: 'after-damage@example.test' });
    });
    assert.ok(statSync(file).size > 1_000_000, 'a good template replaced the damaged one');
  });

  test('templates are read from the user cache by default, and not at all when off or when others can write their folder', async () => {
    process.env.XDG_CACHE_HOME = join(base, 'cache');
    mkdirSync(join(base, 'cache', 'lattice'), { recursive: true });
    copyOfTemplates(join(base, 'cache', 'lattice', 'store-templates'), 0o700);
    assert.equal(await openNew(undefined), first);
    process.env.LATTICE_STORE_TEMPLATES = 'off';
    assert.notEqual(await openNew('off'), first);
    const open = copyOfTemplates(join(base, 'open'), 0o777);
    assert.notEqual(await openNew(open), first);
  });
});

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from './config.ts';

const defaults = { one: 9001 };

describe('the embedded store shared_buffers setting', () => {
  test('unset: null, so that the store keeps its own default', () => {
    assert.equal(loadConfig({ env: {}, defaults }).embeddedSharedBuffers, null);
  });

  test('a size in kB, MB or GB is taken as written', () => {
    for (const size of ['128kB', '32MB', '1GB']) {
      assert.equal(loadConfig({ env: { LATTICE_EMBEDDED_SHARED_BUFFERS: size }, defaults }).embeddedSharedBuffers, size);
    }
  });

  test('anything else, or a size out of 128kB..4GB, is refused with the variable named', () => {
    for (const bad of ['32', '32mb', 'lots', '64kB', '5GB', ' 32MB']) {
      assert.throws(() => loadConfig({ env: { LATTICE_EMBEDDED_SHARED_BUFFERS: bad }, defaults }), (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        assert.match(err.message, /LATTICE_EMBEDDED_SHARED_BUFFERS/);
        return true;
      });
    }
  });
});

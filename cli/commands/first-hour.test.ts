/**
 * What a new user hits in the first hour, run through the real `lattice` program (the
 * compiled one, as `npm test` builds it): wrong input must fail with a reason or warn, never
 * look like success, and `--json` errors are JSON.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin/lattice.mjs');
const rinex = join(root, 'fixtures/gnss/rinex');
const dir = mkdtempSync(join(tmpdir(), 'lattice-first-hour-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function lattice(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: root, encoding: 'utf8', env: { ...process.env, DATABASE_URL: '', ...env }, timeout: 120_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Runs a command expected to fail; returns its one-line message, checking the --json form too. */
function refused(args: string[]): string {
  const r = lattice(args);
  assert.equal(r.status, 1, `lattice ${args.join(' ')} should fail: ${r.stdout}${r.stderr}`);
  const line = r.stderr.trim().split('\n').pop()!;
  assert.match(line, /^lattice: /);
  const j = lattice([...args, '--json']);
  assert.equal(j.status, 1);
  const body = JSON.parse(j.stdout) as { error: { message: string } };
  assert.equal(`lattice: ${body.error.message}`, line, 'the same message as JSON');
  return line;
}

describe('operator commands refuse what they should', () => {
  test('an email that is not one, on accounts and console users', () => {
    assert.match(refused(['accounts', 'create', '--email', 'notanemail', '--data-dir', dir]), /--email must be an email address/);
    assert.match(refused(['console-users', 'create', '--email', 'a@', '--password', 'long enough pw', '--data-dir', dir]), /--email must be an email address/);
  });

  test('a key that would be born expired, or with scopes the service does not have', () => {
    assert.match(refused(['keys', 'create', '--service', 'licensing', '--expires-at', '2001-01-01T00:00:00Z', '--data-dir', dir]), /--expires-at .* is in the past/);
    assert.match(refused(['keys', 'create', '--service', 'licensing', '--expires-at', 'next week', '--data-dir', dir]), /--expires-at is not a date/);
    assert.match(refused(['keys', 'create', '--service', 'licensing', '--scopes', 'admin:all', '--data-dir', dir]), /service licensing has no scopes/);
  });

  test('a new key is printed with "shown once", in both output forms', { skip: process.env.DATABASE_URL ? 'embedded store only' : false }, () => {
    const dataDir = join(dir, 'keys');
    const human = lattice(['keys', 'create', '--service', 'licensing', '--expires-at', '2099-01-01T00:00:00Z', '--data-dir', dataDir]);
    assert.equal(human.status, 0, human.stderr);
    assert.match(human.stdout, /^key: lic_[A-Za-z0-9]{32} {2}\(shown once: store it now, only its hash is kept\)$/m);
    const json = lattice(['keys', 'create', '--service', 'licensing', '--data-dir', dataDir, '--json']);
    assert.equal(json.status, 0, json.stderr);
    const body = JSON.parse(json.stdout) as Record<string, unknown>;
    assert.equal(body.key_shown_once, true);
    assert.match(String(body.key), /^lic_/);
  });

  test('usage errors under --json are JSON too', () => {
    const r = lattice(['keys', 'create', '--json']);
    assert.equal(r.status, 1);
    assert.deepEqual(JSON.parse(r.stdout), { error: { message: "required option '--service <id>' not specified", code: 'missingMandatoryOptionValue' } });
    assert.doesNotMatch(r.stderr, /required option/, 'the error is not printed twice');
    const unknown = lattice(['circuit', 'run', 'x.qasm', '--json', '--bogus']);
    assert.equal(unknown.status, 1);
    assert.match((JSON.parse(unknown.stdout) as { error: { message: string } }).error.message, /unknown option '--bogus'/);
  });
});

describe('circuits', () => {
  test('an empty program, or one of only comments, fails instead of running 0 qubits', () => {
    const empty = join(dir, 'empty.qasm');
    writeFileSync(empty, '');
    assert.match(refused(['circuit', 'run', empty]), /empty\.qasm is empty: no OpenQASM program to run/);
    assert.match(refused(['circuit', 'optimize', empty]), /is empty/);
    const comments = join(dir, 'comments.qasm');
    writeFileSync(comments, '// nothing here\n/* at all */\n');
    assert.match(refused(['circuit', 'run', comments]), /is empty/);
    const noQubits = join(dir, 'noqubits.qasm');
    writeFileSync(noQubits, 'OPENQASM 3;\n');
    assert.match(refused(['circuit', 'run', noQubits]), /declares no qubits/);
  });

  test('--input gives OpenQASM 3 inputs their values', () => {
    const file = join(dir, 'input.qasm');
    writeFileSync(file, 'OPENQASM 3;\ninclude "stdgates.inc";\ninput float theta;\nqubit q;\nbit c;\nrx(theta) q;\nc = measure q;\n');
    const r = lattice(['circuit', 'run', file, '--input', 'theta=pi', '--shots', '50', '--seed', '3', '--json']);
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout).counts, { '1': 50 });
    const zero = lattice(['circuit', 'run', file, '--input', 'theta=2*pi - 2*pi', '--shots', '50', '--json']);
    assert.deepEqual(JSON.parse(zero.stdout).counts, { '0': 50 });
    assert.match(refused(['circuit', 'run', file]), /input 'theta' needs a value: give it with --input theta=VALUE/);
    assert.match(refused(['circuit', 'run', file, '--input', 'phi=1']), /declares no input 'phi' \(its inputs: theta\)/);
    assert.match(refused(['circuit', 'run', file, '--input', 'theta=pi/']), /--input theta: 'pi\/' is not a number/);
    assert.match(refused(['circuit', 'run', file, '--input', 'theta']), /--input must be name=value/);
    const optimized = lattice(['circuit', 'optimize', file, '--input', 'theta=0.5', '--json']);
    assert.equal(optimized.status, 0, optimized.stderr);
  });
});

describe('gnss', () => {
  test('replay of a file that is not a receiver log fails and says so', () => {
    const text = join(dir, 'notes.txt');
    writeFileSync(text, 'meeting notes\nnothing to see\n'.repeat(50));
    assert.match(refused(['gnss', 'replay', text]), /notes\.txt is not a receiver log \(1450 bytes, no UBX frame and no NMEA sentence in it\)/);
  });

  test('a navigation file of another day fails with the dates instead of a page of "no fix"', () => {
    const line = refused(['gnss', 'solve', '--obs', join(rinex, '07590920.05o'), '--nav', join(rinex, 'brdc1180.21n')]);
    assert.match(line, /covers 2021-04-28 .* but the observations are from 2005-04-0.*the dates do not overlap/);
    const ok = lattice(['gnss', 'solve', '--obs', join(rinex, '07590920.05o'), '--nav', join(rinex, '30400920.05n'), '--json']);
    assert.equal(ok.status, 0, 'a nav file of the same day from a nearby station is fine');
  });
});

describe('chat', () => {
  test('the built-in model says once on stderr that it is a smoke-test model', () => {
    const r = lattice(['chat', 'hello', '--max-tokens', '4', '--seed', '1']);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stderr.match(/smoke-test model/g)?.length, 1, r.stderr);
    assert.match(r.stderr, /--model FILE\.gguf or LATTICE_MODELS/);
    assert.ok(r.stdout.trim().length > 0);
  });

  test('--model takes a GGUF file directly, and refuses a file that is not one', () => {
    const gguf = join(dir, 'my-model.gguf');
    copyFileSync(join(root, 'engines/language/models/lattice-tiny.gguf'), gguf);
    const r = lattice(['chat', 'hello', '--model', gguf, '--max-tokens', '4', '--seed', '1', '--json']);
    assert.equal(r.status, 0, r.stderr);
    const body = JSON.parse(r.stdout) as { model: string; usage: { completion_tokens: number } };
    assert.equal(body.model, gguf);
    assert.ok(body.usage.completion_tokens > 0);
    assert.doesNotMatch(r.stderr, /smoke-test/);
    const notGguf = join(dir, 'model.gguf');
    writeFileSync(notGguf, 'not a model');
    assert.match(refused(['chat', 'hi', '--model', notGguf]), /is not a GGUF model file/);
  });

  test('chat --help explains --model FILE.gguf and LATTICE_MODELS', () => {
    const r = lattice(['chat', '--help']);
    assert.equal(r.status, 0);
    assert.match(r.stdout, /LATTICE_MODELS=FILE/);
    assert.match(r.stdout, /--model FILE\.gguf/);
  });
});

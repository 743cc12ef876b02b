/**
 * The SDK as merchants get it: `npm pack` builds it (prepack), the tarball holds the compiled JavaScript and
 * its types and no dependency, and plain Node (no TypeScript loader) imports it and signs with it.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const sdkDir = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

describe('npm pack of sdk/node', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'portcullis-sdk-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('packs the built package, which plain Node imports and uses', () => {
    const [packed] = JSON.parse(execFileSync(npm, ['pack', '--json', '--pack-destination', dir], { cwd: sdkDir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })) as { filename: string; files: { path: string }[] }[];
    assert.ok(packed);
    const files = packed.files.map((f) => f.path);
    for (const expected of ['package.json', 'README.md', 'dist/index.js', 'dist/index.d.ts', 'dist/hash.js', 'dist/callbacks.js']) assert.ok(files.includes(expected), `${expected} in ${files.join(', ')}`);
    assert.ok(!files.some((f) => f.startsWith('src/') || f.startsWith('test/')), 'sources and tests stay out');
    execFileSync('tar', ['-xzf', path.join(dir, packed.filename), '-C', dir]);
    const manifest = JSON.parse(readFileSync(path.join(dir, 'package', 'package.json'), 'utf8'));
    assert.equal(manifest.dependencies, undefined, 'no runtime dependency');
    const script = `
      import { Portcullis, s2sDigest, s2sCardPieces, AuthenticationError } from ${JSON.stringify(path.join(dir, 'package', 'dist', 'index.js'))};
      const sdk = new Portcullis({ baseUrl: 'http://gateway.invalid', merchantKey: 'k', password: 'p' });
      console.log([s2sDigest(s2sCardPieces.f1('doe@example.com', '13a4822c5907ed235f3a068c76184fc3', '4111111111111111')), typeof sdk.checkout.createSession, typeof AuthenticationError].join(' '));
    `;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } }).trim();
    assert.equal(out, '2702ae0c4f99506dc29b5615ba9ee3c0 function function');
  });
});

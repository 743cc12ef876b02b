#!/usr/bin/env node
// `npm run build`: compiles src/ to dist/ with tsc (plain emit, no bundling), then copies every file that is
// not TypeScript (migrations' SQL, the hosted pages' CSS and JS) beside it, so that the compiled modules find
// them through import.meta.url exactly as the sources do.
import { spawnSync } from 'node:child_process';
import { cpSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const src = path.join(root, 'src');
const dist = path.join(root, 'dist');

rmSync(dist, { recursive: true, force: true });
const tsc = spawnSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
if (tsc.status !== 0) process.exit(tsc.status ?? 1);

function copyAssets(dir) {
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) copyAssets(full);
    else if (!name.endsWith('.ts')) cpSync(full, path.join(dist, path.relative(src, full)));
  }
}
copyAssets(src);
console.log(`Built ${path.relative(root, dist)}/`);

#!/usr/bin/env node
// Runs the type check, then every test file with node's test runner, compiled to JavaScript first
// (scripts/test-build.mjs: plain node starts each test process in a third of tsx's CPU).
// Node 20's runner takes no globs, so the files are listed here.
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { compileTests, compiledPath, removeCompiled } from './test-build.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const only = process.argv.slice(2);

function findTests(dir) {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return findTests(full);
    return name.endsWith('.test.ts') ? [full] : [];
  });
}

// The console's build (its API types from the routes, its screens) is git-ignored: rebuild it when its inputs
// changed since the last build (a pull, a new route), before the console is type-checked or driven in a browser.
if (only.length === 0 || only.some((f) => /console|portal/.test(f))) {
  const build = spawnSync(process.execPath, [path.join(root, 'scripts/build-console.mjs'), '--if-changed'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) {
    console.error('Console build failed.');
    process.exit(build.status ?? 1);
  }
}

if (only.length === 0) {
  // The gateway, then the console and the portal (their API types come from the console build, which npm ci runs).
  for (const project of ['tsconfig.json', 'console/tsconfig.json', 'portal/tsconfig.json']) {
    const tsc = spawnSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '--noEmit', '-p', project], { cwd: root, stdio: 'inherit' });
    if (tsc.status !== 0) {
      console.error(`Type check failed (${project}).`);
      process.exit(tsc.status ?? 1);
    }
  }
}

// The merchant SDK (sdk/node) is type-checked with its own settings and tested with the gateway's tests.
if (only.length === 0) {
  const sdk = spawnSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '--noEmit', '-p', 'sdk/node/tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  if (sdk.status !== 0) {
    console.error('Type check of sdk/node failed.');
    process.exit(sdk.status ?? 1);
  }
}

/**
 * The order files start in, when the whole suite runs: the runner starts them in the order given, as slots
 * free up. Browser tests are the longest files (a minute or more each, partly waiting on pages) and the rest
 * mostly take seconds: started one in two at the front, the long ones overlap the short ones instead of each
 * other, and no long file starts late enough to run on alone at the end. So do the few others measured at a
 * minute or more (each runs child processes on embedded stores).
 */
const LONG = new Set(['test/admin/cli.test.ts', 'test/docs/first-steps.test.ts'].map((f) => path.join(root, f)));
function startOrder(all) {
  const long = all.filter((f) => /browser/.test(path.basename(f)) || LONG.has(f));
  const short = all.filter((f) => !long.includes(f));
  return long.flatMap((f, i) => [f, ...(short[i] ? [short[i]] : [])]).concat(short.slice(long.length));
}

const testDirs = [path.join(root, 'test'), path.join(root, 'sdk/node/test')];
const files = only.length > 0 ? only.map((f) => path.resolve(f)).sort() : startOrder(testDirs.flatMap(findTests).sort());
// Entry points tests start in child processes (test/support/node-script.ts) are compiled too.
const CHILD_ENTRIES = ['src/cli/admin.ts'].map((f) => path.join(root, f));
const compiled = await compileTests(root, [...files, ...CHILD_ENTRIES]);
process.on('SIGINT', () => {}); // the runner gets it too and ends; then the compiled files are removed below

/**
 * A test file that hangs (a test waiting forever, or a process kept alive by a handle after its tests) would
 * hold the whole run until CI's own limit and leave no output behind. Every file gets a limit of its own instead:
 * past it the watchdog names the file and kills its process, the runner reports it failed, and the run goes on.
 */
const FILE_LIMIT_S = Number(process.env.TEST_FILE_TIMEOUT_S ?? 1200);
function startWatchdog(compiledDir, runnerPid) {
  const timer = setInterval(() => {
    const ps = spawnSync('ps', ['-eo', 'pid=,etimes=,args='], { encoding: 'utf8' });
    if (ps.status !== 0) return;
    for (const line of ps.stdout.split('\n')) {
      const match = /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line);
      if (!match || !match[3].includes(compiledDir)) continue;
      const file = match[3].split(' ').find((arg) => arg.endsWith('.test.js'));
      if (!file || Number(match[2]) <= FILE_LIMIT_S || Number(match[1]) === runnerPid) continue;
      console.error(`\nWATCHDOG: ${path.relative(compiledDir, file)} ran ${match[2]} s (limit ${FILE_LIMIT_S} s): killed.\n`);
      try {
        process.kill(Number(match[1]), 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }, 30_000);
  timer.unref();
  return timer;
}

const runner = spawn(
  process.execPath,
  [
    '--enable-source-maps',
    // Every test process (the runner hands its flags on) compiles PGlite's 9 MB of WebAssembly with V8's baseline
    // compiler only: the optimising tier recompiles its hot functions in the background, which a test process
    // does not live long enough to earn back (12 to 30 % less CPU per file measured, the fuzzers included).
    '--liftoff-only',
    // Each file's process exits only once its last results reached the runner (scripts/test-exit.mjs).
    '--import',
    pathToFileURL(path.join(root, 'scripts/test-exit.mjs')).href,
    // node's runner through its API (scripts/test-run.mjs): `node --test` would sort the files, undoing the start
    // order above. It ends each file's process with its tests, fails a file past TEST_TIMEOUT_S, and reports with
    // spec and scripts/test-timings.mjs (where the time went, file by file: the slowest files after the summary).
    path.join(root, 'scripts/test-run.mjs'),
    ...files.map((f) => compiledPath(root, compiled, f)),
  ],
  { cwd: root, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test', PORTCULLIS_TEST_BUILD: compiled } },
);
const watchdog = startWatchdog(compiled, runner.pid);
const status = await new Promise((resolve) => runner.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 1))));
clearInterval(watchdog);
removeCompiled(compiled);
process.exit(status);

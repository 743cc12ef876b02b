/**
 * The test runner of `npm test` (scripts/test.mjs starts it with node's flags for the test processes): node's own
 * runner through its API, so the files start in the order given. `node --test FILES` sorts them by path first
 * (Node 20's createTestFileList), which undid scripts/test.mjs's start order: the browser tests, the longest files,
 * ran where the alphabet put them, a dozen console ones back to back and the last ones alone at the end of the run.
 *
 * What `node --test` does besides is done here alike: its reporters (spec, then the timings of
 * scripts/test-timings.mjs, both to stdout), a failed test makes the exit code 1, every file's test process ends
 * with its tests (forceExit, held by scripts/test-exit.mjs until its last results reached this runner), and a
 * file past TEST_TIMEOUT_S fails with a timeout. The test processes get this
 * process's node flags (the runner hands them on).
 */
import { run } from 'node:test';
import { spec } from 'node:test/reporters';
import { compose } from 'node:stream';
import timings from './test-timings.mjs';

const files = process.argv.slice(2);
const stream = run({
  files,
  concurrency: Number(process.env.TEST_CONCURRENCY ?? 2),
  timeout: Number(process.env.TEST_TIMEOUT_S ?? 900) * 1000,
  forceExit: true,
});
stream.on('test:fail', (data) => {
  if (!data.todo) process.exitCode = 1;
});
compose(stream, new spec()).pipe(process.stdout);
compose(stream, timings).pipe(process.stdout);

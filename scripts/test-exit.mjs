/**
 * Loaded into every test file's process (scripts/test.mjs hands it on with node's flags). node:test's forced exit
 * (run({ forceExit })) calls process.exit() as soon as its reporter stream closes, while the last results can still
 * be on their way through the serializer to stdout: those tests ran but never reached the runner (Node 20; a file's
 * last suites were missing from 1 run in 3 of one short file, and from the full suite's count). Here the exit waits
 * until stdout has taken everything and nothing more was written for a moment, then exits with the same code.
 */
// A test file's own process only: not the runner, nor a process a test starts (they inherit the environment).
if (process.env.NODE_TEST_CONTEXT === 'child-v8' && /\.test\.[cm]?[jt]s$/.test(process.argv[1] ?? '')) {
  const QUIET_MS = 50;
  const exit = process.exit.bind(process);
  const write = process.stdout.write.bind(process.stdout);
  let lastWrite = Date.now();
  process.stdout.write = (...args) => {
    lastWrite = Date.now();
    return write(...args);
  };
  let exiting = false;
  process.exit = (code) => {
    if (code !== undefined) process.exitCode = code;
    if (exiting) return;
    exiting = true;
    const check = () => {
      if (process.stdout.writableLength === 0 && Date.now() - lastWrite >= QUIET_MS) write('', () => exit());
      else setTimeout(check, 10);
    };
    check();
  };
}

/** What a benchmark in a PostgreSQL schema of its own does at its end (new benches use it; older ones repeat it). */
import pg from 'pg';

export async function dropBenchSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
}

/** Runs a benchmark's main, exiting 1 with the error printed when it throws. */
export function runBench(main: () => Promise<void>): void {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}

/**
 * The import rules of src/, checked on every import the compiler sees (run-time and type-only):
 *
 * 1. No import cycle, run-time or type-only: every folder can be read bottom-up.
 * 2. The layers, top to bottom:
 *      entry (main.ts, start.ts, gateway.ts, app.ts, demo.ts, cli/): the composition root, it opens the store and wires
 *        every layer, so it may import any of them;
 *      channels/ (with web/ templates, and sandbox/ beside them) and workers/;
 *      services/;
 *      domain/, store/, connectors/ (store and connectors may import domain; domain imports nothing of ours but
 *        domain; connectors never import store; store never imports connectors);
 *      config.ts, logger.ts, version.ts: process plumbing any layer but the domain may use.
 *    An import never goes up: services never import channels, web or workers; web templates never import
 *    services (a template is handed what it draws).
 * 3. THE RULE for reads: channels and workers call services, for reads (services/queries/) as for writes; nothing
 *    above services/ imports a repository (src/store/**) at run time. Nor its types: the model types (Payment,
 *    Merchant, Mid, ...) come from src/domain (domain/model/), the others from the service that answers; the
 *    store handle's type (Sql, Database) from services/context.ts.
 *
 * A failure lists every offending import as file:line -> file (names).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cyclePath, cyclesOf, readImportGraph, type ImportEdge } from './import-graph.ts';

type Layer = 'entry' | 'channels' | 'web' | 'sandbox' | 'workers' | 'services' | 'domain' | 'store' | 'connectors' | 'plumbing';

const ENTRY = /^src\/(main|start|gateway|app|demo)\.ts$|^src\/cli\//;
const PLUMBING = /^src\/(config|logger|version)\.ts$/;
const FOLDERS: readonly Layer[] = ['channels', 'web', 'sandbox', 'workers', 'services', 'domain', 'store', 'connectors'];

function layerOf(file: string): Layer {
  if (ENTRY.test(file)) return 'entry';
  if (PLUMBING.test(file)) return 'plumbing';
  const folder = FOLDERS.find((f) => file.startsWith(`src/${f}/`));
  if (!folder) throw new Error(`${file}: in no layer (add it to the rules of ${import.meta.filename})`);
  return folder;
}

/** What each layer may import (store above services: see THE RULE). */
const MAY_IMPORT: Readonly<Record<Layer, readonly Layer[]>> = {
  entry: ['entry', 'channels', 'web', 'sandbox', 'workers', 'services', 'domain', 'store', 'connectors', 'plumbing'],
  channels: ['channels', 'web', 'sandbox', 'services', 'domain', 'connectors', 'plumbing'],
  sandbox: ['sandbox', 'channels', 'web', 'services', 'domain', 'connectors', 'plumbing'],
  web: ['web', 'domain', 'connectors', 'plumbing'],
  workers: ['workers', 'services', 'domain', 'connectors', 'plumbing'],
  services: ['services', 'domain', 'store', 'connectors', 'plumbing'],
  store: ['store', 'domain', 'plumbing'],
  connectors: ['connectors', 'domain', 'plumbing'],
  domain: ['domain'],
  plumbing: ['plumbing'],
};

const describeEdge = (e: ImportEdge) => `${e.from}:${e.line} -> ${e.to}${e.typeOnly ? ' (type-only)' : ''}${e.names.length > 0 ? ` { ${e.names.join(', ')} }` : ''}`;
const ABOVE_SERVICES: ReadonlySet<Layer> = new Set(['channels', 'web', 'sandbox', 'workers']);

/** Why an import breaks the layering, or undefined when it keeps it. */
function violation(e: ImportEdge): string | undefined {
  const from = layerOf(e.from);
  const to = layerOf(e.to);
  if (ABOVE_SERVICES.has(from) && to === 'store') {
    return e.typeOnly
      ? 'imports types from the store: model types come from src/domain, other types from the service that answers'
      : 'reads a repository at run time: go through services (services/queries/ for reads)';
  }
  return MAY_IMPORT[from].includes(to) ? undefined : `${from} may not import ${to}`;
}

const graph = readImportGraph();

test('the graph is read: every file of src/ and its imports', () => {
  assert.ok(graph.files.length > 200, `only ${graph.files.length} files read`);
  assert.ok(graph.edges.some((e) => e.typeOnly) && graph.edges.some((e) => !e.typeOnly), 'both run-time and type-only imports are seen');
  for (const file of graph.files) layerOf(file);
});

test('no import cycle (run-time or type-only)', () => {
  const edges = graph.edges;
  const cycles = cyclesOf(edges).map((component) => {
    const inside = new Set(component);
    const path = cyclePath(component, edges).join('\n    -> ');
    const imports = edges.filter((e) => inside.has(e.from) && inside.has(e.to)).map((e) => `      ${describeEdge(e)}`);
    return `  ${path}\n    (${component.length} files; the imports among them:)\n${imports.join('\n')}`;
  });
  assert.equal(cycles.length, 0, `${cycles.length} import cycle(s):\n${cycles.join('\n')}`);
});

test('no import against the layering; nothing above services reads a repository', () => {
  const found = graph.edges.flatMap((e) => {
    const why = violation(e);
    return why ? [`  ${describeEdge(e)}\n      ${why}`] : [];
  });
  assert.equal(found.length, 0, `${found.length} import(s) against the layering:\n${found.join('\n')}`);
});

import type { CardConnector } from './types.ts';
import { SandboxCardConnector } from './sandbox/sandbox-card.ts';

/** Connectors by the name a MID carries. Adding an acquirer is adding an entry. */
export function defaultConnectors(): Map<string, CardConnector> {
  const sandbox = new SandboxCardConnector();
  return new Map([[sandbox.name, sandbox]]);
}

/** Shared checks of the hardening tests. */
import assert from 'node:assert/strict';

/** A D3 body: exactly these members, the right types, and http_code equal to the status. */
export function assertD3(status: number, text: string, where = ''): void {
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text);
  } catch {
    assert.fail(`${where}: not JSON: ${text.slice(0, 200)}`);
  }
  assert.equal(typeof body.error_code, 'string', `${where}: error_code in ${text.slice(0, 200)}`);
  assert.equal(typeof body.error_message, 'string', where);
  assert.equal(body.http_code, status, `${where}: http_code`);
  for (const key of Object.keys(body)) assert.ok(['http_code', 'error_code', 'error_message', 'errors', 'result'].includes(key), `${where}: unexpected member ${key}`);
}


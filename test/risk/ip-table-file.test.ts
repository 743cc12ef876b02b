// The operator's IP-to-country file (IP_COUNTRY_FILE) is read whole at start-up, as the BIN table is:
// a good file is the table the risk rules use, a bad one stops the start naming every bad entry.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadIpTable } from '../../src/gateway.ts';
import { SAMPLE_IP_TABLE } from '../../src/domain/risk/ip.ts';

const made: string[] = [];
const fileWith = async (content: string): Promise<string> => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ip-table-'));
  made.push(dir);
  const file = path.join(dir, 'ip.json');
  await writeFile(file, content);
  return file;
};

describe('IP_COUNTRY_FILE at start-up', () => {
  after(() => Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true }))));
  it('no file: the sample that ships', async () => {
    assert.equal(await loadIpTable(undefined), SAMPLE_IP_TABLE);
  });

  it('reads the operator table', async () => {
    const table = await loadIpTable(await fileWith(JSON.stringify([{ cidr: '198.51.100.0/24', country: 'NL' }])));
    assert.equal(table.size, 1);
  });

  it('names every bad entry and the setting', async () => {
    const file = await fileWith(JSON.stringify([{ cidr: 'not-an-ip', country: 'NL' }, { cidr: '198.51.100.0/24', country: 'XX' }]));
    await assert.rejects(loadIpTable(file), (err: Error) =>
      err.message.startsWith(`IP_COUNTRY_FILE ${file}:`) && /\[0\]: cidr/.test(err.message) && /\[1\]: country/.test(err.message));
  });

  it('a file that is not JSON names the setting', async () => {
    const file = await fileWith('{');
    await assert.rejects(loadIpTable(file), (err: Error) => err.message.startsWith(`IP_COUNTRY_FILE ${file}:`));
  });
});

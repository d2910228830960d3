/**
 * Teeworlds network client: joined to the in-process fake server (handshake done), then fed the
 * fuzz input as datagrams from the server's address. Bad datagrams must be `problem` events,
 * never exceptions; its snapshot storage stays bounded.
 */
import { TeeworldsClient } from '../../src/protocols/teeworlds/index.js';
import { FakeServer } from '../../test/teeworlds-net/fake-server.js';
import { joinMessages, splitMessages } from '../common.js';

type Version = '0.6' | '0.7';

function joined(version: Version, ddnet: boolean): { client: TeeworldsClient; captured: Uint8Array[] } {
  const toClient: Uint8Array[] = [];
  const toServer: Uint8Array[] = [];
  const server = new FakeServer({ version, ddnet }, (b) => toClient.push(b));
  const client = new TeeworldsClient({ version, ddnetToken: ddnet, name: 'fuzz' }, (b) => toServer.push(b));
  const captured: Uint8Array[] = [];
  client.start(0);
  for (let now = 20; now <= 1200; now += 20) {
    client.update(now);
    if (now % 40 === 0) server.step(now);
    server.conn.update(now);
    for (let g = 0; g < 100 && (toServer.length > 0 || toClient.length > 0); g++) {
      for (const b of toServer.splice(0)) server.receive(b, now);
      for (const b of toClient.splice(0)) {
        if (captured.length < 40) captured.push(b);
        client.receive(b, now);
      }
    }
  }
  return { client, captured };
}

export function seeds(): Uint8Array[] {
  return [joinMessages(joined('0.7', false).captured), joinMessages(joined('0.6', true).captured)];
}

const rigs = new Map<string, TeeworldsClient>();
let runs = 0;

export function fuzz(data: Uint8Array): void {
  if (data.length === 0) return;
  const mode = data[0]! % 3;
  const key = String(mode);
  // a fresh joined client every 500 inputs, so that one input's damage does not mask the next
  if (runs++ % 500 === 0) rigs.clear();
  let client = rigs.get(key);
  if (client === undefined) {
    client = mode === 0 ? joined('0.7', false).client : mode === 1 ? joined('0.6', true).client : joined('0.6', false).client;
    client.on('problem', () => {});
    rigs.set(key, client);
  }
  let now = 2000 + runs * 10;
  for (const d of splitMessages(data.subarray(1), 128)) {
    client.receive(d, now);
    client.update((now += 5));
  }
}

import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeAddress, groupListeners, isLoopback, parseProcNetTcp, showSocket, socketInode } from '../src/harness/listening.js';

// Rows as Linux prints them (trailing columns shortened).
const TCP = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000:07E8 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1679 1 0000000000000000 100 0 0 10 0
   1: 0100007F:960F 0100007F:92F2 06 00000000:00000000 03:00001018 00000000     0        0 0 3 0000000000000000
   2: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 424242 1 0000000000000000 100 0 0 10 0
   3: 0F00020A:0016 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 77 1 0000000000000000 100 0 0 10 0
`;
const TCP6 = `  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000000000000:1F91 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 5001 1 0000000000000000 100 0 0 10 0
   1: 00000000000000000000000001000000:1F92 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 5002 1 0000000000000000 100 0 0 10 0
   2: 0000000000000000FFFF00000100007F:1F93 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 5003 1 0000000000000000 100 0 0 10 0
`;

describe('/proc/net/tcp parsing', () => {
  it('keeps LISTEN rows only and decodes little-endian addresses', () => {
    const rows = parseProcNetTcp(TCP, 4);
    expect(rows.map(showSocket)).toEqual(['0.0.0.0:2024', '127.0.0.1:8080', '10.2.0.15:22']);
    expect(rows.map((r) => r.inode)).toEqual([1679, 424242, 77]);
    expect(rows.map(isLoopback)).toEqual([false, true, false]);
  });

  it('decodes IPv6: the wildcard, ::1 and IPv4-mapped loopback', () => {
    const rows = parseProcNetTcp(TCP6, 6);
    expect(rows.map(showSocket)).toEqual(['[0:0:0:0:0:0:0:0]:8081', '[0:0:0:0:0:0:0:1]:8082', '[0:0:0:0:0:ffff:7f00:1]:8083']);
    expect(rows.map(isLoopback)).toEqual([false, true, true]);
  });

  it('rejects what is not an address or a socket link', () => {
    expect(decodeAddress('0100007', 4)).toBeUndefined();
    expect(decodeAddress('zz00007F', 4)).toBeUndefined();
    expect(parseProcNetTcp('header only\n', 4)).toEqual([]);
    expect(socketInode('socket:[12345]')).toBe(12345);
    expect(socketInode('pipe:[12345]')).toBeUndefined();
    expect(socketInode('/dev/null')).toBeUndefined();
  });
});

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

describe.runIf(process.platform === 'linux')('groupListeners on this machine', () => {
  it('finds a loopback listener of our own process group', async () => {
    const server = createServer();
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const pgid = Number((await import('node:fs')).readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ')[2]);
    const found = groupListeners(pgid);
    expect(found.ok).toBe(true);
    if (found.ok) expect(found.sockets.find((s) => s.port === port)).toMatchObject({ address: '127.0.0.1', family: 4 });
  });

  it('says why when the group is gone', () => {
    expect(groupListeners(2 ** 22 + 12345)).toMatchObject({ ok: false });
  });
});

import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { readStat } from '../transport/process.js';

// Which TCP addresses a process group listens on, read from Linux /proc (HTTP-BIND-01): the
// socket inodes among each member's open files, matched against the LISTEN rows of the
// group's network namespace. Parsing is pure; only `groupListeners` touches /proc.

export interface ListeningSocket {
  /** Dotted IPv4 or full-form IPv6 (e.g. 0:0:0:0:0:0:0:1). */
  address: string;
  port: number;
  family: 4 | 6;
  inode: number;
}

const TCP_LISTEN = '0A';

/** The LISTEN rows of /proc/net/tcp (family 4) or /proc/net/tcp6 (family 6). */
export function parseProcNetTcp(text: string, family: 4 | 6): ListeningSocket[] {
  const out: ListeningSocket[] = [];
  for (const line of text.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode …
    if (f.length < 10 || f[3] !== TCP_LISTEN) continue;
    const [hex, portHex] = f[1]!.split(':');
    const address = hex === undefined ? undefined : decodeAddress(hex, family);
    const inode = Number(f[9]);
    if (address === undefined || portHex === undefined || !Number.isInteger(inode)) continue;
    out.push({ address, port: parseInt(portHex, 16), family, inode });
  }
  return out;
}

/** The kernel prints each 32-bit word of an address in host (little-endian on x86/ARM) byte order. */
export function decodeAddress(hex: string, family: 4 | 6): string | undefined {
  if (!/^[0-9A-Fa-f]+$/.test(hex) || hex.length !== (family === 4 ? 8 : 32)) return undefined;
  const bytes: number[] = [];
  for (let w = 0; w < hex.length; w += 8) {
    const word = hex.slice(w, w + 8);
    for (let b = 6; b >= 0; b -= 2) bytes.push(parseInt(word.slice(b, b + 2), 16));
  }
  if (family === 4) return bytes.join('.');
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i]! << 8) | bytes[i + 1]!).toString(16));
  return groups.join(':');
}

export { isLoopbackHost } from '../validate/loopback.js';

/** 127.0.0.0/8, ::1, and IPv4-mapped loopback (::ffff:127.x.x.x). */
export function isLoopback(socket: Pick<ListeningSocket, 'address' | 'family'>): boolean {
  if (socket.family === 4) return socket.address.startsWith('127.');
  const g = socket.address.split(':').map((x) => parseInt(x, 16));
  if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) return true;
  return g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff && g[6]! >> 8 === 127;
}

/** The inode of a `socket:[12345]` fd link, else undefined. */
export function socketInode(link: string): number | undefined {
  const m = /^socket:\[(\d+)\]$/.exec(link);
  return m ? Number(m[1]) : undefined;
}

/** "0.0.0.0:8080", "[0:0:0:0:0:0:0:1]:8080" */
export function showSocket(s: ListeningSocket): string {
  return s.family === 6 ? `[${s.address}]:${s.port}` : `${s.address}:${s.port}`;
}

export type GroupListeners = { ok: true; pids: number[]; sockets: ListeningSocket[] } | { ok: false; reason: string };

/** The TCP sockets the members of process group `pgid` listen on (Linux only). */
export function groupListeners(pgid: number): GroupListeners {
  if (process.platform !== 'linux') return { ok: false, reason: `listening sockets are read from /proc, which ${process.platform} does not have` };
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch (e) {
    return { ok: false, reason: `/proc is not readable (${(e as Error).message})` };
  }
  const pids = entries.filter((e) => /^\d+$/.test(e)).map(Number).filter((pid) => readStat(pid)?.pgrp === pgid);
  if (pids.length === 0) return { ok: false, reason: `no process of group ${pgid} is left to inspect` };
  const inodes = new Set<number>();
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch (e) {
      // A member that exited meanwhile held nothing any more.
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue;
      return { ok: false, reason: `the open files of pid ${pid} are not readable (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})` };
    }
    for (const fd of fds) {
      try {
        const inode = socketInode(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (inode !== undefined) inodes.add(inode);
      } catch {
        // The fd closed between listing and reading: not a socket it still holds.
      }
    }
  }
  const sockets: ListeningSocket[] = [];
  // The group's network namespace (mcpcheck's own may be another one): the leader's, or, once the
  // leader has exited (a shell that started the server and went), a member's.
  const netOf = [pgid, ...pids].find((pid) => existsSync(`/proc/${pid}/net/tcp`));
  for (const [file, family] of [['tcp', 4], ['tcp6', 6]] as const) {
    let text: string;
    try {
      text = readFileSync(`/proc/${netOf}/net/${file}`, 'utf8');
    } catch {
      continue; // no IPv6 in this kernel or namespace
    }
    for (const s of parseProcNetTcp(text, family)) if (inodes.has(s.inode)) sockets.push(s);
  }
  return { ok: true, pids, sockets };
}

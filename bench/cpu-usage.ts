/**
 * The benchmark's CPU figures, from /proc (Linux). For the whole run, the time the host took from this machine
 * (steal). For each latency load, the CPU time per request of the processes it involves: the server process
 * (gateway and bare endpoint), the PostgreSQL processes of this machine, and the load generator itself. A p99
 * swings with what the machine did in a few unlucky milliseconds; CPU per request is the steadier figure, and
 * the one that moves when the work per payment changes. Elsewhere, or with PostgreSQL on another host, the
 * figures it cannot see are left out.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** Linux reports utime and stime in clock ticks of 1/100 s on every architecture Node runs on (USER_HZ). */
const MICROS_PER_TICK = 10_000;

export interface ProcStat {
  comm: string;
  /** User plus system CPU time, in microseconds. */
  cpuMicros: number;
}

/** The command name and CPU time of a /proc/<pid>/stat line (the name may hold spaces and parentheses). */
export function parseProcStat(line: string): ProcStat | undefined {
  const open = line.indexOf('(');
  const close = line.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  const fields = line.slice(close + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) return undefined;
  return { comm: line.slice(open + 1, close), cpuMicros: (utime + stime) * MICROS_PER_TICK };
}

function readStat(pid: number | string): ProcStat | undefined {
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return undefined;
  }
}

export interface CpuSnapshot {
  server: number | undefined;
  /** Per PostgreSQL process, so that one starting or ending during the load does not skew the sum. */
  postgres: Map<number, number>;
  /** Per backend serving the server process's own connections (ownBackendPids), when they were given. */
  own?: Map<number, number>;
  generator: number;
}

/**
 * The local ports of a process's TCP connections to `remotePort` (its database connections), from the socket
 * inodes of its file descriptors and the kernel's TCP tables. Empty where /proc cannot tell.
 */
export function connectionPorts(pid: number, remotePort: number): number[] {
  const inodes = new Set<string>();
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
        const m = /^socket:\[(\d+)\]$/.exec(target);
        if (m) inodes.add(m[1]!);
      } catch {
        /* closed meanwhile */
      }
    }
  } catch {
    return [];
  }
  const ports: number[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10 || !inodes.has(f[9]!)) continue;
      const local = parseInt(f[1]!.split(':')[1]!, 16);
      const remote = parseInt(f[2]!.split(':')[1]!, 16);
      if (remote === remotePort) ports.push(local);
    }
  }
  return ports;
}

/**
 * PostgreSQL, on a machine others share, also serves their sessions: its processes' CPU per request counts their
 * work too. The backends of the server process's own connections (found by the caller from pg_stat_activity's
 * client ports, connectionPorts) do only this load's statements; their CPU is given apart ("own").
 */
export function cpuSnapshot(serverPid: number, ownBackendPids?: readonly number[]): CpuSnapshot {
  const postgres = new Map<number, number>();
  let pids: string[] = [];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    /* not Linux: no PostgreSQL figures */
  }
  for (const pid of pids) {
    const stat = readStat(pid);
    if (stat?.comm === 'postgres') postgres.set(Number(pid), stat.cpuMicros);
  }
  const generator = process.cpuUsage();
  const snapshot: CpuSnapshot = { server: readStat(serverPid)?.cpuMicros, postgres, generator: generator.user + generator.system };
  if (ownBackendPids) {
    snapshot.own = new Map();
    for (const pid of ownBackendPids) {
      const stat = readStat(pid);
      if (stat) snapshot.own.set(pid, stat.cpuMicros);
    }
  }
  return snapshot;
}

export interface CpuPerRequest {
  server?: number;
  postgres?: number;
  /** The server's own PostgreSQL backends (a backend gone by the end is not counted). */
  ownPostgres?: number;
  generator: number;
}

/** Microseconds of CPU per completed request between two snapshots; a process that ended in between is not counted. */
export function cpuPerRequest(before: CpuSnapshot, after: CpuSnapshot, requests: number): CpuPerRequest {
  const per = (micros: number) => micros / Math.max(1, requests);
  let postgres = 0;
  for (const [pid, micros] of after.postgres) postgres += micros - (before.postgres.get(pid) ?? 0);
  let own: number | undefined;
  if (before.own && after.own && after.own.size > 0) {
    own = 0;
    for (const [pid, micros] of after.own) own += micros - (before.own.get(pid) ?? micros);
  }
  return {
    ...(before.server !== undefined && after.server !== undefined ? { server: per(after.server - before.server) } : {}),
    ...(after.postgres.size > 0 ? { postgres: per(postgres) } : {}),
    ...(own !== undefined ? { ownPostgres: per(own) } : {}),
    generator: per(after.generator - before.generator),
  };
}

/** Jiffies the host took from this machine ("steal"), and all jiffies, since boot (the `cpu` line of /proc/stat). */
export function machineCpuTimes(): { steal: number; total: number } {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    return { steal: fields[7] ?? 0, total: fields.slice(0, 8).reduce((a, b) => a + b, 0) };
  } catch {
    return { steal: 0, total: 0 };
  }
}

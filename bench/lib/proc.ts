/** What Linux's /proc says of a process: its resident memory and the CPU time it has used. */
import { readdirSync, readFileSync } from 'node:fs';

/** USER_HZ: /proc/<pid>/stat counts CPU time in ticks of 10 ms on every Linux the project targets. */
const MS_PER_TICK = 10;

export function rssBytes(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((entry) => entry.startsWith('VmRSS:'));
  const kib = line === undefined ? Number.NaN : Number(/(\d+)/.exec(line)?.[1]);
  if (!Number.isFinite(kib)) throw new Error(`no VmRSS for process ${pid} (Linux /proc is needed for this benchmark)`);
  return kib * 1024;
}

/** The fields of /proc/<pid>/stat after the command name, which may itself hold spaces and parentheses. */
function statFields(pid: number): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** User plus system CPU time the process has used, in ms. */
export function cpuMs(pid: number): number {
  const fields = statFields(pid);
  // utime and stime are fields 14 and 15 of stat, 12 and 13 after the name and state.
  return (Number(fields[11]) + Number(fields[12])) * MS_PER_TICK;
}

/** The process and its direct children (e.g. a PostgreSQL postmaster and its backends). */
export function withChildren(pid: number): number[] {
  const children = readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((candidate) => {
      try {
        return Number(statFields(candidate)[1]) === pid;
      } catch {
        return false;
      }
    });
  return [pid, ...children];
}

/**
 * CPU ms of each process in `pids`, keyed by pid; one that has exited reads as absent, so a
 * difference of two readings counts only the processes alive at both.
 */
export function cpuReading(pids: readonly number[]): Map<number, number> {
  const reading = new Map<number, number>();
  for (const pid of pids) {
    try {
      reading.set(pid, cpuMs(pid));
    } catch {
      // Gone between listing and reading: a backend that closed.
    }
  }
  return reading;
}

/** CPU ms `pids` used between two readings, counting only those present in both. */
export function cpuSpent(before: ReadonlyMap<number, number>, after: ReadonlyMap<number, number>, pids: readonly number[]): number {
  let spent = 0;
  for (const pid of pids) {
    const earlier = before.get(pid);
    const later = after.get(pid);
    if (earlier !== undefined && later !== undefined) spent += later - earlier;
  }
  return spent;
}

/**
 * Microseconds since boot in which at least one runnable thread waited for a core
 * (/proc/pressure/cpu, its `some` line); undefined where the kernel keeps no pressure figures.
 */
export function cpuPressureMicros(): number | undefined {
  try {
    const some = readFileSync('/proc/pressure/cpu', 'utf8')
      .split('\n')
      .find((line) => line.startsWith('some '));
    const total = Number(/total=(\d+)/.exec(some ?? '')?.[1]);
    return Number.isFinite(total) ? total : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A small filesystem of its own for a test (a size-limited tmpfs), so a test can fill it up and
 * free it again: writes on it then fail with ENOSPC as on a full disk. Mounting needs root (or
 * CAP_SYS_ADMIN); where the kernel or the container refuses, `mountSmallDisk` says why instead.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, statfsSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SmallDisk {
  /** The mount point: an empty folder of `sizeBytes` capacity. */
  readonly dir: string;
  /** Writes a filler file until the filesystem refuses with ENOSPC; returns the bytes it took. */
  fill(): number;
  /** Deletes the filler: the space is back. */
  free(): void;
  /** Bytes still free (statfs). */
  freeBytes(): number;
  /** Unmounts (lazily if something still holds it open) and removes the mount point. */
  unmount(): void;
}

const FILLER = '.disk-filler';

/** A mounted small disk, or the reason this machine cannot mount one (under CI=true that fails instead). */
export function mountSmallDisk(sizeBytes: number): SmallDisk | { readonly unavailable: string } {
  const dir = mkdtempSync(join(tmpdir(), 'agentd-smalldisk-'));
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeBytes},mode=0755`, 'agentd-test-disk', dir], { encoding: 'utf8' });
  if (mounted.error !== undefined || mounted.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    const why = mounted.error?.message ?? (mounted.stderr.trim() || `mount exited with ${String(mounted.status)}`);
    const unavailable = `cannot mount a ${sizeBytes}-byte tmpfs here (${why})`;
    if (process.env.CI === 'true') throw new Error(`${unavailable}, and CI=true: the disk-full faults must be injected in CI (run as root)`);
    return { unavailable };
  }
  const filler = join(dir, FILLER);
  return {
    dir,
    fill() {
      const fd = openSync(filler, 'a');
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      let written = 0;
      try {
        for (;;) {
          try {
            const wrote = writeSync(fd, chunk);
            written += wrote;
            if (wrote < chunk.length) continue; // the last pages: the next write gets ENOSPC
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code === 'ENOSPC') return written;
            throw error;
          }
        }
      } finally {
        closeSync(fd);
      }
    },
    free() {
      unlinkSync(filler);
    },
    freeBytes() {
      const stats = statfsSync(dir);
      return stats.bavail * stats.bsize;
    },
    unmount() {
      const plain = spawnSync('umount', [dir], { encoding: 'utf8' });
      if (plain.status !== 0) spawnSync('umount', ['-l', dir], { encoding: 'utf8' });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

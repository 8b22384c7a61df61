/**
 * The rooms of src/ (its folders; `index.ts` and `worker.ts` at the root are rooms of their own)
 * and the arrows the imports draw between them. Read by the layout test and by `npm run rooms`,
 * which prints the picture.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { repoRoot } from './repo';

/** Each room, and the rooms its files import from. */
export type RoomArrows = Map<string, Set<string>>;

const IMPORT = /^(?:import|export)\s[^;]*?\sfrom\s+'(\.{1,2}\/[^']+)'/gm;

function roomOf(srcDir: string, file: string): string {
  const [first, ...rest] = relative(srcDir, file).split(sep);
  if (rest.length > 0) return first ?? '';
  return (first ?? '').replace(/\.ts$/, '');
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

export function roomArrows(srcDir = join(repoRoot(), 'src')): RoomArrows {
  const arrows: RoomArrows = new Map();
  for (const file of sourceFiles(srcDir)) {
    const from = roomOf(srcDir, file);
    const targets = arrows.get(from) ?? new Set<string>();
    arrows.set(from, targets);
    for (const found of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const target = resolve(dirname(file), found[1] ?? '');
      if (!target.startsWith(srcDir + sep)) continue;
      const to = roomOf(srcDir, target.endsWith('.ts') ? target : `${target}.ts`);
      if (to !== from) targets.add(to);
    }
  }
  return arrows;
}

/** Every circle of arrows, each as its rooms sorted by name, found once. */
export function roomCircles(arrows: RoomArrows): string[][] {
  const found = new Map<string, string[]>();
  const walk = (start: string, at: string, path: string[]): void => {
    for (const next of arrows.get(at) ?? []) {
      if (next === start) {
        const rooms = [...path].sort();
        found.set(rooms.join(' '), rooms);
      } else if (!path.includes(next) && next > start) {
        walk(start, next, [...path, next]);
      }
    }
  };
  for (const room of arrows.keys()) walk(room, room, [room]);
  return [...found.values()];
}

/**
 * The rooms in layers, top first: a room sits one layer above the highest room it imports from,
 * so every arrow points down the page.
 */
export function roomLayers(arrows: RoomArrows): string[][] {
  const depth = new Map<string, number>();
  const depthOf = (room: string, seen: ReadonlySet<string>): number => {
    const known = depth.get(room);
    if (known !== undefined) return known;
    if (seen.has(room)) throw new Error(`a circle through ${room}`);
    const below = [...(arrows.get(room) ?? [])].map((to) => depthOf(to, new Set([...seen, room])));
    const value = below.length === 0 ? 0 : Math.max(...below) + 1;
    depth.set(room, value);
    return value;
  };
  const layers: string[][] = [];
  for (const room of [...arrows.keys()].sort()) {
    const layer = depthOf(room, new Set());
    (layers[layer] ??= []).push(room);
  }
  return layers.reverse();
}

/**
 * `npm run rooms`: the house of src/ drawn from its imports, top layer first, each room with the
 * rooms it imports from (every arrow points to a lower layer), and the count of circles.
 */
import { roomArrows, roomCircles, roomLayers } from './rooms';

const arrows = roomArrows();
const circles = roomCircles(arrows);
if (circles.length > 0) {
  process.stdout.write(`${circles.length} circle(s): ${circles.map((rooms) => rooms.join(' ↔ ')).join('; ')}\n`);
  process.exit(1);
}
const layers = roomLayers(arrows);
layers.forEach((layer, index) => {
  process.stdout.write(`${index === 0 ? '' : '\n'}${layer.map((room) => `[ ${room} ]`).join('  ')}\n`);
  for (const room of layer) {
    const below = [...(arrows.get(room) ?? [])].sort();
    if (below.length > 0) process.stdout.write(`    ${room} ↓ ${below.join(', ')}\n`);
  }
});
const arrowCount = [...arrows.values()].reduce((sum, targets) => sum + targets.size, 0);
process.stdout.write(`\n${arrows.size} rooms, ${arrowCount} arrows, all pointing down; 0 circles\n`);

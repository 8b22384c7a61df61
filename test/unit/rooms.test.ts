/**
 * The folders of src/ are rooms, and an import is an arrow from one room to another. The house
 * reads from the top down only when no arrows go round in a circle: a room in a circle cannot be
 * understood, changed or tested without the others in it. Type-only imports count too, since a
 * reader has to follow them just the same.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { roomArrows, roomCircles } from '../../harness/rooms';

describe('rooms of src/', () => {
  test('no arrows between rooms go round in a circle', () => {
    const arrows = roomArrows();
    assert.ok(arrows.size > 10, `the rooms were found: ${[...arrows.keys()].join(', ')}`);
    assert.deepEqual(roomCircles(arrows), []);
  });

  test('the circle check finds a circle when there is one', () => {
    const arrows = new Map([
      ['store', new Set(['model'])],
      ['model', new Set(['policy'])],
      ['policy', new Set(['store'])],
    ]);
    assert.deepEqual(roomCircles(arrows), [['model', 'policy', 'store']]);
  });
});

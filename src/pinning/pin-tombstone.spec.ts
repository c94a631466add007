import { ForgottenKeys, FORGOTTEN_BITS } from './forgotten-keys';
import {
  keptDefinition,
  leavesTombstone,
  TOMBSTONE_DEFINITION_BYTES,
  tombstonesToEvict,
} from './pin-tombstone';

const at = (minute: number) => new Date(Date.UTC(2026, 10, 26, 10, minute));

describe('tombstones', () => {
  it('are left by entries that carry a decision: pinned, rejected or disabled', () => {
    const none = { contentHash: 'h', pinnedHash: null, rejectedHash: null, enabled: true };
    expect(leavesTombstone(none)).toBe(false);
    expect(leavesTombstone({ ...none, pinnedHash: 'h' })).toBe(true);
    expect(leavesTombstone({ ...none, rejectedHash: 'r' })).toBe(true);
    expect(leavesTombstone({ ...none, enabled: false })).toBe(true);
  });

  it('are bounded: past the limit the longest gone are dropped first', () => {
    const kept = [
      { kind: 'tool', key: 'c', removedAt: at(3) },
      { kind: 'tool', key: 'a', removedAt: at(1) },
      { kind: 'prompt', key: 'b', removedAt: at(1) },
      { kind: 'tool', key: 'd', removedAt: at(4) },
    ];
    expect(tombstonesToEvict(kept, 4)).toEqual([]);
    expect(tombstonesToEvict(kept, 10)).toEqual([]);
    expect(tombstonesToEvict(kept, 2).map((t) => `${t.kind} ${t.key}`)).toEqual([
      'prompt b',
      'tool a',
    ]);
    expect(tombstonesToEvict(kept, 0)).toHaveLength(4);
  });

  it('keep a definition up to a size, and only its hashes beyond', () => {
    const small = { name: 'a', description: 'x' };
    expect(keptDefinition(small)).toBe(small);
    const large = { name: 'a', description: 'x'.repeat(TOMBSTONE_DEFINITION_BYTES) };
    expect(keptDefinition(large)).toBeNull();
  });
});

describe('ForgottenKeys', () => {
  it('never forgets a key it was given, also once stored and read back', () => {
    const keys = ForgottenKeys.empty();
    const given = Array.from({ length: 2000 }, (_, index) => `tool_${index}`);
    for (const key of given) keys.add('tool', key);
    const stored = ForgottenKeys.of(keys.bytes());
    expect(given.every((key) => stored.has('tool', key))).toBe(true);
    expect(keys.bytes()).toHaveLength(FORGOTTEN_BITS / 8);
  });

  it('rarely says yes of a key it was not given, and tells kinds apart', () => {
    const keys = ForgottenKeys.empty();
    for (let index = 0; index < 5000; index++) keys.add('tool', `tool_${index}`);
    const strangers = Array.from({ length: 10_000 }, (_, index) => `other_${index}`);
    const falseHits = strangers.filter((key) => keys.has('tool', key)).length;
    expect(falseHits / strangers.length).toBeLessThan(0.01);
    expect(ForgottenKeys.empty().has('tool', 'tool_1')).toBe(false);
    const one = ForgottenKeys.empty();
    one.add('tool', 'stable');
    expect(one.has('prompt', 'stable')).toBe(false);
  });

  it('reads anything but a stored filter as empty', () => {
    expect(ForgottenKeys.of(null).has('tool', 'a')).toBe(false);
    expect(ForgottenKeys.of(Buffer.alloc(3, 0xff)).has('tool', 'a')).toBe(false);
  });
});

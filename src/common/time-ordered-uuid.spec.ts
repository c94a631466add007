import { isUUID } from 'class-validator';
import { timeOrderedUuid } from './time-ordered-uuid';

describe('timeOrderedUuid', () => {
  it('is a version 7 UUID of the RFC 9562 variant, its first 48 bits the time in milliseconds', () => {
    const now = Date.UTC(2026, 11, 1, 12, 0, 0, 123);
    const id = timeOrderedUuid(now);
    expect(isUUID(id, 7)).toBe(true);
    expect(id[14]).toBe('7');
    expect('89ab').toContain(id[19]);
    expect(parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(now);
  });

  it('sorts by time, and ids of the same millisecond differ', () => {
    const earlier = timeOrderedUuid(1_000);
    const later = timeOrderedUuid(1_001);
    expect(earlier < later).toBe(true);
    const same = new Set(Array.from({ length: 1000 }, () => timeOrderedUuid(5_000)));
    expect(same.size).toBe(1000);
  });
});

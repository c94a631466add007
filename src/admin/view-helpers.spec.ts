import {
  formatTime,
  isLongToolName,
  plural,
  prettyJson,
  serialNumber,
  truncate,
} from './view-helpers';

describe('view helpers', () => {
  it('numbers rows from the page offset', () => {
    expect(serialNumber(0, 0)).toBe(1);
    expect(serialNumber(0, 25)).toBe(26);
    expect(serialNumber(24, 25)).toBe(50);
  });

  it('shortens text by characters with an ellipsis, leaving short text alone', () => {
    expect(truncate('short', 10)).toBe('short');
    expect(truncate('exactly10!', 10)).toBe('exactly10!');
    expect(truncate('a description that goes on', 12)).toBe('a descripti…');
    expect(truncate('ends in a space here', 10)).toBe('ends in a…');
    expect(truncate('😀😀😀😀', 3)).toBe('😀😀…');
    expect(truncate(null, 5)).toBe('');
  });

  it('formats times in UTC, and never as a dash', () => {
    expect(formatTime('2025-01-31T14:05:09.123Z')).toBe('2025-01-31 14:05 UTC');
    expect(formatTime(null)).toBe('—');
    expect(formatTime('garbage')).toBe('—');
  });

  it('flags names over 64 characters', () => {
    expect(isLongToolName('a'.repeat(64))).toBe(false);
    expect(isLongToolName('a'.repeat(65))).toBe(true);
  });

  it('indents JSON and pluralises', () => {
    expect(prettyJson({ a: [1] })).toBe('{\n  "a": [\n    1\n  ]\n}');
    expect(plural(1, 'conflict')).toBe('1 conflict');
    expect(plural(2, 'conflict')).toBe('2 conflicts');
  });
});

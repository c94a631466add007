import { StderrRing } from './stderr-ring';

describe('StderrRing', () => {
  it('joins lines split across chunks and keeps only the last ones', () => {
    const ring = new StderrRing(3, 100);
    ring.write('one\ntw');
    ring.write('o\nthree\nfour\n');
    expect(ring.tail()).toEqual(['two', 'three', 'four']);
  });

  it('clips long lines and skips blank ones', () => {
    const ring = new StderrRing(10, 5);
    ring.write('abcdefghij\n\n   \nxy\n', '[1] ');
    expect(ring.tail()).toEqual(['[1] abcde…', '[1] xy']);
  });
});

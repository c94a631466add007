import { Debouncer } from './debouncer';

describe('Debouncer', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('fires once for a burst, after it went quiet', () => {
    const fire = jest.fn();
    const debouncer = new Debouncer(fire, 100, 1000);
    for (let i = 0; i < 5; i++) {
      debouncer.poke();
      jest.advanceTimersByTime(50);
    }
    expect(fire).not.toHaveBeenCalled();
    jest.advanceTimersByTime(100);
    expect(fire).toHaveBeenCalledTimes(1);
    jest.advanceTimersByTime(5000);
    expect(fire).toHaveBeenCalledTimes(1);
  });

  it('fires at the latest after the longest wait under a steady stream of pokes', () => {
    const fire = jest.fn();
    const debouncer = new Debouncer(fire, 100, 300);
    for (let i = 0; i < 10; i++) {
      debouncer.poke();
      jest.advanceTimersByTime(60);
    }
    expect(fire).toHaveBeenCalledTimes(2);
  });

  it('fires nothing once cancelled', () => {
    const fire = jest.fn();
    const debouncer = new Debouncer(fire, 100, 300);
    debouncer.poke();
    debouncer.cancel();
    jest.advanceTimersByTime(1000);
    expect(fire).not.toHaveBeenCalled();
  });
});

import { pinSettingsOf, type PinningMode, type PinState } from '../pin-state/definition-pin';
import { type StoredFinding } from '../pin-state/pin-columns';
import { rejudgePin } from './pin-rejudge';

const NOW = new Date('2026-11-26T10:00:00Z');
const EARLIER = '2026-11-01T00:00:00.000Z';
const finding: StoredFinding = {
  rule: 'sensitive-file-access',
  severity: 'high',
  field: 'description',
  message: 'reads a private key',
  excerpt: '~/.ssh/id_rsa',
};

function judge(
  pin: Partial<PinState>,
  found: StoredFinding[],
  mode: PinningMode = 'first-sight',
  threshold: 'high' | 'low' | null = 'high',
) {
  return rejudgePin(
    { contentHash: 'h1', pinnedHash: null, rejectedHash: null, quarantine: null, ...pin },
    found,
    pinSettingsOf({ pinning: mode, quarantineOnFinding: threshold }),
    NOW,
  );
}

describe('rejudgePin', () => {
  it('quarantines a served definition the threshold holds, pinned or not, keeping its pin', () => {
    expect(judge({ pinnedHash: 'h1' }, [finding])).toEqual({
      pin: {
        pinnedHash: 'h1',
        rejectedHash: null,
        quarantine: { reason: 'finding', since: NOW.toISOString() },
        findings: [finding],
      },
      serve: null,
      event: 'held',
    });
    expect(judge({}, [finding], 'off').event).toBe('held');
    expect(judge({ pinnedHash: 'h1' }, [finding], 'first-sight', null)).toMatchObject({
      pin: { quarantine: null, findings: [finding] },
    });
    expect(judge({ pinnedHash: 'h1' }, [{ ...finding, severity: 'low' }]).event).toBeUndefined();
  });

  it('leaves what is served and clean as it is, and holds one served away from its pin', () => {
    expect(judge({ pinnedHash: 'h1' }, [])).toEqual({
      pin: { pinnedHash: 'h1', rejectedHash: null, quarantine: null, findings: null },
      serve: null,
    });
    expect(judge({ pinnedHash: 'h0' }, [])).toMatchObject({
      pin: { quarantine: { reason: 'changed' } },
      event: 'held',
    });
  });

  it('gives a held change the reason the threshold says, keeping it held', () => {
    const held = { hash: 'h2', definition: { name: 'a' } };
    const changed = { reason: 'changed' as const, since: EARLIER, held };
    expect(judge({ pinnedHash: 'h1', quarantine: changed }, [finding]).pin.quarantine).toEqual({
      ...changed,
      reason: 'finding',
    });
    const flagged = { ...changed, reason: 'finding' as const };
    const relaxed = judge({ pinnedHash: 'h1', quarantine: flagged }, [], 'first-sight', null);
    expect(relaxed.pin.quarantine).toEqual(changed);
    expect(relaxed.event).toBeUndefined();
  });

  it('pins what it lets through on a gateway that pins on first sight', () => {
    const waiting = { reason: 'finding' as const, since: EARLIER };
    expect(judge({ quarantine: waiting }, [], 'first-sight', null).pin).toMatchObject({
      pinnedHash: 'h1',
      quarantine: null,
    });
    expect(judge({ quarantine: waiting }, [], 'off', null).pin.pinnedHash).toBeNull();
    const held = { hash: 'h2', definition: { name: 'a' } };
    const served = judge({ quarantine: { ...waiting, held } }, [], 'first-sight', null);
    expect(served).toMatchObject({ pin: { pinnedHash: 'h2' }, serve: held.definition });
  });

  it('serves a held change that was held only for a finding the threshold no longer counts', () => {
    const held = { hash: 'h2', definition: { name: 'a', description: 'clean now' } };
    const result = judge(
      { quarantine: { reason: 'finding', since: EARLIER, held } },
      [],
      'off',
      null,
    );
    expect(result).toEqual({
      pin: { pinnedHash: null, rejectedHash: null, quarantine: null, findings: null },
      serve: held.definition,
      event: 'released',
    });
  });

  it('releases a waiting definition held only for a finding, unless the gateway reviews new ones', () => {
    const waiting = { reason: 'finding' as const, since: EARLIER };
    expect(judge({ quarantine: waiting }, [], 'first-sight', null).event).toBe('released');
    expect(judge({ pinnedHash: 'h1', quarantine: waiting }, [], 'review', null).event).toBe(
      'released',
    );
    expect(judge({ quarantine: waiting }, [], 'review', null)).toMatchObject({
      pin: { quarantine: { reason: 'new', since: EARLIER } },
    });
    expect(judge({ pinnedHash: 'h0', quarantine: waiting }, [], 'off', null)).toMatchObject({
      pin: { quarantine: { reason: 'changed' } },
    });
  });

  it('keeps every other wait as it is: new, changed, a suspected rename, a forgotten return', () => {
    for (const reason of ['new', 'changed', 'renamed', 'returned'] as const) {
      const quarantine = { reason, since: EARLIER };
      expect(judge({ quarantine }, [], 'off', null).pin.quarantine).toEqual(quarantine);
    }
    for (const reason of ['renamed', 'returned'] as const)
      expect(judge({ quarantine: { reason, since: EARLIER } }, [finding]).pin.quarantine).toEqual({
        reason,
        since: EARLIER,
      });
    expect(
      judge({ quarantine: { reason: 'new', since: EARLIER } }, [finding]).pin.quarantine,
    ).toEqual({ reason: 'finding', since: EARLIER });
  });
});

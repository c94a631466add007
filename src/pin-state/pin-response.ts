import { type PinStateDto } from './pin-state.dto';
import { type PinColumns } from './pin-columns';

/** The one mapping from an entry's pin columns to what any API shows of them. */
export function pinStateOf(entry: { contentHash: string; pin: PinColumns }): PinStateDto {
  const { quarantine } = entry.pin;
  return {
    pinnedHash: entry.pin.pinnedHash,
    contentHash: entry.contentHash,
    rejectedHash: entry.pin.rejectedHash,
    quarantine: quarantine
      ? {
          reason: quarantine.reason,
          since: quarantine.since,
          heldHash: quarantine.held?.hash ?? null,
          renamedFrom: quarantine.renamedFrom ?? null,
        }
      : null,
    findings: entry.pin.findings ?? [],
  };
}

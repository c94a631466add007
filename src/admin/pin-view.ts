import { type QuarantineReason } from '../pin-state/definition-pin';
import { type PinReviewDto } from '../pinning/dto/pin-review.dto';
import { type PinFindingDto } from '../pin-state/pin-state.dto';
import { type PinKind } from '../pinning/pinned-kinds';
import { definitionDiff, type DiffLine, type FieldDiff } from './definition-diff';

const REASONS: Record<QuarantineReason, string> = {
  new: 'new, and this gateway reviews new entries before they are served',
  changed: 'its definition changed upstream; the pinned one stays stored while the change waits',
  finding: 'the definition scanner flagged it',
  renamed:
    'it looks like a pinned entry that left the upstream, renamed with its description changed',
  returned:
    'it left the upstream and came back, and its pin was among those forgotten for room; review it as new',
};

const MARKS: Record<DiffLine['kind'], string> = { same: ' ', added: '+', removed: '-' };

/** Where an entry's pin decisions are posted. */
export function pinActionsPath(kind: PinKind, id: string): string {
  return `/admin/pins/${kind}/${id}`;
}

/** The page of an entry of this kind. */
export function entryPath(kind: PinKind, id: string): string {
  switch (kind) {
    case 'tool':
      return `/admin/tools/${id}`;
    case 'prompt':
      return `/admin/prompts/${id}`;
    case 'resource-template':
      return `/admin/resources/templates/${id}`;
  }
}

export interface PinView {
  actions: string;
  pinnedHash: string | null;
  contentHash: string;
  rejectedHash: string | null;
  /** Whether the stored definition is the pinned one. */
  atPin: boolean;
  quarantine: {
    reason: QuarantineReason;
    reasonText: string;
    since: string;
    changed: boolean;
    /** For a suspected rename: the name of the pinned entry it looks like. */
    renamedFrom: string | null;
  } | null;
  /** The hash the Approve and Reject buttons post: what the page shows as waiting. */
  reviewHash: string;
  findings: PinFindingDto[];
  /**
   * Pinned against held, field by field, while a change is held aside; for a suspected rename,
   * the pinned entry that left against this one.
   */
  fields: (FieldDiff & { lines: (DiffLine & { mark: string })[] })[] | null;
  changedFields: number;
}

/** An entry's pin as its page shows it, with the difference view of a held change. */
export function pinView(kind: PinKind, id: string, review: PinReviewDto): PinView {
  const { pin } = review;
  const [before, after] = review.held
    ? [review.stored, review.held]
    : review.renamedFrom
      ? [review.renamedFrom, review.stored]
      : [null, null];
  const fields =
    before && after
      ? definitionDiff(before, after).map((field) => ({
          ...field,
          lines: field.lines.map((line) => ({ ...line, mark: MARKS[line.kind] })),
        }))
      : null;
  return {
    actions: pinActionsPath(kind, id),
    pinnedHash: pin.pinnedHash,
    contentHash: pin.contentHash,
    rejectedHash: pin.rejectedHash,
    atPin: pin.pinnedHash === pin.contentHash,
    quarantine: pin.quarantine && {
      reason: pin.quarantine.reason,
      reasonText: REASONS[pin.quarantine.reason],
      since: pin.quarantine.since,
      changed: pin.quarantine.heldHash !== null,
      renamedFrom: pin.quarantine.renamedFrom,
    },
    reviewHash: pin.quarantine?.heldHash ?? pin.contentHash,
    findings: pin.findings,
    fields,
    changedFields: fields?.filter((field) => field.changed).length ?? 0,
  };
}

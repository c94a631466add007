import { type StreamOwner } from '../streams/client-stream';

/** An `identity.changed` event's ids. */
export interface IdentityChange {
  userIds: readonly string[];
  tokenIds: readonly string[];
  grantIds: readonly string[];
}

/**
 * Whether an identity change touches the owner of a stream: its user (role, teams, disabled or
 * deleted), its API token or its OAuth grant. Such streams end, so that no client keeps hearing on
 * a credential that no longer holds, or about lists it may no longer see.
 */
export function affectedBy(change: IdentityChange): (owner: StreamOwner) => boolean {
  const subjects = new Set([
    ...change.userIds.map((id) => `user:${id}`),
    ...change.tokenIds.map((id) => `token:${id}`),
  ]);
  const tokens = new Set([...change.tokenIds, ...change.grantIds]);
  return (owner) =>
    subjects.has(owner.subject) || (owner.tokenId !== null && tokens.has(owner.tokenId));
}

import { affectedBy } from './identity-change';

describe('affectedBy', () => {
  const change = { userIds: ['u1'], tokenIds: ['t1'], grantIds: ['g1'] };
  const affected = affectedBy(change);

  it.each([
    ['the changed user', { subject: 'user:u1', tokenId: null }],
    ['a user acting through a changed grant', { subject: 'user:u2', tokenId: 'g1' }],
    ['a revoked API token', { subject: 'token:t1', tokenId: 't1' }],
  ])('touches %s', (_, owner) => {
    expect(affected(owner)).toBe(true);
  });

  it.each([
    ['another user', { subject: 'user:u2', tokenId: null }],
    ['another token', { subject: 'token:t2', tokenId: 't2' }],
    ['a subject that only spells an id alike', { subject: 'u1', tokenId: null }],
  ])('leaves %s alone', (_, owner) => {
    expect(affected(owner)).toBe(false);
  });
});

import { isS256Challenge, verifierMatches } from './pkce';

// The example of RFC 7636 Appendix B.
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

describe('PKCE S256', () => {
  it('accepts the verifier of the challenge, and nothing else', () => {
    expect(verifierMatches(VERIFIER, CHALLENGE)).toBe(true);
    expect(verifierMatches(VERIFIER.replace('d', 'e'), CHALLENGE)).toBe(false);
    expect(verifierMatches(VERIFIER, CHALLENGE.replace('E', 'F'))).toBe(false);
  });

  it('refuses a verifier shorter than 43 or longer than 128 characters, or with other characters', () => {
    expect(verifierMatches('a'.repeat(42), CHALLENGE)).toBe(false);
    expect(verifierMatches('a'.repeat(129), CHALLENGE)).toBe(false);
    expect(verifierMatches(`${VERIFIER.slice(0, 42)} `, CHALLENGE)).toBe(false);
  });

  it('takes only a 43-character base64url challenge, as S256 makes', () => {
    expect(isS256Challenge(CHALLENGE)).toBe(true);
    expect(isS256Challenge(`${CHALLENGE}=`)).toBe(false);
    expect(isS256Challenge('plain-challenge')).toBe(false);
  });
});

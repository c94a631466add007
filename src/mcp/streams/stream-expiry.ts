import { type Principal } from '../../auth/principal';
import { type ClientStream } from './client-stream';

/** The longest delay setTimeout keeps (about 24.8 days); a later expiry is waited for in steps. */
const MAX_DELAY_MS = 2 ** 31 - 1;

/**
 * Ends a stream when the credential that opened it expires: each request is authenticated when it
 * arrives, and a stream is a request that stays. `end` runs once, at the principal's `expiresAt`,
 * unless the stream closed first; a principal without a known expiry arms nothing. The timer does
 * not hold the process open.
 */
export function endAtExpiry(
  principal: Pick<Principal, 'expiresAt'>,
  stream: Pick<ClientStream, 'open' | 'onClose'>,
  end: () => void,
): void {
  const { expiresAt } = principal;
  if (expiresAt === undefined || !stream.open) return;
  let timer: NodeJS.Timeout;
  const arm = () => {
    const left = expiresAt - Date.now();
    timer = (
      left > MAX_DELAY_MS ? setTimeout(arm, MAX_DELAY_MS) : setTimeout(end, Math.max(0, left))
    ).unref();
  };
  arm();
  stream.onClose(() => clearTimeout(timer));
}

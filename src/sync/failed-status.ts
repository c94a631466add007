import { type GatewayStatus } from '../gateways/gateway.entity';
import {
  answeredBadly,
  type UpstreamFailure,
  UpstreamIncompatible,
} from '../upstream/upstream-error';

/** The statuses a failed contact with an upstream leaves its gateway in. */
export type FailedStatus = Extract<GatewayStatus, 'unreachable' | 'failing' | 'incompatible'>;

/**
 * What a failed contact says of the upstream: `unreachable` when nothing answered (no connection,
 * no answer in time, a lost stream), `failing` when it answered, but with an HTTP error or with
 * what is not MCP Portico can use, `incompatible` when it speaks only versions Portico does not.
 * A missing OAuth token stays `unreachable`: Portico could not ask, so nothing answered.
 */
export function failedStatus(failure: UpstreamFailure): FailedStatus {
  if (failure instanceof UpstreamIncompatible) return 'incompatible';
  return answeredBadly(failure) ? 'failing' : 'unreachable';
}

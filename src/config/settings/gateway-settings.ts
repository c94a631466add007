import { z } from 'zod';
import { type UpstreamResilienceConfig, type UpstreamSettings } from '../slices/upstream.settings';
import { type IntegerKnob } from './setting';
import { TUNING_KNOBS } from './tuning-knobs';

/** The knobs about one upstream, which a gateway may set for itself. */
export const PER_GATEWAY_KNOBS: readonly IntegerKnob[] = TUNING_KNOBS.filter(
  (knob): knob is IntegerKnob => knob.type === 'integer' && knob.perGateway === true,
);

/** A knob's name on a gateway: its key without the `upstream.` group. */
function nameOf(knob: IntegerKnob): string {
  return knob.key.slice(knob.key.indexOf('.') + 1);
}

/**
 * What a gateway sets for its upstream alone; what it leaves out follows the document's
 * `settings.upstream` (or its default).
 */
export interface GatewayUpstreamSettings {
  timeoutMs?: number;
  callMaxMs?: number;
  breakerFailures?: number;
  breakerFirstCooldownMs?: number;
  breakerCooldownMs?: number;
  maxConcurrent?: number;
  queue?: number;
  queueTimeoutMs?: number;
  retries?: number;
  retryBackoffMs?: number;
}

/** A gateway entry's `settings`, from the catalogue's bounds. */
export const gatewaySettingsSchema = z
  .object(
    Object.fromEntries(
      PER_GATEWAY_KNOBS.map((knob) => [
        nameOf(knob),
        z
          .number()
          .int()
          .min(knob.min)
          .max(knob.max)
          .describe(`${knob.description} For this upstream alone.`)
          .optional(),
      ]),
    ),
  )
  .strict()
  .describe(
    "This upstream's own timeout, circuit breaker, call cap and retries; what is left out follows settings.upstream.",
  ) as unknown as z.ZodType<GatewayUpstreamSettings>;

/** The settings as stored and compared: in catalogue order, null when none is set. */
export function normalGatewaySettings(
  settings: GatewayUpstreamSettings | null | undefined,
): GatewayUpstreamSettings | null {
  if (!settings) return null;
  const entries = PER_GATEWAY_KNOBS.map((knob) => nameOf(knob) as keyof GatewayUpstreamSettings)
    .filter((name) => settings[name] !== undefined)
    .map((name) => [name, settings[name]]);
  return entries.length === 0 ? null : (Object.fromEntries(entries) as GatewayUpstreamSettings);
}

/** How Portico calls one upstream: the gateway's own settings over the replica's. */
export interface TunedUpstream {
  timeoutMs: number;
  callMaxMs: number;
  resilience: UpstreamResilienceConfig;
}

export function tunedUpstream(
  base: UpstreamSettings,
  own: GatewayUpstreamSettings | null | undefined,
): TunedUpstream {
  const resilience = base.upstreamResilience;
  return {
    timeoutMs: own?.timeoutMs ?? base.upstreamTimeoutMs,
    callMaxMs: own?.callMaxMs ?? base.upstreamCallMaxMs,
    resilience: {
      failureThreshold: own?.breakerFailures ?? resilience.failureThreshold,
      firstCooldownMs: own?.breakerFirstCooldownMs ?? resilience.firstCooldownMs,
      cooldownMs: own?.breakerCooldownMs ?? resilience.cooldownMs,
      maxConcurrent: own?.maxConcurrent ?? resilience.maxConcurrent,
      maxQueue: own?.queue ?? resilience.maxQueue,
      queueTimeoutMs: own?.queueTimeoutMs ?? resilience.queueTimeoutMs,
      retry: {
        retries: own?.retries ?? resilience.retry.retries,
        backoffMs: own?.retryBackoffMs ?? resilience.retry.backoffMs,
      },
    },
  };
}

import { type EntityManager } from 'typeorm';
import { type PinGatewayResultDto } from './dto/pin-review.dto';

/**
 * Pins every entry of the gateway that is not held back, at its current definition; for the
 * API's "pin all", and when a gateway's pinning is switched on (inside the caller's transaction).
 */
export async function pinAllOf(em: EntityManager, gatewayId: string): Promise<PinGatewayResultDto> {
  const pinned = async (table: string) => {
    const [, count] = await em.query<[unknown, number]>(
      `UPDATE "${table}" SET pinned_hash = content_hash
       WHERE gateway_id = $1 AND quarantine IS NULL AND pinned_hash IS DISTINCT FROM content_hash`,
      [gatewayId],
    );
    return count;
  };
  return {
    tools: await pinned('tool'),
    prompts: await pinned('prompt'),
    resourceTemplates: await pinned('resource_template'),
  };
}

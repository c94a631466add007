import { type Request } from 'express';
import { TeamScope } from '../auth/team-scope';
import { type GatewayResponseDto } from '../gateways/dto/gateway-response.dto';
import { type GatewaysService } from '../gateways/gateways.service';
import { type FormBody, formField } from './form-body';

export interface TeamChoice {
  value: string;
  label: string;
  selected: boolean;
}

/** What the request's signed-in user sees and manages; the AuthGuard has set the principal. */
export function pageScope(request: Request): TeamScope {
  return TeamScope.of(request.principal!);
}

/**
 * The gateway a page's tool, prompt or resource belongs to, as the page's user sees it, and
 * whether they may change what belongs to it.
 */
export async function pageGateway(
  gateways: GatewaysService,
  request: Request,
  gatewayId: string,
): Promise<{ gateway: GatewayResponseDto; manageable: boolean }> {
  const scope = pageScope(request);
  const gateway = await gateways.get(gatewayId, scope);
  return { gateway, manageable: scope.canManage(gateway.teamId) };
}

/**
 * The form's team select as the API's `teamId`: '' is global (null). A form without the field
 * sends none, so the record keeps its team.
 */
export function withTeamInput(
  body: FormBody,
  input: Record<string, unknown>,
): Record<string, unknown> {
  if (body.teamId === undefined) return input;
  const teamId = formField(body, 'teamId');
  return { ...input, teamId: teamId === '' ? null : teamId };
}

/**
 * The teams a record may be given: for admins "Global" and every team, for others their own
 * teams (the only ones they manage).
 */
export function teamChoices(
  scope: TeamScope,
  teams: { id: string; name: string }[],
  selected: string | null,
): TeamChoice[] {
  const choices = scope.everything ? [{ value: '', label: 'Global (admins manage it)' }] : [];
  return [
    ...choices,
    ...teams
      .filter((team) => scope.everything || scope.teamIds.includes(team.id))
      .map((team) => ({ value: team.id, label: team.name })),
  ].map((choice) => ({ ...choice, selected: choice.value === (selected ?? '') }));
}

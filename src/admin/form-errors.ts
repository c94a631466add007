import { ApprovalErrorCode } from '../approvals/approval.exception';
import { AuditErrorCode } from '../audit/audit.exception';
import { AuthErrorCode, AuthException } from '../auth/auth.exception';
import { problemStatusOf } from '../common/problem-statuses';
import {
  ConsolidatedToolErrorCode,
  ConsolidatedToolException,
} from '../consolidated-tools/consolidated-tool.exception';
import { ConfigDocumentErrorCode } from '../config-as-code/config-document.exception';
import { RequestValidationException } from '../common/request-validation.exception';
import { GatewayErrorCode, GatewayException } from '../gateways/gateway.exception';
import { PinErrorCode, PinException } from '../pinning/pin.exception';
import { PromptErrorCode, PromptException } from '../prompts/prompt.exception';
import { ResourceErrorCode, ResourceException } from '../resources/resource.exception';
import { ServerErrorCode, ServerException } from '../servers/server.exception';
import { TeamErrorCode, TeamException } from '../teams/team.exception';
import { TokenErrorCode, TokenException } from '../tokens/token.exception';
import { ToolErrorCode, ToolException } from '../tools/tool.exception';
import { UserErrorCode, UserException } from '../users/user.exception';
import { PolicyErrorCode, PolicyException } from '../policies/policy.exception';
import { RateLimitErrorCode, RateLimitException } from '../rate-limits/rate-limit.exception';

/** The codes of the features whose refusals a form can show. */
type DomainErrorCode =
  | GatewayErrorCode
  | ToolErrorCode
  | ResourceErrorCode
  | PromptErrorCode
  | PinErrorCode
  | ServerErrorCode
  | AuthErrorCode
  | UserErrorCode
  | TeamErrorCode
  | TokenErrorCode
  | ConfigDocumentErrorCode
  | PolicyErrorCode
  | RateLimitErrorCode
  | AuditErrorCode
  | ApprovalErrorCode
  | ConsolidatedToolErrorCode;

/** What a form shows after the service refused it: messages by field, and one for the form. */
export interface FormErrors {
  fields: Record<string, string>;
  message: string;
  status: number;
}

/** The form field a domain error belongs beside, or null when it concerns the whole form. */
export function fieldOfCode(code: DomainErrorCode): string | null {
  switch (code) {
    case GatewayErrorCode.NameTaken:
    case GatewayErrorCode.SlugTaken:
    case GatewayErrorCode.SlugEmpty:
    case GatewayErrorCode.ToolNameClash:
    case GatewayErrorCode.ToolNameTooLong:
    case ServerErrorCode.NameTaken:
    case TeamErrorCode.NameTaken:
    case PolicyErrorCode.NameTaken:
    case ConsolidatedToolErrorCode.NameTaken:
      return 'name';
    case ConsolidatedToolErrorCode.UnknownTools:
    case ConsolidatedToolErrorCode.DuplicateMembers:
    case ConsolidatedToolErrorCode.SchemaMismatch:
      return 'members';
    case ConsolidatedToolErrorCode.UnknownServers:
      return 'serverIds';
    case ConsolidatedToolErrorCode.NotFound:
      return null;
    case PolicyErrorCode.InvalidExpression:
      return 'expression';
    case PolicyErrorCode.InvalidApproval:
      return 'effect';
    case UserErrorCode.UsernameTaken:
      return 'username';
    case UserErrorCode.UnknownTeams:
    case TeamErrorCode.Unknown:
      return 'teamIds';
    case TokenErrorCode.ScopeRequired:
    case TokenErrorCode.BeyondOwner:
      return 'serverIds';
    case GatewayErrorCode.UrlTaken:
      return 'url';
    case GatewayErrorCode.StdioCommandNotAllowed:
      return 'command';
    case ServerErrorCode.UnknownTools:
      return 'toolIds';
    case ServerErrorCode.UnknownResources:
      return 'resourceIds';
    case ServerErrorCode.UnknownResourceTemplates:
      return 'resourceTemplateIds';
    case ServerErrorCode.UnknownPrompts:
      return 'promptIds';
    case ServerErrorCode.NameClash:
      return 'naming';
    case ServerErrorCode.UnknownAlwaysLoaded:
      return 'alwaysLoaded';
    case AuthErrorCode.InvalidCredentials:
      return 'password';
    case GatewayErrorCode.NotFound:
    case GatewayErrorCode.Disabled:
    case GatewayErrorCode.SyncInProgress:
    case GatewayErrorCode.SyncSuperseded:
    case GatewayErrorCode.UpstreamUnavailable:
    case GatewayErrorCode.UpstreamFailing:
    case GatewayErrorCode.UpstreamIncompatible:
    case GatewayErrorCode.NotOAuth:
    case GatewayErrorCode.ConnectionForbidden:
    case GatewayErrorCode.AuthorizationFailed:
    case GatewayErrorCode.ImportedAlready:
    case ToolErrorCode.NotFound:
    case ToolErrorCode.Disabled:
    case ToolErrorCode.Quarantined:
    case PinErrorCode.Stale:
    case PinErrorCode.Quarantined:
    case ToolErrorCode.UpstreamUnavailable:
    case ToolErrorCode.UpstreamFailing:
    case ToolErrorCode.UpstreamRefused:
    case ToolErrorCode.ApprovalRequired:
    case ToolErrorCode.ArgumentsTooLarge:
    case ResourceErrorCode.NotFound:
    case ResourceErrorCode.TemplateNotFound:
    case PromptErrorCode.NotFound:
    case ServerErrorCode.NotFound:
    case AuthErrorCode.TooManyAttempts:
    case AuthErrorCode.Unauthenticated:
    case AuthErrorCode.Forbidden:
    case AuthErrorCode.NoSuchEndpoint:
    case UserErrorCode.NotFound:
    case UserErrorCode.BreakGlass:
    case UserErrorCode.NotLocal:
    case TeamErrorCode.NotFound:
    case TeamErrorCode.InUse:
    case TokenErrorCode.NotFound:
    case TokenErrorCode.LimitReached:
    case ConfigDocumentErrorCode.Invalid:
    case ConfigDocumentErrorCode.SecretUnavailable:
    case ConfigDocumentErrorCode.UnknownReference:
    case ConfigDocumentErrorCode.Conflict:
    case PolicyErrorCode.NotFound:
    case PolicyErrorCode.InvalidHooks:
    case RateLimitErrorCode.NotFound:
    case RateLimitErrorCode.Exceeded:
    case RateLimitErrorCode.Unavailable:
    case AuditErrorCode.BadCursor:
    case ApprovalErrorCode.NotFound:
      return null;
    case PolicyErrorCode.UnknownTarget:
    case RateLimitErrorCode.UnknownTarget:
      return 'target';
  }
}

/**
 * Maps what a service or DTO validation threw to form errors, the way the REST API maps it to a
 * problem document. Returns null for anything a form cannot show (a missing record, a bug), which
 * the caller rethrows. `aliases` renames DTO paths to form fields (`auth.token` → `token`).
 */
export function formErrors(
  error: unknown,
  aliases: Record<string, string> = {},
): FormErrors | null {
  if (error instanceof RequestValidationException) {
    const fields: Record<string, string> = {};
    for (const { field, messages } of error.errors) {
      const name = aliases[field] ?? field.split('.')[0]!;
      fields[name] = [fields[name], ...messages].filter(Boolean).join('; ');
    }
    return { fields, message: 'Some fields need correcting.', status: 422 };
  }
  if (
    error instanceof GatewayException ||
    error instanceof ServerException ||
    error instanceof ToolException ||
    error instanceof ResourceException ||
    error instanceof PromptException ||
    error instanceof PinException ||
    error instanceof AuthException ||
    error instanceof UserException ||
    error instanceof TeamException ||
    error instanceof TokenException ||
    error instanceof PolicyException ||
    error instanceof RateLimitException ||
    error instanceof ConsolidatedToolException
  ) {
    const status = problemStatusOf(error) ?? 500;
    if (status === 404) return null;
    const field = fieldOfCode(error.code);
    return {
      fields: field === null ? {} : { [field]: error.message },
      message: field === null ? error.message : 'The change was refused; see the marked field.',
      status,
    };
  }
  return null;
}
